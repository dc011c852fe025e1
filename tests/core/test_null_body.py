"""The no-op body of ``world: none``: skills fail honestly, at once or at a skill's pace.

"At once" and "at a skill's pace" are checked by what the body waits for (its sleeps,
recorded), not by a wall clock on a busy machine.
"""

from __future__ import annotations

import asyncio

import pytest

from agent_runtime.app.cli.bench_runtime import _config
from agent_runtime.body.null import NullBody
from agent_runtime.world import SkillCall


@pytest.fixture
def sleeps(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """Every sleep the no-op body asks for (it then sleeps for no time)."""
    asked: list[float] = []
    real_sleep = asyncio.sleep

    async def record(seconds: float) -> None:
        asked.append(seconds)
        await real_sleep(0)

    monkeypatch.setattr(asyncio, "sleep", record)
    return asked


async def test_skills_fail_at_once_by_default(sleeps: list[float]) -> None:
    body = NullBody("Ann")
    out = await body.run_skill(SkillCall(skill="collect", args={"block": "log"}))
    assert not out.success and out.reason.startswith("no world attached")
    assert sleeps == []


async def test_skills_take_their_seconds_when_asked_and_chat_does_not(
    sleeps: list[float],
) -> None:
    body = NullBody("Ann", skill_seconds=0.2)
    out = await body.run_skill(SkillCall(skill="collect", args={"block": "log"}))
    assert not out.success
    assert len(sleeps) == 1 and 0.1 <= sleeps[0] <= 0.3, sleeps  # 0.5x-1.5x of 0.2 s
    said = await body.run_skill(SkillCall(skill="chat", args={"message": "hi"}))
    assert said.success and len(sleeps) == 1  # chat waited for nothing


def test_the_bench_config_carries_the_skill_seconds() -> None:
    assert _config(3, 300.0, False, 7.5).world.null_skill_seconds == 7.5
    assert _config(3, 300.0, False).world.null_skill_seconds == 0.0
