"""Stopping a child: the polite way first (end of its input) when asked, then the signals."""

from __future__ import annotations

import signal

from agent_runtime.services.process import ChildProcess


async def test_a_child_that_ends_with_its_input_exits_by_itself() -> None:
    """``cat`` ends when its stdin closes: with ``eof_grace`` it exits 0, no signal sent."""
    async with ChildProcess("cat", ["cat"], pipe_stdin=True) as child:
        assert child.running()
        assert await child.stop(eof_grace=30) == 0


async def test_a_child_that_ignores_its_input_is_signalled_after_the_grace() -> None:
    """``sleep`` never reads its stdin: after the grace it gets SIGTERM as without one."""
    async with ChildProcess("sleeper", ["sleep", "30"], pipe_stdin=True) as child:
        assert await child.stop(eof_grace=0.2) == -signal.SIGTERM
