"""One Ctrl-C stops a whole experiment: the current run ends, no further run starts, and
the report of the runs done is written."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.experiments.interrupt import interrupt_when_logged

pytestmark = pytest.mark.services


def test_sigint_stops_the_experiment_and_writes_the_report(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "agent_runtime.app.cli.main", "experiment", "specialization",
         "--world", "none", "--time-scale", "0.05", "--repeats", "3", "--agents", "3",
         "--out", str(tmp_path), "--quiet"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    out = interrupt_when_logged(proc, tmp_path, '"type":"decision"', "the first run never decided")
    assert proc.returncode == 0, out
    (folder,) = list(tmp_path.iterdir())
    assert (folder / "report.md").is_file(), out
    assert [p.name for p in (folder / "runs").iterdir()] == ["normal-r0"], out
    assert "not started" in out
