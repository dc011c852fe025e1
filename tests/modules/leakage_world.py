"""The leakage test's scripted moment: Ann's real modules through one moment of a village,
in a world whose every fact is a field of ``World``; ``run_world`` returns what each module
produced. ``tests/modules/test_leakage.py`` compares worlds that differ only in what Ann
could not perceive."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from agent_runtime.agent_memory import memory_inbox
from agent_runtime.app.testing import config, local_services, module_context
from agent_runtime.body.recording import RecordingBody
from agent_runtime.bus import topics
from agent_runtime.bus.messages import WorldEvent
from agent_runtime.clock import Clock
from agent_runtime.config.module_options import ReflectionOptions
from agent_runtime.module import Module, Schedule
from agent_runtime.state.sections import (
    Awareness,
    Conversation,
    Decision,
    Goals,
    Identity,
    Perception,
    Plan,
    Reflection,
    Social,
    WorkingMemory,
)
from agent_runtime.world import (
    BodyEvent,
    NearbyPlayer,
    NotableBlock,
    Observation,
    SkillCall,
    SkillOutcome,
    Vec3,
)
from modules.action_awareness import ActionAwareness
from modules.controller.asking import situation
from modules.controller.module import CognitiveController
from modules.controller.plan_steps import next_plan_step
from modules.goal_generation import GoalGeneration
from modules.memory_module import Memory, StreamSlot
from modules.perception import PerceptionModule
from modules.planning import Planning
from modules.reflection_module import ReflectionModule
from modules.skill_execution import SkillExecution
from modules.social_awareness import SocialAwareness
from modules.talking import Talking
from tests.modules.helpers import TOPIC_FILES

NOW = 1_700_000_000.0
SEED = 3  # the same rng seed in every world
OPEN = (
    "Tax season 1 is open for 20 seconds: deposit {pct}% of your inventory into the "
    "community chests at (12, 64, -3)."
)


class FrozenClock(Clock):
    def now(self) -> float:
        return NOW

    def game_hours(self, at: float | None = None) -> float:
        return ((NOW if at is None else at) - self.started) * self.game_hours_per_second


@dataclass
class World:
    """Everything true in one scripted moment; Ann perceives only part of it."""

    # perceivable by Ann
    ann_traits: tuple[str, ...] = ("You love working with wood in the forest.",)
    ann_inventory: dict[str, int] = field(default_factory=lambda: {"oak_log": 10, "bread": 5})
    seen_blocks: tuple[str, ...] = ("oak_log",)
    seen_players: tuple[str, ...] = ("Bob",)
    announced_pct: int = 20
    bob_says: tuple[str, ...] = (
        "Hello everyone! I'm going to mine stone.",
        "Honestly, the tax is too high and unfair.",
    )
    delivered: int = 2  # what the deposit really moved (Ann's body reports it)
    # given to Ann: the topic files her village lists (``topics:``), as every agent gets them
    topics: tuple[str, ...] = ("tax",)
    # NOT perceivable by Ann
    bob_traits: tuple[str, ...] = ("You are outgoing and love the tax.",)
    bob_role: str | None = "influencer"
    hidden_rate: float = 0.2
    hidden_law: str = "Every member deposits 5% of their inventory each season."
    chest_contents: dict[str, int] = field(default_factory=lambda: {"diamond": 64})


A = World()
B = dataclasses.replace(
    A,
    bob_traits=("You are quiet and hate the tax.",),
    bob_role=None,
    hidden_rate=0.9,
    hidden_law="Every member deposits 90% of their inventory each season.",
    chest_contents={},
)


class WorldBody(RecordingBody):
    """Ann's body: it knows the chest contents (world truth); its observation does not."""

    def __init__(self, world: World) -> None:
        blocks = tuple(
            NotableBlock(name=b, position=Vec3(x=5, y=64, z=5), distance=4.0)
            for b in world.seen_blocks
        )
        obs = Observation(
            at=NOW,
            position=Vec3(x=10, y=64, z=-3),
            inventory=dict(world.ann_inventory),
            players=tuple(
                NearbyPlayer(name=p, position=Vec3(x=11, y=64, z=-3), distance=1.0)
                for p in world.seen_players
            ),
            blocks=blocks,
        )
        self.chests = {(12, 64, -3): dict(world.chest_contents)}
        delta = world.delivered

        def outcome(call: SkillCall) -> SkillOutcome:
            moved = {str(call.args.get("item")): -delta} if call.skill == "deposit" else {}
            return SkillOutcome(skill=call.skill, success=True, inventory_delta=moved, ended_at=NOW)

        super().__init__("Ann", obs, outcome)


def trig(*names: str) -> Schedule:
    return Schedule(cadence=None, triggers=frozenset(names))


