"""End to end on the embedded server with real mineflayer bodies and the heuristic brain."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

from agent_runtime.app.village import Village, VillageOptions
from agent_runtime.clock import wall_time
from agent_runtime.config.loader import parse_config
from agent_runtime.config.models import DEFAULT_VERSION, HEARING_RADIUS
from agent_runtime.state.sections import Action, Conversation, Perception, Social
from modules.memory.encoder import HashingEncoder
from tests.core.helpers import wait_until, wait_until_async
from tests.jsonl import records
from tests.server.conftest import JsBot
from tests.versions import SWEEP_VERSIONS

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
@pytest.mark.parametrize("mc_version", SWEEP_VERSIONS)
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
    said = await _say(hugo, "Hello Ann!")
    await _explained(
        v,
        seen,
        said,
        lambda: any(e["type"] == "speech" and e.get("to") == "Hugo" for e in seen),
        "Ann answering Hugo",
    )
    answer = next(e["text"] for e in seen if e["type"] == "speech" and e.get("to") == "Hugo")
    await hugo.wait_event(
        "message", within=20, predicate=lambda e: answer in e["message"]
    )  # the answer reaches the human's client
    said = await _say(hugo, "Ann, could you give me bread?")
    await _explained(
        v,
        seen,
        said,
        lambda: any(
            e["type"] == "decision" and (e.get("skill") or {}).get("skill") == "give" for e in seen
        ),
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
    _said_and_did_agree(seen)
    # the human digs a block next to him and picks up its drop
    x, y, z = (math.floor(c) for c in (await hugo.call("position")).values())
    await v.world.admin.command(f"/setblock {x + 2} {y} {z} dirt")
    await hugo.call("wait_block", x=x + 2, y=y, z=z, name="dirt")
    got = await hugo.call("collect", block="dirt", count=1, maxDistance=8, within=60)
    assert got["inventory"] and any(i["name"] == "dirt" for i in got["inventory"]), got


def _said_and_did_agree(seen: list[dict[str, Any]]) -> None:
    """Say and do under one decision: each line in which Ann agrees to give carries the id
    of the decision whose give her body ran, and names that give's count, item and receiver."""
    gives = {
        e["decision"]: e["call"]["args"]
        for e in seen
        if e["type"] == "skill_started" and e["call"]["skill"] == "give"
    }
    agreed = [
        e for e in seen
        if e["type"] == "speech" and e.get("to") == "Hugo" and "here is" in e["text"]
    ]  # fmt: skip
    assert agreed, [e["text"] for e in seen if e["type"] == "speech"]
    for line in agreed:
        args = gives.get(line["decision"])
        assert args is not None, (line, gives)
        words = f"here is {args['count']} {str(args['item']).replace('_', ' ')}"
        assert args["player"] == "Hugo" and words in line["text"], (line, args)


#: a human who wants to be heard walks up to Ann when she is farther than this (blocks): her
#: body hears public chat within the hearing radius only, and her first step (before her goal)
#: walks her towards the forest
EARSHOT = HEARING_RADIUS / 2


async def _say(hugo: JsBot, message: str) -> dict[str, Any]:
    """Hugo says ``message`` near Ann, as a player who wants her to hear it would (walking
    up to her first when she is not near); what he saw when he said it, for diagnostics."""
    here, ann = await hugo.call("position"), await hugo.call("player_entity", name="Ann")
    walked = False
    if ann is not None and _distance(here, ann["position"]) > EARSHOT:
        a = ann["position"]
        here = await hugo.call("goto", x=a["x"], y=a["y"], z=a["z"], range=4, within=40)
        ann, walked = await hugo.call("player_entity", name="Ann"), True
    await hugo.call("chat", message=message)
    apart = _distance(here, ann["position"]) if ann is not None else None
    return {"message": message, "at": wall_time(), "apart": apart, "walked": walked}


def _distance(a: dict[str, float], b: dict[str, float]) -> float:
    return math.dist((a["x"], a["y"], a["z"]), (b["x"], b["y"], b["z"]))


async def _explained(
    v: Village, seen: list[dict[str, Any]], said: dict[str, Any], cond: Any, what: str
) -> None:
    """Wait 30 s for ``cond``; on a timeout, fail with what Ann's record and events show
    since Hugo said ``said`` (heard? when noted? answered? what ran?)."""
    try:
        await wait_until(cond, 30, what)
    except AssertionError as err:
        raise AssertionError(f"{err}\n{_since(v, seen, said)}") from None


def _since(v: Village, seen: list[dict[str, Any]], said: dict[str, Any]) -> str:
    """Ann's side of the exchange since Hugo's line, times in seconds after he said it."""
    t0 = said["at"]
    out = [f"Hugo said {said['message']!r} {said['apart']} blocks from Ann (walked: "
           f"{said['walked']}; hearing radius {HEARING_RADIUS})"]  # fmt: skip
    if v.store is not None:
        st = v.store.agent("Ann")
        conv, act = st.get("conversation", Conversation), st.get("action", Action)
        per = st.get("perception", Perception).observation
        for u in conv.lines[-6:]:
            noted = f" noted {u.noted_at - t0:+.2f}" if u.noted_at else ""
            out.append(f"  line {u.speaker}->{u.to}: {u.text!r} heard {u.at - t0:+.2f}{noted}")
        spoke = {k: round(t - t0, 2) for k, t in conv.spoke_to.items()}
        out.append(f"  spoke_to {spoke}")
        running = act.running.describe() if act.running else None
        out.append(f"  running {running} since {act.started_at - t0:+.2f}")
        out.append(f"  connected {per.connected}, bread {per.inventory.get('bread', 0)}, "
                   f"players {[(p.name, p.distance) for p in per.players]}")  # fmt: skip
    keep = ("decision", "skill_started", "skill_outcome", "skill_preempted", "speech",
            "decision_cancelled", "idle_ended", "module_error", "body_event")  # fmt: skip
    for e in seen:
        if e.get("agent") == "Ann" and e["type"] in keep and e["t"] >= t0 - 5:
            brief = {k: e[k] for k in ("kind", "intent", "reason", "text", "to", "success")
                     if e.get(k) not in (None, "")}  # fmt: skip
            if e.get("skill") or e.get("call"):
                brief["skill"] = (e.get("skill") or e.get("call") or {}).get("skill")
            out.append(f"  {e['t'] - t0:+7.2f} {e['type']} {brief}")
    return "\n".join(out)
