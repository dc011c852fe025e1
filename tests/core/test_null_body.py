"""The no-op body of ``world: none``: skills fail honestly, at once or at a skill's pace."""

from __future__ import annotations

import time

from agent_runtime.app.cli.bench_runtime import _config
from agent_runtime.body.null import NullBody
from agent_runtime.world import SkillCall


async def test_skills_fail_at_once_by_default() -> None:
    body = NullBody("Ann")
    t0 = time.monotonic()
    out = await body.run_skill(SkillCall(skill="collect", args={"block": "log"}))
    assert not out.success and out.reason.startswith("no world attached")
    assert time.monotonic() - t0 < 0.05


async def test_skills_take_their_seconds_when_asked_and_chat_does_not() -> None:
    body = NullBody("Ann", skill_seconds=0.2)
    t0 = time.monotonic()
    out = await body.run_skill(SkillCall(skill="collect", args={"block": "log"}))
    took = time.monotonic() - t0
    assert not out.success
    assert 0.1 <= took < 1.0, took  # 0.5x-1.5x of 0.2 s, plus scheduling
    t0 = time.monotonic()
    said = await body.run_skill(SkillCall(skill="chat", args={"message": "hi"}))
    assert said.success and time.monotonic() - t0 < 0.05


def test_the_bench_config_carries_the_skill_seconds() -> None:
    assert _config(3, 300.0, False, 7.5).world.null_skill_seconds == 7.5
    assert _config(3, 300.0, False).world.null_skill_seconds == 0.0
