"""Where a benchmark's JSON goes: stdout, and with ``--json-out FILE`` a result file.

Every result carries its ``provenance`` (when, which commit, on what machine and under what
load), so that a figure in the docs rendered from the file (``piano docs``,
:mod:`agent_runtime.app.doc_figures`) says what it was measured on.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

from agent_runtime.clock import wall_time

__all__ = ["MeasuredOn", "Measurement", "add_json_out", "emit", "measured_on", "provenance"]

_ROOT = Path(__file__).resolve().parents[2]


def add_json_out(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--json-out",
        metavar="FILE",
        help="also write the JSON, with its provenance, to this file (e.g. a results/ folder)",
    )


def _git(*args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=_ROOT, capture_output=True, text=True, timeout=10, check=True
    ).stdout.strip()


def _commit() -> str | None:
    """The checkout's commit (with ``+dirty`` for uncommitted changes), if it is one."""
    try:
        head = _git("rev-parse", "--short", "HEAD")
        dirty = _git("status", "--porcelain", "--untracked-files=no")
    except (OSError, subprocess.SubprocessError):
        return None
    return f"{head}+dirty" if head and dirty else head or None


def _load() -> list[float]:
    return [round(v, 2) for v in os.getloadavg()]


def provenance(started: float, load_before: list[float] | None = None) -> dict[str, Any]:
    """What a result was measured on: ``started`` is the ``wall_time()`` the bench began."""
    return {
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(started)),
        "finished": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "commit": _commit(),
        "command": "piano " + " ".join(sys.argv[1:]),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "load_average_before": load_before,
        "load_average_after": _load(),
    }


class MeasuredOn(NamedTuple):
    """A result's provenance as table cells."""

    when: str  # "YYYY-MM-DD HH:MM" (UTC)
    commit: str
    load: str  # the load average (1 min) before -> after


def measured_on(result: Mapping[str, Any]) -> MeasuredOn:
    """The cells of ``result``'s provenance ("?" where it has none)."""
    prov = result.get("provenance", {})
    when = str(prov.get("date", "?"))
    before = (prov.get("load_average_before") or ["?"])[0]
    after = (prov.get("load_average_after") or ["?"])[0]
    return MeasuredOn(
        f"{when[:10]} {when[11:16]}", prov.get("commit") or "?", f"{before} -> {after}"
    )


class Measurement:
    """Opened when a bench starts (it reads the load before), closed by :func:`emit`."""

    def __init__(self) -> None:
        self.started = wall_time()
        self.load_before = _load()


def emit(result: dict[str, Any], args: argparse.Namespace, since: Measurement) -> None:
    """Print ``result`` as JSON and, with ``--json-out``, write it with its provenance."""
    out = {**result, "provenance": provenance(since.started, since.load_before)}
    text = json.dumps(out, indent=2)
    path = getattr(args, "json_out", None)
    if path:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text(text + "\n")
    sys.stdout.write(text + "\n")
