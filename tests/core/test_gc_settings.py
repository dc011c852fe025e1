"""A long-running village process freezes what survived start-up, freezes the survivors of
each young collection (the older generations stay empty), and reclaims cyclic garbage of
frozen objects in a periodic full collection (in a child process: freezing is process-wide)."""

from __future__ import annotations

import subprocess
import sys

CODE = """
import asyncio, gc
from agent_runtime.gc_settings import STATS, YOUNG_THRESHOLD, restore_defaults, settle_after_startup
class Cycle:
    pass
frozen = settle_after_startup(full_every_s=None)
assert frozen > 1000, frozen
assert gc.get_threshold()[0] == YOUNG_THRESHOLD
a, b = Cycle(), Cycle()
a.other, b.other = b, a  # garbage made after start-up is still collected
del a, b
assert gc.collect() >= 2
keep = [Cycle() for _ in range(50)]
before = gc.get_freeze_count()
gc.collect(0)  # a young collection: its survivors are frozen, not promoted
assert gc.get_freeze_count() >= before + 50, (before, gc.get_freeze_count())
assert gc.get_count()[1:] == (0, 0) and len(gc.get_objects(1)) == 0
assert STATS.young.count >= 1

async def main():
    settle_after_startup(full_every_s=0.05)
    x, y = Cycle(), Cycle()
    x.other, y.other = y, x
    gc.collect(0)  # frozen while alive ...
    del x, y  # ... then garbage: only the periodic full collection can reclaim it
    async with asyncio.timeout(10):
        while STATS.full.count == 0:
            await asyncio.sleep(0.01)
    assert STATS.full_freed >= 2, STATS

asyncio.run(main())
restore_defaults()
assert gc.get_freeze_count() == 0 and gc.get_threshold()[0] == 700
print("ok")
"""


def test_settle_after_startup_freezes_survivors_and_still_collects_cycles() -> None:
    out = subprocess.run(
        [sys.executable, "-c", CODE], capture_output=True, text=True, timeout=60, check=False
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"
