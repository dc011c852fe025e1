"""The leakage test: a policy decides only from what its agent perceived, heard or remembered.

For every module, Ann's real modules run through one scripted moment of a village
(announcements on the world topic, chat heard through her body, her own observation)
in two worlds that differ ONLY in what Ann cannot perceive:

- another agent's config: Bob's traits, his "influencer" role (an experiment's label);
- an experiment's hidden variables: structured fields (rate, chests, window) that an
  experiment might put next to an announcement's text (dropped by the world event's model),
  and its ledger (a world event that is no announcement);
- a law not yet announced (the ledger's next constitution);
- items in a chest Ann has not opened (the body knows them, its observation does not).

What her village talks about (its ``topics``: the tax experiment's words, handed to every
agent in its Identity) is given to her; a topic the village did not give is not read by
any policy (``test_a_topic_the_village_did_not_give_is_read_by_no_policy``).

Every module's output (what it writes, publishes, says, does) must be identical with the
same seeds. Then, per module, one world that differs in something Ann DID perceive must
change that module's output: the rule is not satisfied by policies that ignore everything.

Example of what this test catches (``test_the_leakage_test_catches_a_leak``): before
issue 11 the controller subscribed to ``world:event`` and copied ``payload["rate"]`` into
the tax it paid. Reproduced here as a perception module that passes the event's hidden
``rate`` on with the heard line, Ann deposits 6 of her 10 logs in world B (hidden rate
0.9) and 1 in world A (hidden rate 0.2) for the same announced text, and the comparison
fails; with the real perception module she deposits 1 log in both worlds (the announced
20%, lowered by her own opinion, -0.5, formed from what Bob said).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from typing import Any

import pytest

from agent_runtime.bus.messages import WorldEvent
from agent_runtime.state.sections import (
    Identity,
    Social,
)
from modules import social_awareness
from modules.perception import PerceptionModule
from modules.views import opinion_view
from tests.modules.helpers import TOPIC_FILES
from tests.modules.leakage_world import ORDER, A, B, World, run_world

MODULES = tuple(dict.fromkeys(ORDER))

#: per module, a world that differs from A in something Ann perceived
PERCEIVED: dict[str, Callable[[World], World]] = {
    "perception": lambda w: dataclasses.replace(w, announced_pct=50),
    "talking": lambda w: dataclasses.replace(w, bob_says=("Good morning!",)),
    "social_awareness": lambda w: dataclasses.replace(
        w, bob_says=("Paying the tax is fair, it is for the common good.",)
    ),
    "goal_generation": lambda w: dataclasses.replace(
        w, ann_traits=("You are a farmer who wants to feed everyone.",)
    ),
    "planning": lambda w: dataclasses.replace(w, seen_blocks=("birch_log",)),
    "cognitive_controller": lambda w: dataclasses.replace(w, announced_pct=50),
    "skill_execution": lambda w: dataclasses.replace(w, announced_pct=50),
    "action_awareness": lambda w: dataclasses.replace(w, delivered=0),
    "memory": lambda w: dataclasses.replace(w, bob_says=("Look at the sunset.",)),
    "reflection": lambda w: dataclasses.replace(w, bob_says=("Look at the sunset.",)),
}


@pytest.fixture(scope="module")
def outputs() -> dict[str, dict[str, Any]]:
    import asyncio

    async def all_worlds() -> dict[str, dict[str, Any]]:
        got = {"A": await run_world(A), "B": await run_world(B)}
        for name, change in PERCEIVED.items():
            got[name] = await run_world(change(A))
        return got

    return asyncio.run(all_worlds())


@pytest.mark.parametrize("module", MODULES)
def test_hidden_differences_change_nothing(module: str, outputs: dict[str, dict[str, Any]]) -> None:
    assert outputs["A"][module] == outputs["B"][module]


@pytest.mark.parametrize("module", MODULES)
def test_perceived_differences_change_the_output(
    module: str, outputs: dict[str, dict[str, Any]]
) -> None:
    assert outputs[module][module] != outputs["A"][module]


def test_when_the_controller_asks_depends_only_on_what_ann_perceived(
    outputs: dict[str, dict[str, Any]],
) -> None:
    """The ask gate's situation (what decides whether the model is asked) is the same in
    worlds that differ only in what Ann cannot perceive, and changes with what she hears."""
    assert outputs["A"]["controller_gate"] == outputs["B"]["controller_gate"]
    assert outputs["talking"]["controller_gate"] != outputs["A"]["controller_gate"]


def test_someone_to_greet_is_read_from_anns_own_view_and_conversation(
    outputs: dict[str, dict[str, Any]],
) -> None:
    """The gate's talk occasions (issue 30: players in view she has not spoken to, when she
    may talk again) come from her perception and her own conversation record: the same in
    worlds that differ only in what she cannot perceive, another when Cleo is in view too."""
    import asyncio

    cleo = asyncio.run(run_world(dataclasses.replace(A, seen_players=("Bob", "Cleo"))))
    gate, a = cleo["controller_gate"], outputs["A"]["controller_gate"]
    assert "Cleo" in gate["unmet"] and "Cleo" not in a["unmet"]
    assert (a["unmet"], a["talk_from"]) == (
        outputs["B"]["controller_gate"]["unmet"],
        outputs["B"]["controller_gate"]["talk_from"],
    )


def test_the_step_a_standing_decision_starts_depends_only_on_what_ann_perceived(
    outputs: dict[str, dict[str, Any]],
) -> None:
    """The plan step a standing decision of the model starts without a call (issue 30, part
    H: also after a skill off the plan) is read from her own plan and actions: the same in
    worlds that differ only in what she cannot perceive, another when she sees other trees."""
    assert outputs["A"]["controller_follow"] is not None
    assert outputs["A"]["controller_follow"] == outputs["B"]["controller_follow"]
    assert outputs["planning"]["controller_follow"] != outputs["A"]["controller_follow"]


def test_the_scripted_moment_reflects(outputs: dict[str, dict[str, Any]]) -> None:
    assert outputs["A"]["reflection"], "no insight: the reflection check above proves nothing"


def test_no_role_label_reaches_an_agents_own_state() -> None:
    """An experiment's label for an agent (``role: influencer`` in its config) is the
    experiment's ledger, not something the agent was told: it is in neither the Identity
    section nor the controller's view of it."""
    from agent_runtime.bottleneck_data import IdentityData

    assert "role" not in Identity.model_fields
    assert "role" not in IdentityData.model_fields


