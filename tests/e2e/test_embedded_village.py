"""End to end on the embedded server with real mineflayer bodies and the heuristic brain."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent_runtime.app.village import Village, VillageOptions
from agent_runtime.config.loader import parse_config
from agent_runtime.interfaces import BotSpec
from agent_runtime.state.sections import Perception, Social
from agent_runtime.world import SkillCall
from modules.memory.encoder import HashingEncoder
from tests.bodies.conftest import next_event
from tests.core.helpers import wait_until
from tests.jsonl import records

pytestmark = [pytest.mark.minecraft, pytest.mark.services]


def village(agents: list[dict[str, Any]], **modules: Any) -> Any:
    return parse_config(
        {
            "run": {"seed": 5, "time_scale": 1.0, "progress_every": 2},
            "world": {"kind": "embedded", "port": 0},
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


async def test_a_human_asks_an_agent_for_bread_and_gets_it(tmp_path: Path, run_id: str) -> None:
    from bots.transport import JSPyBridgeTransport

    cfg = village(
        [
            {
                "name": "Ann",
                "traits": ["You are generous and share what you have."],
                "inventory": {"bread": 3},
            }
        ],
        goal_generation={"options": {"kinds": ["guard"]}},
    )
    opts = VillageOptions(run_dir=tmp_path / "run", run_id=run_id, embedder=HashingEncoder())
    seen: list[dict[str, Any]] = []
    async with Village(cfg, opts) as v:
        v.events.add_listener(seen.append)
        assert v.world is not None and v.world.port
        async with JSPyBridgeTransport() as human_side:
            hugo = await human_side.connect(BotSpec(name="Hugo", port=v.world.port))
            await wait_until(
                lambda: bool(
                    v.store
                    and "Hugo"
                    in [
                        p.name
                        for p in v.store.agent("Ann")
                        .get("perception", Perception)
                        .observation.players
                    ]
                ),
                30,
                "Ann seeing Hugo",
            )
            out = await hugo.run_skill(SkillCall(skill="chat", args={"message": "Hello Ann!"}))
            assert out.success
            await wait_until(
                lambda: any(e["type"] == "speech" and e.get("to") == "Hugo" for e in seen),
                30,
                "Ann answering Hugo",
            )
            await hugo.run_skill(
                SkillCall(skill="chat", args={"message": "Ann, could you give me bread?"})
            )
            await wait_until(
                lambda: any(
                    e["type"] == "decision" and (e.get("skill") or {}).get("skill") == "give"
                    for e in seen
                ),
                30,
                "Ann deciding to give",
            )
            await wait_until(
                lambda: any(e["type"] == "speech" and "bread" in e["text"] for e in seen),
                20,
                "Ann saying yes",
            )

            def gave() -> dict[str, Any] | None:
                for e in seen:
                    if e["type"] == "skill_outcome" and e["call"]["skill"] == "give":
                        return e
                return None

            # the hand-over: Hugo's body reports the pickup (an event), the give its receipt
            picked = await next_event(hugo, "item_picked_up", within=40)
            assert picked.data["item"] == "bread", picked
            assert (await hugo.observe()).inventory.get("bread", 0) >= 1
            await wait_until(lambda: gave() is not None, 20, "Ann's give to finish")
            outcome = gave()
            assert outcome is not None and outcome["success"], outcome
            assert (outcome.get("detail") or {}).get("received") is True, outcome
            # Ann remembers the human and has a sentiment towards him
            people = v.store.agent("Ann").get("social", Social).people if v.store else {}
            assert "Hugo" in people
