"""Village processes run on uvloop when it is installed, on asyncio's loop when told so."""

from __future__ import annotations

import asyncio

import pytest

from agent_runtime import event_loop


async def _loop_module() -> str:
    await asyncio.sleep(0)
    return type(asyncio.get_running_loop()).__module__


def test_run_uses_uvloop_by_default_and_asyncio_when_told(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(event_loop.LOOP_ENV, raising=False)
    assert event_loop.loop_name() == "uvloop"  # a dependency of the package
    assert event_loop.run(_loop_module()).startswith("uvloop")
    monkeypatch.setenv(event_loop.LOOP_ENV, "asyncio")
    assert event_loop.loop_name() == "asyncio"
    assert event_loop.run(_loop_module()).startswith("asyncio")