def test_the_scripted_moment_exercises_the_tax_path(outputs: dict[str, dict[str, Any]]) -> None:
    a = outputs["A"]
    assert a["cognitive_controller"]["kind"] == "deposit"
    assert a["skill_execution"][0].args["count"] < 10  # its own reading, not the whole stack
    assert a["social_awareness"][1]["tax"] < 0  # Bob's words, not Bob's config


def leaky_perception(w: World) -> type[PerceptionModule]:
    """The old bug, reproduced: the experiment's hidden rate travels on with the heard line
    (the world event's model no longer carries it, so here perception reads it from the
    world itself, as a module handed the experiment's config could)."""

    class LeakyPerception(PerceptionModule):
        async def _on_announcement(self, ctx: Any, ev: WorldEvent) -> None:
            hidden = f"{round(100 * w.hidden_rate)}%"
            leak = ev.model_copy(update={"text": re.sub(r"\d+%", hidden, ev.text)})
            await super()._on_announcement(ctx, leak)

    return LeakyPerception


async def test_the_leakage_test_catches_a_leak() -> None:
    a, b = await run_world(A, leaky_perception(A)), await run_world(B, leaky_perception(B))
    assert a["cognitive_controller"] != b["cognitive_controller"]
    assert a["skill_execution"] != b["skill_execution"]


# --- topics: what the village talks about is data the village hands over --------------------

NO_TOPICS = dataclasses.replace(A, topics=())  # a plain village: the same moment, no topic


