"""Ctrl-C for an experiment run in a child interpreter, once its event log shows a marker."""

from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path


def interrupt_when_logged(proc: subprocess.Popen[str], root: Path, marker: str, what: str) -> str:
    """Wait (90 s at most) until a run's ``events.jsonl`` below ``root`` holds ``marker``,
    send SIGINT and return the experiment's output once it exits (killed if it does not)."""
    try:
        deadline = time.monotonic() + 90
        events: list[Path] = []
        while not any(marker in p.read_text() for p in events):
            assert time.monotonic() < deadline, what
            assert proc.poll() is None, proc.stdout.read() if proc.stdout else ""
            events = list(root.glob("*/runs/*/events.jsonl"))
            time.sleep(0.2)  # polling files another process writes
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return out
