"""`piano faults` at small scale (no Minecraft): every fault recovers, nothing is orphaned,
no memory is lost across SIGKILL + resume."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_runtime.app.faults import run_suite

pytestmark = [pytest.mark.services, pytest.mark.slow]

RESUME_S = 15.0


@pytest.mark.timeout(400)
async def test_fault_suite_without_a_world(tmp_path: Path) -> None:
    # the resumed run lasts RESUME_S, not half the window: its first decision came 3 s after
    # the start in the committed embedded report (agent_runtime/app/results/faults-embedded-*)
    report = await run_suite(
        tmp_path / "suite", world="none", window=60, fault_s=4, resume_s=RESUME_S
    )
    by_name = {f["fault"]: f for f in report["faults"]}
    assert set(by_name) == {
        "kill_redis", "kill_broker", "llm_http_429", "llm_http_500", "llm_timeout",
        "llm_garbage", "sigkill_run",
    }  # fmt: skip
    reasons = by_name["llm_garbage"]["fallback_reasons"]
    assert reasons.get("LLMInvalidOutput", 0) > 0 and reasons.get("LLMRateLimited", 0) > 0
    # recovery means the data path came back, checked from outside the village's process
    assert by_name["kill_redis"]["data_path"] == {"state_written": True, "memories_written": True}
    assert by_name["kill_broker"]["data_path"] == {"broadcast_heard": True}
    for fault in report["faults"]:
        assert fault["recovered"], fault
        assert fault["seconds_to_recover"] is not None and fault["seconds_to_recover"] < 60
    assert by_name["sigkill_run"]["memories_lost"] == 0
    assert by_name["sigkill_run"]["memories_after"] >= by_name["sigkill_run"]["memories_before"]
    assert report["orphans"] == []
