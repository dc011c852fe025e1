"""`piano faults` at small scale (no Minecraft): every fault recovers, nothing is orphaned,
and every state section and memory record read before the Redis kill and the SIGKILL of the
run is found after the recovery, by content."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent_runtime.app.faults import run_suite

pytestmark = [pytest.mark.services, pytest.mark.slow]

RESUME_S = 15.0


def assert_kept_by_content(by_name: dict[str, Any]) -> None:
    """Nothing stored before the Redis kill or the run's SIGKILL is missing or changed after."""
    for name in ("kill_redis", "sigkill_run"):
        content = by_name[name]["content"]
        assert content["records_before"] > 0 and content["memories_before"] > 0, content
        assert (content["missing"], content["changed"]) == (0, 0), (name, content)
        assert by_name[name]["data_path"]["content_kept"] is True
    promise = by_name["kill_redis"]["promise"]
    assert promise["appendfsync"] == "everysec" and promise["write_lag_max_ms"] > 0


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
    assert by_name["kill_redis"]["data_path"] == {"content_kept": True, "writes_resumed": True}
    assert by_name["kill_broker"]["data_path"] == {"broadcast_heard": True}
    for fault in report["faults"]:
        assert fault["recovered"], fault
        assert fault["seconds_to_recover"] is not None and fault["seconds_to_recover"] < 60
    assert_kept_by_content(by_name)
    assert report["orphans"] == []
