"""Leakage test of the tax democracy: a member's feedback and vote depend only on what it
perceived (its own state), never on the experiment's hidden variables.

Three worlds, each built as the runner builds a member's view (``experiments.tax.views.
member_view`` over the agent's own Agent State and memory stream):

- A: Bob is an anti-tax influencer (anti traits in his config), the law in force is 20%;
- B: Bob is a *pro*-tax influencer, Cy has other traits, and a 35% law has been passed but
  not yet announced - yet Ann heard and remembers exactly what she did in A;
- C: as A, but Ann heard different words.

A and B must give Ann the same view, feedback and votes; C may (and here does) change them.

Caught by this test: the old ``Democracy.attitude`` added ``influencers[speaker]`` - the hidden
stance of an influencer, read from the experiment's roster - for every line a member heard.
In worlds A and B Ann heard the same words from Bob, but Bob's hidden stance flipped from -1
to +1, so her attitude moved by 2 x 0.25 per line and her vote on "lower the tax" flipped
from yes to no. Now the roster has no way into a view: the view's type lists what a member may
know, and it is filled from her own sections only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import fakeredis.aioredis
import pytest

from agent_runtime.state.sections import (
    Conversation,
    Goals,
    Identity,
    Section,
    Social,
    Utterance,
)
from experiments.tax.announcements import constitution_text
from experiments.tax.democracy import (
    Constitution,
    Democracy,
    HeuristicSettings,
    VoteView,
    render_constitution,
)
from experiments.tax.roster import Member
from experiments.tax.views import member_view
from modules.memory import MemoryRecord, stream_prefix
from tests.experiments.village_topics import village_topics

TEMPLATE = "Every member deposits {rate_pct}% of their inventory into the community chests."
ANTI = ("You believe taxes are too high and that people should keep what they earn.",)
PRO = ("You believe taxes are fair and pay for the public good.",)
AMENDMENTS = ("The tax becomes 10% of each member's inventory in every tax season.",
              "The tax becomes 30% of each member's inventory in every tax season.")
RUN = "leak"
TOPICS = tuple(village_topics("tax").values())  # what the tax village hands every agent


@dataclass
class FakeState:
    sections: dict[str, Section] = field(default_factory=dict)

    def get(self, name: str, model: type[Section]) -> Section:
        return self.sections.get(name) or model()


@dataclass
class World:
    """What the experiment knows (roster, ledger) and what each agent has (its own state)."""

    roster: list[Member]
    in_force: Constitution
    pending: Constitution | None
    states: dict[str, FakeState]
    memories: dict[str, list[str]]

    async def village(self) -> Any:
        redis = fakeredis.aioredis.FakeRedis()
        for name, texts in self.memories.items():
            key = stream_prefix(RUN, name) + "records"
            for i, text in enumerate(texts, 1):
                rec = MemoryRecord(id=i, agent=name, text=text, kind="observation", created=1.0,
                                   last_accessed=1.0, importance=5)
                await redis.hset(key, str(i), rec.model_dump_json())
        store = SimpleNamespace(agent=lambda n: self.states[n])
        return SimpleNamespace(store=store, services=SimpleNamespace(redis=redis), run_id=RUN)


def world(bob: tuple[str, ...], cy: tuple[str, ...], law: float | None,
          bob_says: tuple[str, ...]) -> World:
    v0 = Constitution(version=0, text=render_constitution(TEMPLATE, 0.2), tax_rate=0.2)
    pending = (None if law is None else
               Constitution(version=1, text=render_constitution(TEMPLATE, law), tax_rate=law))
    roster = [Member("Bob", "influencer", "influencer", bob),
              Member("Ann", "constituent", "farmer", ("You are a farmer.",)),
              Member("Cy", "constituent", "miner", cy)]
    told = constitution_text(v0.text)
    ann = FakeState({
        # her own config and her village's topics: the runtime writes them at start
        "identity": Identity(name="Ann", traits=("You are a farmer.",), topics=TOPICS),
        "goals": Goals(current="Harvest the wheat"),
        # what she heard (the talking module keeps it) and her own opinion
        "conversation": Conversation(
            lines=(*(Utterance(speaker="Bob", text=t, at=10.0 + i) for i, t in enumerate(bob_says)),
                   Utterance(speaker="Ann", text="Good morning!", at=20.0)),
            announcements=(Utterance(speaker="Council", text=told, at=1.0),),
        ),
        "social": Social(opinions={"tax": -0.1}),
    })
    others = {m.name: FakeState({"identity": Identity(name=m.name, traits=m.traits)})
              for m in roster if m.name != "Ann"}
    memories = {"Ann": [f"Announcement from Council: {told}",
                        *(f"Bob said: {t}" for t in bob_says)],
                "Bob": [f"I told everyone: {t}" for t in bob_says]}
    return World(roster, v0, pending, {"Ann": ann, **others}, memories)


async def decide(w: World) -> tuple[Any, ...]:
    village = await w.village()
    s = HeuristicSettings()
    told = constitution_text(w.in_force.text)  # what was announced, not the pending law
    v = await member_view(village, "Ann", told, s)
    demo = Democracy(None, s, TEMPLATE, seed=7)
    fb, _ = await demo.feedback(v)
    votes, _ = await demo.vote(VoteView.model_validate({**v.model_dump(), "amendments": AMENDMENTS}))
    return v, fb, votes


ANTI_SPEECH = ("The tax is too high, we should lower the tax.", "Taxes are theft!")


async def test_hidden_config_does_not_reach_a_members_decisions() -> None:
    a = world(bob=ANTI, cy=("You are a miner.",), law=None, bob_says=ANTI_SPEECH)
    b = world(bob=PRO, cy=PRO, law=0.35, bob_says=ANTI_SPEECH)
    assert a.roster[0].traits != b.roster[0].traits and b.pending is not None
    view_a, fb_a, votes_a = await decide(a)
    view_b, fb_b, votes_b = await decide(b)
    assert view_a == view_b  # built from her own state only
    assert fb_a == fb_b and votes_a == votes_b
    assert fb_a.stance == "lower" and votes_a == ["yes", "no"]
    assert view_a.memories and view_a.opinion == pytest.approx(-0.1)
    assert [h.speaker for h in view_a.heard] == ["Council", "Bob", "Bob"]  # not her own line
    assert "35%" not in view_b.model_dump_json()  # a law not yet announced is not known


async def test_what_a_member_perceived_may_change_its_decisions() -> None:
    _, fb_a, votes_a = await decide(world(ANTI, ("You are a miner.",), None, ANTI_SPEECH))
    pro_speech = ("I am happy to pay the tax, it is fair.", "Raise the tax for the village!")
    _, fb_c, votes_c = await decide(world(ANTI, ("You are a miner.",), None, pro_speech))
    assert fb_c.stance == "raise" and votes_c == ["no", "yes"]
    assert (fb_a.stance, votes_a) != (fb_c.stance, votes_c)
