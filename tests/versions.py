"""The Minecraft versions the version-sweep tests start a world at (join, collect, craft,
smelt, deposit, the body's climb, the human end-to-end test, the hostile-client suite...).

By default the oldest supported version, 1.21.4 and the default (three versions: the other
supported ones, 1.20.4 and 1.21.11 today, are tested by the runs that made them supported, not
in every CI run, which keeps CI within its time).
``PIANO_SWEEP_VERSIONS`` (a comma-separated list) runs the sweeps at other versions instead,
e.g. all supported ones or one not supported yet:
``PIANO_SWEEP_VERSIONS=1.20.4,1.21.11 pytest tests/server/test_versions.py``."""

from __future__ import annotations

import os

from agent_runtime.config.models import DEFAULT_VERSION, SUPPORTED_VERSIONS

#: swept in every CI run besides the oldest supported version and the default
ALSO_SWEPT = ("1.21.4",)


def _sweep() -> tuple[str, ...]:
    named = os.environ.get("PIANO_SWEEP_VERSIONS", "")
    chosen = [v.strip() for v in named.split(",") if v.strip()]
    if chosen:
        return tuple(dict.fromkeys(chosen))
    wanted = {SUPPORTED_VERSIONS[0], *ALSO_SWEPT, DEFAULT_VERSION}
    return tuple(v for v in SUPPORTED_VERSIONS if v in wanted)


#: the versions the sweeps run at, oldest first
SWEEP_VERSIONS: tuple[str, ...] = _sweep()
