"""`piano faults --world embedded`: every fault on the real world, recovery judged by the
data path (bodies back in the world with their inventories, a world skill after the kill,
state and broadcasts reaching fresh clients), nothing orphaned, every state section and
memory record kept through the Redis kill and the run's SIGKILL, by content."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_runtime.app.faults import run_suite
from tests.core.test_faults import RESUME_S, assert_kept_by_content

pytestmark = [pytest.mark.services, pytest.mark.minecraft, pytest.mark.slow]


@pytest.mark.timeout(900)
async def test_fault_suite_on_the_embedded_world(tmp_path: Path) -> None:
    report = await run_suite(
        tmp_path / "suite", world="embedded", window=90, llm=False, resume_s=RESUME_S
    )
    by_name = {f["fault"]: f for f in report["faults"]}
    assert set(by_name) == {"kill_redis", "kill_broker", "kill_minecraft", "kick_bot", "sigkill_run"}
    assert by_name["kill_minecraft"]["data_path"] == {
        "bodies_rejoined": True, "inventories_kept": True, "skill_succeeded": True,
    }, by_name["kill_minecraft"]  # fmt: skip
    assert by_name["kill_redis"]["data_path"] == {"content_kept": True, "writes_resumed": True}
    assert by_name["kill_broker"]["data_path"] == {"broadcast_heard": True}
    for fault in report["faults"]:
        assert fault["recovered"], fault
    assert_kept_by_content(by_name)
    assert report["orphans"] == []
