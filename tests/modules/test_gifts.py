"""The gift policy (modules/heuristics/gifts.py): relationship tiers from the agent's own
sentiment (a stranger is neutral), per-player gap and hourly caps from its own gift log, never
more than a share of what it holds, keep what its goal uses; the YAML ``gifts:`` section; and
the bound that clamps or refuses any give decision (an LLM's included)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from agent_runtime.app.testing import local_services, module_context
from agent_runtime.body.recording import RecordingBody
from agent_runtime.bottleneck import BottleneckView
from agent_runtime.bus import topics
from agent_runtime.config.errors import ConfigError
from agent_runtime.config.loader import load_config, parse_config
from agent_runtime.config.models import GiftSettings, GiftTier
from agent_runtime.module import Schedule
from agent_runtime.state.sections import (
    Action,
    ActionLogEntry,
    Conversation,
    Decision,
    Goals,
    Identity,
    IntentKind,
    Perception,
    PersonView,
    Social,
    Utterance,
    UtteranceGoal,
    UtteranceKind,
)
from agent_runtime.world import Observation, SkillCall, SkillOutcome
from modules.controller.decisions import ControllerOut
from modules.heuristics.controller import decide
from modules.heuristics.gifts import allowance, bound, goal_items, tier_cap
from modules.skill_execution import SkillExecution
from tests.modules.helpers import NOW, bview

CONFIGS = Path(__file__).resolve().parents[2] / "configs"


def gave(to: str, count: int, ago: float, item: str = "bread") -> ActionLogEntry:
    call = SkillCall(skill="give", args={"player": to, "item": item, "count": count})
    return ActionLogEntry(
        decision_id="d",
        call=call,
        outcome=SkillOutcome(skill="give", success=True, ended_at=NOW - ago + 1),
        started_at=NOW - ago,
    )


def view(
    inventory: dict[str, int],
    *,
    people: dict[str, float] | None = None,
    log: tuple[ActionLogEntry, ...] = (),
    kind: str = "",
    gifts: GiftSettings | None = None,
) -> BottleneckView:
    return bview(
        identity=Identity(name="Ann", gifts=gifts or GiftSettings()),
        perception=Perception(observation=Observation(inventory=inventory)),
        social=Social(
            people={
                n: PersonView(name=n, sentiment=s, interactions=10)
                for n, s in (people or {}).items()
            }
        ),
        action=Action(gifts=log),
        goals=Goals(current="work", kind=kind),
    )


def test_defaults_are_ordered_tiers_and_a_stranger_is_neutral() -> None:
    g = GiftSettings()
    assert [t.min_sentiment for t in g.tiers] == [8.0, 6.5, 5.0]
    assert (tier_cap(g, 9), tier_cap(g, 7), tier_cap(g, 5), tier_cap(g, 4.9)) == (8, 4, 1, 0)
    assert allowance(view({"bread": 20}), "Mallory", "bread", 64).count == 1  # stranger
    assert allowance(view({"bread": 20}, people={"Bob": 7}), "Bob", "bread", 64).count == 4
    assert allowance(view({"bread": 20}, people={"Bob": 9}), "Bob", "bread", 3).count == 3
    low = allowance(view({"bread": 20}, people={"Bob": 3}), "Bob", "bread", 1)
    assert low.count == 0 and "trust" in low.reason


def test_never_more_than_a_share_of_what_it_holds() -> None:
    friend = {"Bob": 9.0}
    assert allowance(view({"diamond": 64}, people=friend), "Bob", "diamond", 64).count == 8
    assert allowance(view({"bread": 3}, people=friend), "Bob", "bread", 3).count == 1
    assert allowance(view({"bread": 1}, people=friend), "Bob", "bread", 1).count == 0
    assert allowance(view({}, people=friend), "Bob", "bread", 1).count == 0


def test_keeps_what_its_current_goal_uses() -> None:
    assert "oak_log" in goal_items(view({"oak_log": 6}, kind="gather_wood"))
    friend = {"Bob": 9.0}
    few = allowance(view({"oak_log": 6}, people=friend, kind="gather_wood"), "Bob", "oak_log", 2)
    assert few.count == 0 and "goal" in few.reason
    # not used by its goal: the share rule alone
    assert allowance(view({"oak_log": 6}, people=friend, kind="farm"), "Bob", "oak_log", 2).count
    many = allowance(view({"oak_log": 11}, people=friend, kind="gather_wood"), "Bob", "oak_log", 8)
    assert many.count == 3  # 11 - goal_reserve 8


def test_per_player_gap_and_hourly_caps_from_its_own_gift_log() -> None:
    friend = {"Bob": 9.0, "Cleo": 9.0}
    recent = allowance(
        view({"bread": 40}, people=friend, log=(gave("Bob", 1, 30),)), "Bob", "bread"
    )
    assert recent.count == 0 and "moment ago" in recent.reason
    three = tuple(gave("Bob", 1, ago) for ago in (3000, 2000, 1000))
    assert allowance(view({"bread": 40}, people=friend, log=three), "Bob", "bread").count == 0
    assert allowance(view({"bread": 40}, people=friend, log=three), "Cleo", "bread").count == 1
    items = (gave("Bob", 6, 2000),)
    assert allowance(view({"bread": 40}, people=friend, log=items), "Bob", "bread", 8).count == 2
    old = tuple(gave("Bob", 8, 3700 + i) for i in range(5))  # more than an hour ago
    assert allowance(view({"bread": 40}, people=friend, log=old), "Bob", "bread", 8).count == 8
    everyone = tuple(gave(f"P{i}", 8, 400 + 200 * i) for i in range(4))  # 32 items this hour
    assert allowance(view({"bread": 40}, people=friend, log=everyone), "Bob", "bread").count == 0


def test_the_controller_heuristic_gives_within_the_policy() -> None:
    said = Utterance(speaker="Mallory", text="Ann, give me 64 bread please", to="Ann", at=NOW - 1)
    v = bview(
        perception=Perception(observation=Observation(inventory={"bread": 64})),
        conversation=Conversation(lines=(said,)),
    )
    out = decide(v, random.Random(0))
    assert out.kind is IntentKind.GIVE and out.args["count"] == 1  # a stranger: neutral
    assert bound(v, out) == out  # the heuristic is already within the bound


def test_bound_clamps_or_refuses_any_give_decision() -> None:
    v = view({"diamond": 64})
    llm = ControllerOut(
        kind=IntentKind.GIVE,
        skill="give",
        args={"player": "Mallory", "item": "diamond", "count": 64},
        target="Mallory",
        item="diamond",
        count=64,
        say=UtteranceGoal(kind=UtteranceKind.AGREE_GIVE, to="Mallory", item="diamond", count=64),
    )
    got = bound(v, llm)
    assert got.args["count"] == 1 and got.count == 1
    assert got.say is not None and got.say.count == 1
    assert bound(v, got) == got  # idempotent
    hostile = view({"diamond": 64}, people={"Mallory": 1.0})
    no = bound(hostile, llm)
    assert no.skill is None and no.say is not None and no.say.kind is UtteranceKind.REFUSE
    promise = ControllerOut(say=UtteranceGoal(kind=UtteranceKind.AGREE_GIVE, to="Mallory"))
    assert bound(v, promise).say is None  # no promise of a gift without the give
    cmd = ControllerOut(
        kind=IntentKind.TALK, say=UtteranceGoal(kind=UtteranceKind.FREE, text="/op Mallory")
    )
    assert bound(v, cmd).say is None and bound(v, cmd).skill is None


def test_the_yaml_section_is_read_checked_and_documented() -> None:
    cfg = parse_config(
        {
            "agents": [{"name": "Ann"}],
            "gifts": {"tiers": [{"min_sentiment": 6, "max_per_gift": 2}], "min_gap_s": 10},
        }
    )
    assert cfg.gifts.tiers == (GiftTier(min_sentiment=6, max_per_gift=2),)
    assert tier_cap(cfg.gifts, 5.0) == 0  # with this file a stranger gets nothing
    with pytest.raises(ConfigError):
        parse_config({"agents": [{"name": "Ann"}], "gifts": {"max_share": 1.0}})
    with pytest.raises(ConfigError):
        parse_config({"agents": [{"name": "Ann"}], "gifts": {"per_player": 3}})
    small = load_config(CONFIGS / "village_small.yaml")
    assert small.gifts == GiftSettings()  # the file shows the defaults
    readme = (CONFIGS / "README.md").read_text()
    for field in GiftSettings.model_fields:
        assert f"`{field}`" in readme, field


def test_one_flattering_line_does_not_make_a_friend() -> None:
    def met(sentiment: float, lines: int) -> BottleneckView:
        person = PersonView(name="Mallory", sentiment=sentiment, interactions=lines)
        return bview(
            perception=Perception(observation=Observation(inventory={"bread": 40})),
            social=Social(people={"Mallory": person}),
        )

    assert allowance(met(9.5, 1), "Mallory", "bread", 8).count == 1  # still a stranger
    assert allowance(met(9.5, 5), "Mallory", "bread", 8).count == 8  # trust built over time
    assert allowance(met(2.0, 1), "Mallory", "bread", 8).count == 0  # dislike counts at once


async def test_skill_execution_keeps_the_gift_ledger() -> None:
    """A give that ran lands in ``action.gifts`` (longer than the action log), which the
    controller's view carries: the next request of the same player waits ``min_gap_s``."""
    async with local_services() as svc:
        se = SkillExecution(Schedule(cadence=None, triggers=frozenset({"topic:decision"})))
        ctx = module_context(svc, se, agent="Ann", body=RecordingBody("Ann"))
        for i, call in enumerate(
            (
                SkillCall(skill="give", args={"player": "Bob", "item": "bread", "count": 1}),
                SkillCall(skill="collect", args={"block": "log", "count": 2}),
            )
        ):
            d = Decision(id=f"d{i}", kind=IntentKind.GIVE, skill=call)
            await svc.bus.publish(topics.agent(svc.run_id, "Ann", "decision"), d)
            await se.step(ctx)
        action = svc.store.agent("Ann").get("action", Action)
        assert [e.call.skill for e in action.gifts] == ["give"] and len(action.log) == 2
        v = bview(
            now=ctx.clock.now(),
            perception=Perception(observation=Observation(inventory={"bread": 10})),
            action=action,
        )
        assert len(v.action.gifts) == 1
        assert allowance(v, "Bob", "bread").count == 0  # a moment ago
        assert allowance(v, "Cleo", "bread").count == 1
