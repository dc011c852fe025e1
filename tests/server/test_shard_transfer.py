"""World shards on two real embedded servers: an agent walks from one world to the other
(its body leaves one server and joins the other) and keeps its identity and memories."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent_runtime.app.shards import ShardedBody
from agent_runtime.app.village import Village, VillageOptions
from agent_runtime.config.loader import parse_config
from agent_runtime.state.sections import Identity, Perception
from agent_runtime.world import SkillCall
from modules.memory.encoder import HashingEncoder
from modules.memory.persistence import stream_prefix
from tests.core.helpers import wait_until, wait_until_async

pytestmark = [pytest.mark.minecraft, pytest.mark.services, pytest.mark.slow]

BORDER_X = 24


def two_shards() -> Any:
    region = {"z_min": -200, "z_max": 200}
    return parse_config(
        {
            "run": {"seed": 3, "progress_every": 2, "embedder": "hashing"},
            "world": {
                "kind": "embedded",
                "shards": [
                    {
                        "name": "west",
                        "region": {"x_min": -200, "x_max": BORDER_X, **region},
                        "layout": {"centre_x": 0, "centre_z": 0},
                        "max_bots": 2,
                    },
                    {
                        "name": "east",
                        "region": {"x_min": BORDER_X, "x_max": 200, **region},
                        "layout": {"centre_x": 100, "centre_z": 0},
                        "max_bots": 2,
                    },
                ],
            },
            # no controller: only this test moves the body; perception and memory run
            "modules": {
                "preset": "baseline",
                "overrides": {
                    "cognitive_controller": {"enabled": False},
                    "skill_execution": {"enabled": False},
                },
            },
            "agents": [
                {
                    "name": "Ann",
                    "traits": ["You are curious."],
                    "spawn_location": {"x": 0, "y": 70, "z": 0},
                }
            ],
        }
    )


async def test_an_agent_walks_into_the_other_world_and_keeps_its_memories(
    tmp_path: Path, run_id: str
) -> None:
    opts = VillageOptions(run_dir=tmp_path / "run", run_id=run_id, embedder=HashingEncoder())
    async with Village(two_shards(), opts) as v:
        assert v.world is not None and v.world.router is not None and v.services is not None
        west, east = v.world.router.shards
        assert west.world.port != east.world.port  # two servers, one loopback port each
        assert west.world.admin_url != east.world.admin_url  # each with its own token
        body = v.bodies["Ann"]
        assert isinstance(body, ShardedBody) and body.shard is west
        redis = v.services.redis
        assert redis is not None
        order = f"{stream_prefix(run_id, 'Ann')}order"

        async def memories() -> int:
            return int(await redis.llen(order))

        async def remembered() -> bool:
            return await memories() > 0

        await wait_until_async(remembered, 30, "Ann's first memories")
        before = await memories()
        identity = v.store.agent("Ann").get("identity", Identity) if v.store else None
        assert identity is not None and identity.name == "Ann"

        out = await body.run_skill(
            SkillCall(skill="go_to", args={"x": BORDER_X + 10, "z": -10, "range": 2})
        )
        assert out.success, out.reason
        assert body.shard is east and body.transfers == 1
        assert out.detail.get("shard") == "east"
        on_east = [p["username"] for p in await east.world.admin.players()]
        on_west = [p["username"] for p in await west.world.admin.players()]
        assert "Ann" in on_east and "Ann" not in on_west
        x, _, z = await east.world.admin.position("Ann")
        assert abs(x - (BORDER_X + 10)) <= 3 and abs(z + 10) <= 3
        assert v.world.router.counts() == {"west": 0, "east": 1}

        # the same agent, the same state: its memory goes on growing from where it was
        def east_seen() -> bool:
            assert v.store is not None
            pos = v.store.agent("Ann").get("perception", Perception).observation.position
            return pos is not None and pos.x > BORDER_X

        await wait_until(east_seen, 30, "Ann perceiving the east world")
        after = await memories()
        assert after >= before
        assert v.store is not None
        assert v.store.agent("Ann").get("identity", Identity) == identity
        assert v.agents["Ann"].body is body
    events = [json.loads(x) for x in (tmp_path / "run" / "events.jsonl").read_text().splitlines()]
    moves = [e for e in events if e["type"] == "shard_transfer"]
    assert len(moves) == 1 and moves[0]["agent"] == "Ann"
    assert (moves[0]["from"], moves[0]["to"]) == ("west", "east")
    started = [e.get("shard") for e in events if e["type"] == "world_started"]
    assert started == ["west", "east"]
