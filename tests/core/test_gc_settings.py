"""A long-running village process freezes what survived start-up and collects less often
(in a child process: freezing is process-wide)."""

from __future__ import annotations

import subprocess
import sys

CODE = """
import gc
from agent_runtime.gc_settings import YOUNG_THRESHOLD, settle_after_startup
class Cycle:
    pass
frozen = settle_after_startup()
assert frozen > 1000, frozen
assert gc.get_threshold()[0] == YOUNG_THRESHOLD
a, b = Cycle(), Cycle()
a.other, b.other = b, a  # garbage made after start-up is still collected
del a, b
assert gc.collect() >= 2
print("ok")
"""


def test_settle_after_startup_freezes_and_still_collects_new_cycles() -> None:
    out = subprocess.run(
        [sys.executable, "-c", CODE], capture_output=True, text=True, timeout=60, check=False
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"
