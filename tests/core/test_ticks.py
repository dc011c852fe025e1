"""Timed wake-ups share one loop timer per tick (agent_runtime/ticks.py)."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable

from agent_runtime.agent import Agent
from agent_runtime.app.testing import agent_spec, local_services
from agent_runtime.body.null import NullBody
from agent_runtime.module import Schedule
from agent_runtime.ticks import TICK_S, Wakeups, round_up, wakeups
from tests.core.helpers import wait_until
from tests.core.test_scheduling import Ticker


def test_round_up_is_never_early_and_at_most_one_tick_late() -> None:
    for when in (0.0, 0.001, 0.005, 1234.5678, 99999.99999):
        r = round_up(when, TICK_S)
        assert when - 1e-9 <= r < when + TICK_S
        assert round_up(when, TICK_S) == r  # the same float: the same group


async def test_wakeups_due_in_one_tick_share_one_loop_timer() -> None:
    loop = asyncio.get_running_loop()
    w = Wakeups(loop)
    fired: list[tuple[int, float]] = []
    done = asyncio.Event()
    when = round_up(loop.time() + 0.02, TICK_S)
    def firing(i: int) -> Callable[[float], None]:
        return lambda at: fired.append((i, at))

    for i in range(50):
        w.at(when, firing(i))
    w.at(when + TICK_S, lambda _: done.set())
    assert w.timers == 2 and w.pending() == 51
    await asyncio.wait_for(done.wait(), 5)
    assert [i for i, _ in fired] == list(range(50))  # all of them, in the order registered
    assert all(t == when for _, t in fired)  # each told the due time it asked for
    assert loop.time() >= when  # never early
    assert w.pending() == 0


async def test_many_runners_wake_through_shared_ticks() -> None:
    """200 modules of one cadence: their timed steps take far fewer loop timers than steps
    (one per tick in which some are due), and none is lost."""
    async with local_services() as svc:
        tickers = [Ticker(Schedule(cadence=0.05)) for _ in range(200)]
        agents = [
            Agent(agent_spec(f"A{i}"), [t], NullBody(f"A{i}"), svc, random.Random(i))
            for i, t in enumerate(tickers)
        ]
        for a in agents:
            await a.__aenter__()
        try:
            before = wakeups().timers
            await wait_until(lambda: all(len(t.times) >= 6 for t in tickers), 20, "6 steps each")
            timers = wakeups().timers - before
            steps = sum(len(t.times) for t in tickers)
        finally:
            for a in agents:
                await a.__aexit__(None, None, None)
        # 200 runners stepping every 50 ms fall into at most 10 ticks of 5 ms per cadence
        assert 0 < timers < steps / 4, (timers, steps)
