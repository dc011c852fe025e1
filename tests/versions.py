"""The Minecraft versions the version-sweep tests start a world at (join, collect, craft,
smelt, deposit, the body's climb, the human end-to-end test, the hostile-client suite...).

By default every supported version (``SUPPORTED_VERSIONS``). ``PIANO_SWEEP_VERSIONS`` (a
comma-separated list) runs the sweeps at other versions instead, e.g. one that is not
supported yet: ``PIANO_SWEEP_VERSIONS=26.1 pytest tests/server/test_versions.py``."""

from __future__ import annotations

import os

from agent_runtime.config.models import SUPPORTED_VERSIONS


def _sweep() -> tuple[str, ...]:
    named = os.environ.get("PIANO_SWEEP_VERSIONS", "")
    chosen = [v.strip() for v in named.split(",") if v.strip()]
    return tuple(dict.fromkeys(chosen)) if chosen else SUPPORTED_VERSIONS


#: the versions the sweeps run at, oldest first
SWEEP_VERSIONS: tuple[str, ...] = _sweep()
