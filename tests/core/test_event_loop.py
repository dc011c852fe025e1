"""Village processes run on asyncio's loop, on uvloop when asked for."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from agent_runtime import event_loop


async def _loop_module() -> str:
    await asyncio.sleep(0)
    return type(asyncio.get_running_loop()).__module__


def test_run_uses_asyncio_by_default_and_uvloop_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(event_loop.LOOP_ENV, raising=False)
    assert event_loop.loop_name() == "asyncio"
    assert event_loop.run(_loop_module()).startswith("asyncio")
    monkeypatch.setenv(event_loop.LOOP_ENV, "uvloop")
    assert event_loop.loop_name() == "uvloop"  # a dependency of the package
    assert event_loop.run(_loop_module()).startswith("uvloop")


def test_children_start_on_uvloop_too(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """uvloop has no ``process_group``: a child still gets its own group (a new session)."""
    from agent_runtime.services.process import ChildProcess

    monkeypatch.setenv(event_loop.LOOP_ENV, "uvloop")

    async def start() -> tuple[int, int]:
        child = ChildProcess("sleeper", ["sleep", "30"], log_path=tmp_path / "sleep.log")
        async with child:
            assert child.pid is not None
            return child.pid, os.getpgid(child.pid)

    pid, group = event_loop.run(start())
    assert group == pid and group != os.getpgid(0)


def test_per_loop_holds_one_value_per_loop() -> None:
    """Asked twice in one loop: the same value, made once with that loop; another loop gets
    its own."""
    made: list[asyncio.AbstractEventLoop] = []

    def make(loop: asyncio.AbstractEventLoop) -> list[asyncio.AbstractEventLoop]:
        made.append(loop)
        return [loop]

    per_loop = event_loop.PerLoop(make)

    async def twice() -> tuple[object, object, asyncio.AbstractEventLoop]:
        return per_loop.get(), per_loop.get(), asyncio.get_running_loop()

    a1, a2, loop_a = asyncio.run(twice())
    b1, b2, loop_b = asyncio.run(twice())
    assert a1 is a2 and a1 == [loop_a]
    assert b1 is b2 and b1 == [loop_b] and b1 is not a1
    assert made == [loop_a, loop_b]
