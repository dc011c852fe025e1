"""Asking for what one's own traits say one needs (modules/heuristics/needs.py)."""

from __future__ import annotations

import random

from agent_runtime.bottleneck import BottleneckView
from agent_runtime.state.sections import Conversation, Identity, Perception, UtteranceKind
from agent_runtime.world import NearbyPlayer, Observation, Vec3
from modules.heuristics.controller import decide
from modules.heuristics.needs import ASK_GAP_S, ask, needed
from tests.modules.helpers import NOW, bview

HUNGRY = ("You are hungry, you have no food and you need bread.", "Marla is the village chef.")


def view(
    traits: tuple[str, ...] = HUNGRY,
    inventory: dict[str, int] | None = None,
    near: tuple[str, ...] = ("Finn", "Marla"),
    spoke: dict[str, float] | None = None,
) -> BottleneckView:
    players = tuple(NearbyPlayer(name=n, position=Vec3(x=1, y=64, z=0), distance=1.0) for n in near)
    return bview(
        identity=Identity(name="Gus", traits=traits),
        perception=Perception(observation=Observation(inventory=inventory or {}, players=players)),
        conversation=Conversation(spoke_to=spoke or {}),
    )


def test_its_own_traits_say_what_it_needs_until_it_holds_some() -> None:
    assert needed(view()) == "food"
    assert needed(view(inventory={"bread": 1})) is None
    assert needed(view(inventory={"oak_log": 9})) == "food"
    assert needed(view(traits=("You love working with wood.",))) is None
    assert needed(view(traits=("You are generous and share what you have.",))) is None


def test_it_asks_the_one_its_profile_names_else_anyone_never_too_often() -> None:
    rng = random.Random(1)
    got = ask(view(), rng)
    assert got is not None
    who, word, say = got
    assert (who, word, say.kind, say.to) == ("Marla", "food", UtteranceKind.FREE, "Marla")
    assert say.text.startswith("Marla, can I have some food?")
    assert ask(view(spoke={"Marla": NOW - 1.0}), rng) is None  # waits for Marla's answer
    again = ask(view(spoke={"Marla": NOW - ASK_GAP_S - 1}), rng)
    assert again is not None and again[0] == "Marla"
    other = ask(view(near=("Finn", "Ivy"), spoke={"Finn": NOW - 1.0}), rng)  # no Marla near
    assert other is not None and other[0] == "Ivy"
    assert ask(view(near=()), rng) is None


def test_its_own_warmth_colours_the_request() -> None:
    rude = (*HUNGRY, "You are rude and grumpy.")
    kind = (*HUNGRY, "You are kind and cheerful.")
    said = {
        t: {
            ask(view(traits=t), random.Random(s))[2].text  # type: ignore[index]
            for s in range(12)
        }
        for t in (rude, kind)
    }
    assert any("Ugh" in x or "annoying" in x or "No way" in x or "alone" in x for x in said[rude])
    assert any("friend" in x or "Glad" in x or "Happy" in x or "Great" in x for x in said[kind])


def test_the_controller_asks_when_nothing_more_urgent() -> None:
    out = decide(view(), random.Random(0))
    assert out.kind == "talk" and out.target == "Marla" and out.skill is None
    assert out.say is not None and out.say.kind is UtteranceKind.FREE
    fed = decide(view(inventory={"bread": 2}), random.Random(0))
    assert not (fed.say is not None and fed.say.kind is UtteranceKind.FREE)
