"""The hostile-client suite from Python: run its cheats against an embedded server.

Each cheat (``bots/hostile/cheats/<id>.js``) is a raw-packet Minecraft client doing what a
modified game client can (a creative packet in survival, a click that lies, a chest opened
from afar, an impostor's login, a flood...), then checking the server's own state. Node's
``bots/hostile/run.js`` runs them one after another against one running server and prints
a ``HOSTILE {json}`` line each; :func:`run_cheats` reads them into :class:`CheatResult`.
The admin token reaches run.js as the path of its file, never in argv.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_runtime.services.process import ChildProcess
from bots.node import BOTS_DIR, node_env, node_executable, require_node_modules
from bots.server_host import EmbeddedServer

HOSTILE_DIR = BOTS_DIR / "hostile"
CHEATS_DIR = HOSTILE_DIR / "cheats"
RUN_JS = HOSTILE_DIR / "run.js"
_PREFIX = "HOSTILE "


class HostileRunError(RuntimeError):
    """run.js failed as a whole (not one cheat: those are results)."""


@dataclass(frozen=True)
class CheatResult:
    """One cheat at one version: ``refused`` was computed from the server's state."""

    id: str
    version: str
    refused: bool | None  # None: skipped (the cheat does not apply at this version)
    what: str = ""
    vanilla: str = ""
    detail: dict[str, Any] = field(default_factory=dict)
    ms: int = 0
    skipped: bool = False
    error: str | None = None  # the cheat itself failed: nothing was shown refused

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CheatResult:
        refused = data.get("refused")
        return cls(
            id=str(data["id"]),
            version=str(data["version"]),
            refused=None if refused is None else bool(refused),
            what=str(data.get("what") or ""),
            vanilla=str(data.get("vanilla") or ""),
            detail=dict(data.get("detail") or {}),
            ms=int(data.get("ms") or 0),
            skipped=bool(data.get("skipped", False)),
            error=None if data.get("error") is None else str(data["error"]),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "version": self.version,
            "refused": self.refused,
            "what": self.what,
            "vanilla": self.vanilla,
            "detail": self.detail,
            "ms": self.ms,
            "skipped": self.skipped,
            "error": self.error,
        }


def catalogue(cheats_dir: Path = CHEATS_DIR) -> list[str]:
    """The ids of every cheat in the catalogue, sorted."""
    return sorted(p.stem for p in cheats_dir.glob("*.js"))


def parse_lines(text: str) -> list[CheatResult]:
    """The results in run.js's output (other lines are ignored)."""
    return [
        CheatResult.from_json(json.loads(line[len(_PREFIX) :]))
        for line in text.splitlines()
        if line.startswith(_PREFIX)
    ]


async def run_cheats(
    server: EmbeddedServer,
    cheats: Sequence[str] | None = None,
    *,
    per_cheat_timeout: float = 60.0,
) -> list[CheatResult]:
    """Run ``cheats`` (default: the whole catalogue) against a running ``server``, one
    after another; one result each, in order."""
    require_node_modules()
    ids = list(cheats) if cheats is not None else catalogue()
    unknown = sorted(set(ids) - set(catalogue()))
    if unknown:
        raise ValueError(f"no such cheat: {', '.join(unknown)}")
    if not ids:
        return []
    info = server.info
    settings = {
        "port": server.port,
        "host": "127.0.0.1",
        "version": server.options.version,
        "adminPort": info.get("adminPort"),
        "adminTokenFile": str(server.admin_token_file.resolve()),
        "cheats": ids,
        "timeoutMs": round(per_cheat_timeout * 1000),
    }
    env = node_env()
    env["PIANO_NODE_MODULES"] = str(BOTS_DIR / "node_modules")
    child = ChildProcess(
        "hostile clients",
        [str(node_executable()), str(RUN_JS), json.dumps(settings)],
        cwd=BOTS_DIR,
        env=env,
        capture=True,
        quiet_stderr=True,
        stop_timeout=5.0,
    )
    results: list[CheatResult] = []
    async with child:
        proc = child.proc
        assert proc is not None and proc.stdout is not None
        async with asyncio.timeout(per_cheat_timeout * len(ids) + 30):
            async for raw in proc.stdout:
                results.extend(parse_lines(raw.decode("utf-8", "replace")))
            code = await proc.wait()
    if code != 0 or len(results) != len(ids):
        raise HostileRunError(
            f"run.js exited {code} after {len(results)} of {len(ids)} cheats "
            f"(last: {results[-1].id if results else 'none'})"
        )
    return results