async def test_a_topic_the_village_did_not_give_is_read_by_no_policy() -> None:
    """Bob says the same words against the tax, but Ann's village names no topic: no policy
    reads a stance on the tax from them (no opinion, no "sounds against the tax" in her
    impression of Bob, no voiced opinion), and her deposit is the announced 20% of her
    15 items, not lowered by an opinion she was never given the words for."""
    got = await run_world(NO_TOPICS)
    people, opinions = got["social_awareness"]
    assert opinions == {}
    assert "the tax" not in people["Bob"][0].split("last said")[0]
    assert not any("tax" in m["message"] for m in got["talking"][1])
    assert got["cognitive_controller"]["kind"] == "deposit"
    deposits = [c for c in got["skill_execution"] if c.skill == "deposit"]
    assert sum(int(c.args["count"]) for c in deposits[:1]) == 2  # oak_log's quota of 3 items


async def test_the_topic_check_catches_a_policy_reading_a_topic_from_elsewhere(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Reproduced leak: the opinion policy's view gets the tax topic from the experiment's
    file instead of Ann's Identity. In the plain village she then holds an opinion on the
    tax (0.0: the lines she heard were not kept as on a topic), which the check above
    rejects."""
    from agent_runtime.config.loader import load_topic

    tax = load_topic(TOPIC_FILES["tax"])

    def leaky(ident: Identity, social: Social) -> Any:
        return opinion_view(ident, social).model_copy(update={"topics": (tax,)})

    monkeypatch.setattr(social_awareness, "opinion_view", leaky)
    opinions = (await run_world(NO_TOPICS))["social_awareness"][1]
    assert opinions != {} and "tax" in opinions


# --- asking for food and giving it (the chef scenario) -------------------------------------

HUNGRY = ("You are hungry, you have no food and you need bread.", "Bob is the village chef.")
ADMIRES, DESPISES = ("You admire Ann; you are kind.",), ("You think Ann is useless; you are rude.",)


async def test_a_hungry_agent_asks_from_its_own_traits_only() -> None:
    """Ann's own traits say she needs food and she holds none: she asks Bob, whom she sees
    and her profile names. Bob's config (traits, role) changes nothing; holding food does."""
    a = await run_world(
        dataclasses.replace(A, bob_traits=ADMIRES, ann_traits=HUNGRY, ann_inventory={})
    )
    b = await run_world(
        dataclasses.replace(B, bob_traits=DESPISES, ann_traits=HUNGRY, ann_inventory={})
    )
    for module in ("cognitive_controller", "talking", "skill_execution"):
        assert a[module] == b[module], module
    d = a["cognitive_controller"]
    assert (d["kind"], d["target"], d["item"]) == ("talk", "Bob", "food")
    said = a["talking"][1]
    assert said and said[0]["message"].startswith("Bob, can I have some food?")
    fed = await run_world(dataclasses.replace(A, ann_traits=HUNGRY, ann_inventory={"bread": 1}))
    assert "ask" not in fed["cognitive_controller"]["intent"]
    assert not any("can I have" in m["message"] for m in fed["talking"][1])


async def test_a_chef_gives_by_its_own_sentiment_not_the_askers_config() -> None:
    """Ann (holding bread) is asked for food by Bob: what she gives depends on what she heard
    from him (her own Social sentiment), never on Bob's configured attitude towards her."""
    ask = ("Ann, can I have some food? I need it.",)
    a = await run_world(dataclasses.replace(A, bob_traits=ADMIRES, bob_says=ask))
    b = await run_world(dataclasses.replace(B, bob_traits=DESPISES, bob_says=ask))
    for module in ("cognitive_controller", "skill_execution", "social_awareness"):
        assert a[module] == b[module], module
    gives = [c for c in a["skill_execution"] if c.skill == "give"]
    assert gives and gives[0].args["player"] == "Bob" and gives[0].args["item"] == "bread"
    rude = await run_world(
        dataclasses.replace(
            A, bob_traits=ADMIRES, bob_says=("Ugh, whatever, you are useless.", *ask)
        )
    )
    assert not [c for c in rude["skill_execution"] if c.skill == "give"]
    assert rude["cognitive_controller"]["say"]["kind"] == "refuse"
