"""The embedded Redis and broker are supervised: when one dies the village goes on."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from agent_runtime.app.village import Village, VillageOptions
from agent_runtime.config.loader import parse_config
from modules.memory.encoder import HashingEncoder
from tests.core.helpers import wait_until

pytestmark = pytest.mark.services


@pytest.mark.parametrize("service", ["redis", "broker"])
async def test_a_killed_service_is_restarted_and_the_village_goes_on(
    tmp_path: Path, run_id: str, service: str
) -> None:
    cfg = parse_config(
        {
            "run": {"seed": 4, "time_scale": 0.2, "progress_every": 1},
            "world": {"kind": "none"},
            "agent_templates": [{"count": 3, "random_personality": True}],
        }
    )
    opts = VillageOptions(run_dir=tmp_path / "run", run_id=run_id, embedder=HashingEncoder())
    async with Village(cfg, opts) as v:
        await wait_until(lambda: v.events.counts["decision"] >= 6, 30, "first decisions")
        victim = v.redis_server if service == "redis" else v.broker
        assert victim is not None and victim.pid is not None
        old_pid, port = victim.pid, victim.port
        os.kill(old_pid, signal.SIGKILL)
        await wait_until(lambda: victim.restarts == 1, 30, f"{service} restarted")
        assert victim.pid != old_pid and victim.port == port
        assert v.events.counts["service_restarted"] == 1
        before = v.events.counts["decision"]
        await wait_until(
            lambda: v.events.counts["decision"] >= before + 6, 30, "decisions after the restart"
        )
        assert all(not task.done() for agent in v.agents.values() for task in agent.tasks.values())
