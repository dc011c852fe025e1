"""End to end on the embedded server with real mineflayer bodies and the heuristic brain."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

from agent_runtime.app.village import Village, VillageOptions
from agent_runtime.config.loader import parse_config
from agent_runtime.config.models import DEFAULT_VERSION, SUPPORTED_VERSIONS
from agent_runtime.state.sections import Perception, Social
from modules.memory.encoder import HashingEncoder
from tests.core.helpers import wait_until, wait_until_async
from tests.jsonl import records
from tests.server.conftest import JsBot

pytestmark = [pytest.mark.minecraft, pytest.mark.services]


def village(agents: list[dict[str, Any]], mc_version: str = DEFAULT_VERSION, **modules: Any) -> Any:
    return parse_config(
        {
            "run": {"seed": 5, "time_scale": 1.0, "progress_every": 2},
            "world": {"kind": "embedded", "port": 0, "version": mc_version},
            "modules": {"preset": "full", "overrides": modules},
            "agents": agents,
        }
    )


def events_of(run: Path) -> list[dict[str, Any]]:
    return records(run / "events.jsonl")


async def test_two_agents_meet_talk_and_one_gathers_wood(tmp_path: Path, run_id: str) -> None:
    cfg = village(
        [
            {"name": "Ann", "traits": ["You are outgoing and love starting conversations."]},
            {"name": "Bob", "traits": ["You are cheerful and encourage others."]},
        ],
        goal_generation={"options": {"kinds": ["gather_wood"]}},
    )
    seen: list[dict[str, Any]] = []
    opts = VillageOptions(run_dir=tmp_path / "run", run_id=run_id, embedder=HashingEncoder())
    async with Village(cfg, opts) as v:
        v.events.add_listener(seen.append)

        def gathered() -> bool:
            return any(
                e["type"] == "skill_outcome"
                and e["call"]["skill"] == "collect"
                and e["success"]
                and any(k.endswith("_log") and n > 0 for k, n in e["delta"].items())
                for e in seen
            )

        await wait_until(gathered, 50, "a successful log collection")
        await wait_until(lambda: any(e["type"] == "speech" for e in seen), 30, "someone speaking")
    ev = events_of(tmp_path / "run")
    collector = next(
        e["agent"]
        for e in ev
        if e["type"] == "skill_outcome" and e["success"] and e["call"]["skill"] == "collect"
    )
    goals = [e for e in ev if e["type"] == "goal" and e["agent"] == collector]
    assert goals and goals[0]["kind"] == "gather_wood"  # it gathers as its goal says
    started = [e for e in ev if e["type"] == "world_started"]
    assert started and started[0]["places"]["forest"]
    heard = [e for e in ev if e["type"] == "speech"]
    assert all(e["brain"] == "heuristic" for e in heard)


@pytest.mark.timeout(180)
@pytest.mark.parametrize("mc_version", SUPPORTED_VERSIONS)
async def test_a_human_asks_an_agent_for_bread_and_gets_it(
    mc_version: str, tmp_path: Path, run_id: str
) -> None:
    """A human joins the embedded village with a plain mineflayer client at each supported
    version (the closest to a vanilla client here: nothing of our bodies): the agent is a
    player it sees, the agent hears its chat and its answer reaches the human's client, the
    bread it asks for arrives in its inventory, and it digs a block and picks up the drop."""
    cfg = village(
        [
            {
                "name": "Ann",
                "traits": ["You are generous and share what you have."],
                "inventory": {"bread": 3},
            }
        ],
        mc_version,
        goal_generation={"options": {"kinds": ["guard"]}},
    )
    opts = VillageOptions(run_dir=tmp_path / "run", run_id=run_id, embedder=HashingEncoder())
    seen: list[dict[str, Any]] = []
    async with Village(cfg, opts) as v:
        v.events.add_listener(seen.append)
        assert v.world is not None and v.world.port and v.world.admin is not None
        hugo = JsBot(v.world.port, "Hugo", version=mc_version)
        try:
            await hugo.start(within=30)
            await _served(v, hugo, seen)
        finally:
            await hugo.close()
        # Ann remembers the human and has a sentiment towards him
        people = v.store.agent("Ann").get("social", Social).people if v.store else {}
        assert "Hugo" in people


async def _served(v: Village, hugo: JsBot, seen: list[dict[str, Any]]) -> None:
    assert v.world is not None and v.world.admin is not None

    async def sees_ann() -> bool:
        return await hugo.call("player_entity", name="Ann") is not None

    await wait_until_async(sees_ann, 30, "Hugo's client showing Ann as a player")
    assert (await hugo.call("player_entity", name="Ann"))["name"] == "player"
    await wait_until(
        lambda: bool(
            v.store
            and "Hugo"
            in [
                p.name
                for p in v.store.agent("Ann").get("perception", Perception).observation.players
            ]
        ),
        30,
        "Ann seeing Hugo",
    )
    await hugo.call("chat", message="Hello Ann!")
    await wait_until(
        lambda: any(e["type"] == "speech" and e.get("to") == "Hugo" for e in seen),
        30,
        "Ann answering Hugo",
    )
    answer = next(e["text"] for e in seen if e["type"] == "speech" and e.get("to") == "Hugo")
    await hugo.wait_event(
        "message", within=20, predicate=lambda e: answer in e["message"]
    )  # the answer reaches the human's client
    await hugo.call("chat", message="Ann, could you give me bread?")
    await wait_until(
        lambda: any(
            e["type"] == "decision" and (e.get("skill") or {}).get("skill") == "give" for e in seen
        ),
        30,
        "Ann deciding to give",
    )
    await wait_until(
        lambda: any(e["type"] == "speech" and "bread" in e["text"] for e in seen),
        20,
        "Ann saying yes",
    )
    # the hand-over: the bread reaches the human's inventory, the give gets its receipt
    assert await hugo.call("wait_count", item="bread", atLeast=1, ms=40000, within=45) >= 1

    def gave() -> dict[str, Any] | None:
        for e in seen:
            if e["type"] == "skill_outcome" and e["call"]["skill"] == "give":
                return e
        return None

    await wait_until(lambda: gave() is not None, 20, "Ann's give to finish")
    outcome = gave()
    assert outcome is not None and outcome["success"], outcome
    assert (outcome.get("detail") or {}).get("received") is True, outcome
    # the human digs a block next to him and picks up its drop
    x, y, z = (math.floor(c) for c in (await hugo.call("position")).values())
    await v.world.admin.command(f"/setblock {x + 2} {y} {z} dirt")
    await hugo.call("wait_block", x=x + 2, y=y, z=z, name="dirt")
    got = await hugo.call("collect", block="dirt", count=1, maxDistance=8, within=60)
    assert got["inventory"] and any(i["name"] == "dirt" for i in got["inventory"]), got