def modules_for(perception: type[PerceptionModule]) -> dict[str, Module]:
    slot = StreamSlot()  # one agent's memory stream, as the registry shares it
    return {
        "perception": perception(trig("topic:event", "world:event")),
        "talking": Talking(trig("topic:heard", "topic:decision"), slot),
        "social_awareness": SocialAwareness(trig("topic:heard")),
        "goal_generation": GoalGeneration(Schedule(cadence=5.0)),
        "planning": Planning(Schedule(cadence=60.0)),
        "cognitive_controller": CognitiveController(trig("topic:heard", "topic:skill")),
        "skill_execution": SkillExecution(trig("topic:decision")),
        "action_awareness": ActionAwareness(trig("topic:skill")),
        "memory": Memory(Schedule(cadence=3.0), slot=slot),
        # a threshold of 1 so that the scripted moment's memories are reflected on at once
        "reflection": ReflectionModule(
            Schedule(cadence=10.0), ReflectionOptions(threshold=1.0), slot
        ),
    }


ORDER = (
    "perception",
    "talking",
    "social_awareness",
    "goal_generation",
    "planning",
    "cognitive_controller",
    "talking",
    "skill_execution",
    "action_awareness",
    "memory",
    "reflection",
)


async def run_world(
    w: World, perception: type[PerceptionModule] = PerceptionModule
) -> dict[str, Any]:
    """Ann's modules through one moment of ``w``; what each module produced."""
    cfg = config(
        agents=[
            {"name": "Ann", "traits": list(w.ann_traits), "inventory": w.ann_inventory},
            {"name": "Bob", "traits": list(w.bob_traits), "role": w.bob_role},
        ],
        topics=[str(TOPIC_FILES[t]) for t in w.topics],
    )
    async with local_services(cfg) as svc:
        svc.clock = FrozenClock(started=NOW - 100)
        st = svc.store.agent("Ann")
        st.set(
            "identity",
            Identity(name="Ann", traits=w.ann_traits, community_goal="Thrive.", topics=cfg.topics),
            writer="runtime",
        )
        body, memory = WorldBody(w), memory_inbox()
        mods = modules_for(perception)
        ctxs = {
            n: module_context(svc, m, agent="Ann", body=body, memory=memory, seed=SEED)
            for n, m in mods.items()
        }
        for ctx in ctxs.values():
            ctx.clock = svc.clock
        await mods["memory"].setup(ctxs["memory"])
        speech = svc.bus.subscribe(topics.agent(svc.run_id, "Ann", "heard"))
        news = {
            "kind": "announcement",
            "speaker": "Mayor",
            "text": OPEN.format(pct=w.announced_pct),
            "at": NOW - 2,
            # an experiment's structured fields: never to reach an agent (the model drops them)
            "rate": w.hidden_rate,
            "chests": [[12, 64, -3]],
            "window_s": 20,
        }
        world_event = topics.world(svc.run_id, "event")
        await svc.bus.publish(world_event, WorldEvent.model_validate(news))
        await svc.bus.publish(world_event, WorldEvent(kind="ledger", text=w.hidden_law))
        for i, line in enumerate(w.bob_says):
            await svc.bus.publish(
                topics.agent(svc.run_id, "Ann", "event"),
                BodyEvent(
                    kind="chat",
                    bot="Ann",
                    data={"sender": "Bob", "message": line},
                    at=NOW - 1 + i * 0.1,
                ),
            )
        for name in ORDER:
            await mods[name].step(ctxs[name])
        heard = []
        while (msg := speech.get_nowait()) is not None:
            heard.append(msg.payload)
        social, goals, plan = st.get("social", Social), st.get("goals", Goals), st.get("plan", Plan)
        d = st.get("decision", Decision)
        conv = st.get("conversation", Conversation)
        cc = mods["cognitive_controller"]
        assert isinstance(cc, CognitiveController)
        # when the controller asks its model (issue 30): read from its view and own decision
        view = cc.view(ctxs["cognitive_controller"])
        gate = situation(view, d)
        # the step a standing decision of its model would start (issue 30, part H)
        follow = next_plan_step(view.plan, view.action)
        return {
            "controller_gate": gate.model_dump(),
            "controller_follow": (follow[:2], follow[2].model_dump()) if follow else None,
            "perception": (heard, st.get("perception", Perception).observation),
            "talking": (
                [(u.speaker, u.text, u.to) for u in conv.lines],
                [c.args for c in body.calls if c.skill == "chat"],
            ),
            "social_awareness": (
                {n: (p.summary, p.sentiment, p.activity) for n, p in social.people.items()},
                social.opinions,
            ),
            "goal_generation": (goals.current, goals.kind),
            "planning": [(s.text, s.skill) for s in plan.steps],
            "cognitive_controller": d.model_dump(exclude={"id", "updated_at", "supersedes"}),
            "skill_execution": [c for c in body.calls if c.skill not in ("chat", "whisper")],
            "action_awareness": [x.note for x in st.get("awareness", Awareness).discrepancies],
            "memory": sorted(i.text for i in st.get("working_memory", WorkingMemory).items),
            "reflection": st.get("reflection", Reflection).insights,
        }
