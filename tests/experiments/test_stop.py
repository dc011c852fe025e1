"""One Ctrl-C stops a whole experiment: the current run ends, no further run starts, and
the report of the runs done is written."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.services


def test_sigint_stops_the_experiment_and_writes_the_report(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "agent_runtime.app.cli.main", "experiment", "specialization",
         "--world", "none", "--time-scale", "0.05", "--repeats", "3", "--agents", "3",
         "--out", str(tmp_path), "--quiet"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 90
        events: list[Path] = []
        while not any('"type":"decision"' in p.read_text() for p in events):
            assert time.monotonic() < deadline, "the first run never decided"
            assert proc.poll() is None, proc.stdout.read() if proc.stdout else ""
            events = list(tmp_path.glob("*/runs/*/events.jsonl"))
            time.sleep(0.2)  # polling files another process writes
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, out
    (folder,) = list(tmp_path.iterdir())
    assert (folder / "report.md").is_file(), out
    assert [p.name for p in (folder / "runs").iterdir()] == ["normal-r0"], out
    assert "not started" in out
