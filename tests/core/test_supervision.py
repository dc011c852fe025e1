"""The embedded Redis and broker are supervised: when one dies the village goes on, and
after Redis comes back it holds every agent's state by value (goals, plan, perception with
the inventory, social) and every memory it held before the kill."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from agent_runtime.app.durability import compare, content_digest
from agent_runtime.app.village import Village, VillageOptions
from agent_runtime.clock import wall_time
from agent_runtime.config.loader import parse_config
from agent_runtime.state import keys
from agent_runtime.state.sections import load_section
from modules.memory.encoder import HashingEncoder
from tests.core.helpers import wait_until

pytestmark = pytest.mark.services

ROOT = Path(__file__).resolve().parents[2]
#: goals (with the inventory they were set at), plan, perception (position, inventory), social
#: (people seen and heard, stances)
SECTIONS = ("goals", "plan", "perception", "social")


@pytest.mark.parametrize("service", ["redis", "broker"])
async def test_a_killed_service_is_restarted_and_the_village_goes_on(
    tmp_path: Path, run_id: str, service: str
) -> None:
    cfg = parse_config(
        {
            "run": {"seed": 4, "time_scale": 0.2, "progress_every": 1},
            "world": {"kind": "none"},
            # a topic: every agent's social section holds its stance from the start (without a
            # world nobody is near, and social would stay unwritten)
            "topics": [str(ROOT / "experiments" / "tax" / "topics" / "tax.yaml")],
            "agent_templates": [{"count": 3, "random_personality": True}],
        },
        str(ROOT / "configs" / "supervised.yaml"),
    )
    opts = VillageOptions(run_dir=tmp_path / "run", run_id=run_id, embedder=HashingEncoder())
    async with Village(cfg, opts) as v:
        await wait_until(lambda: v.events.counts["decision"] >= 6, 30, "first decisions")
        victim = v.redis_server if service == "redis" else v.broker
        store = v.store
        assert victim is not None and victim.pid is not None
        assert v.redis_url is not None and store is not None
        names = store.agent_names
        await wait_until(
            lambda: all(store.agent(n).raw(s).updated_at > 0 for n in names for s in SECTIONS),
            60,
            "every agent's goals, plan, perception and social written",
        )
        await store.flush()
        before = await content_digest(v.redis_url, v.run_id, names)
        killed_at = wall_time()
        old_pid, port = victim.pid, victim.port
        os.kill(old_pid, signal.SIGKILL)
        await wait_until(lambda: victim.restarts == 1, 30, f"{service} restarted")
        assert victim.pid != old_pid and victim.port == port
        assert v.events.counts["service_restarted"] == 1
        decided = v.events.counts["decision"]
        await wait_until(
            lambda: v.events.counts["decision"] >= decided + 6, 30, "decisions after the restart"
        )
        assert all(not task.done() for agent in v.agents.values() for task in agent.tasks.values())
        await store.flush()
        after = await content_digest(v.redis_url, v.run_id, names)
        kept = compare(before, after, fault_at=killed_at, window_s=0.0)
        assert (kept["missing"], kept["changed"]) == (0, 0), kept
        assert kept["memories_before"] >= len(names), kept
        # Redis holds each agent's state as the village knows it (or a write the flush after
        # this read still carries), section by section, by value
        client = store.redis
        for name in names:
            stored = await client.hgetall(keys.state(v.run_id, name))
            live = store.agent(name)
            for section in SECTIONS:
                was = before.entries[(name, f"section:{section}")]
                assert was.at > 0, f"{name}'s {section} was never written before the kill"
                value = load_section(section, stored[section.encode()])
                now = live.raw(section)
                assert value == now or now.updated_at > value.updated_at, (name, section)
