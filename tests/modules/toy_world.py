"""A scripted toy world for driving one agent's real modules fast, without Minecraft.

:class:`ToyBody` keeps an inventory and a list of places (what is in sight at each, and
what can be dug there without being a notable block, e.g. stone); ``explore`` walks to the
next place. Collect, craft and smelt follow the heuristics' own tech tree
(:mod:`modules.knowledge`) and fail with the body's own reasons (``bots/body/skills``).
A crafting table or furnace taken from the inventory is placed where the body stands and
left behind when it moves on, as the real body does. Every skill takes its time on a
:class:`ManualClock`, so an agent's 30 minutes run in well under a second per minute.

:func:`run_agent` steps the modules as the runtime schedules them: perception every
second, goal generation every 5 s, the controller every 3 s and when a skill ended, planning
every 60 s and when a skill ended or the goal changed (in any order after a skill, with
perception: they race in the runtime).
"""

from __future__ import annotations

import math
import random
from collections import Counter
from dataclasses import dataclass, field

from agent_runtime.app.testing import config, local_services, module_context
from agent_runtime.body.recording import RecordingBody
from agent_runtime.module import Module, Schedule
from agent_runtime.state.sections import Goals, Identity
from agent_runtime.world import NotableBlock, Observation, SkillCall, SkillOutcome, Vec3
from modules.action_awareness import ActionAwareness
from modules.controller.module import CognitiveController
from modules.goal_generation import GoalGeneration
from modules.knowledge import DROPS, LOGS, PLANKS, RECIPES, SMELTING, TOOL_TIER
from modules.knowledge import best_pickaxe_tier as tier_of
from modules.perception import PerceptionModule
from modules.planning import Planning
from modules.skill_execution import SkillExecution
from tests.core.helpers import ManualClock

START = 1_000_000.0
EXPLORER = (
    "You are an explorer. You roam the world and gather as many different kinds of items as "
    "you can.",
    "You are self-reliant and work alone.",
)
FUELS = {"coal": 8.0, "charcoal": 8.0, **dict.fromkeys((*PLANKS, *LOGS), 1.5)}


@dataclass
class Place:
    seen: dict[str, float]  # notable blocks in sight -> distance
    hidden: frozenset[str] = frozenset()  # diggable here but never reported (stone)
    placed: set[str] = field(default_factory=set)  # a table or furnace the body put here


#: a forest, a hill with stone and coal, more forest, a hill with iron
WILD = (
    Place({"oak_log": 5.0, "birch_log": 9.0}),
    Place({"coal_ore": 7.0, "oak_log": 12.0}, frozenset({"stone"})),
    Place({"spruce_log": 6.0}, frozenset({"stone"})),
    Place({"iron_ore": 8.0, "coal_ore": 11.0}, frozenset({"stone"})),
    Place({"birch_log": 4.0}),
)


class ToyBody(RecordingBody):
    def __init__(
        self,
        clock: ManualClock,
        places: tuple[Place, ...] = WILD,
        *,
        flaky: float = 0.0,
        seed: int = 0,
    ) -> None:
        super().__init__("Ann")
        self.flaky = flaky  # share of bridge calls that time out (a loaded machine)
        self.rng = random.Random(seed)
        self.clock = clock
        self.places = [Place(dict(p.seen), p.hidden) for p in places]
        self.at = 0
        self.inventory: Counter[str] = Counter()
        self.acquired: dict[str, float] = {}  # first time each kind arrived

    @property
    def here(self) -> Place:
        return self.places[self.at % len(self.places)]

    async def observe(self) -> Observation:
        if self.rng.random() < self.flaky:
            raise TimeoutError("bridge call observe timed out")
        seen = {**self.here.seen, **{b: 2.0 for b in self.here.placed}}
        blocks = tuple(
            NotableBlock(name=n, position=Vec3(x=d, y=64, z=0), distance=d)
            for n, d in sorted(seen.items(), key=lambda kv: kv[1])
        )
        inv = {k: v for k, v in self.inventory.items() if v > 0}
        return Observation(at=self.clock.now(), inventory=inv, blocks=blocks)

    async def run_skill(self, call: SkillCall) -> SkillOutcome:
        self.calls.append(call)
        started = self.clock.now()
        before = Counter(self.inventory)
        if self.rng.random() < self.flaky:
            seconds, reason = 10.0, "body unavailable: bridge call runSkill timed out after 10 s"
        else:
            seconds, reason = self._do(call)
        self.clock.advance(seconds)
        delta = {
            k: self.inventory[k] - before[k]
            for k in set(before) | set(self.inventory)
            if self.inventory[k] != before[k]
        }
        for k, v in delta.items():
            if v > 0:
                self.acquired.setdefault(k, self.clock.now())
        return SkillOutcome(
            skill=call.skill,
            success=not reason,
            reason=reason,
            inventory_delta=delta,
            started_at=started,
            ended_at=self.clock.now(),
        )

    # --- the skills -----------------------------------------------------------

    def _do(self, call: SkillCall) -> tuple[float, str]:
        a = call.args
        if call.skill == "idle":
            return float(a.get("seconds", 5.0)), ""
        if call.skill == "explore":
            self.at += 1
            return float(a.get("distance", 32.0)) / 4.0, ""
        if call.skill == "collect":
            return self._collect(str(a.get("block")), int(a.get("count", 1)))
        if call.skill == "craft":
            return 2.0, self._craft(str(a.get("item")), int(a.get("count", 1)))
        if call.skill == "smelt":
            return 10.0, self._smelt(str(a.get("item")), int(a.get("count", 1)))
        return 1.0, f"{call.skill}: nothing to do here"

    def _collect(self, block: str, count: int) -> tuple[float, str]:
        here = set(self.here.seen) | self.here.hidden
        names = [b for b in here if b == block or (block == "log" and b in LOGS)]
        if block == "cobblestone" and "stone" in here:
            names = ["stone"]
        if not names:
            return 3.0, f"no {block} in sight within 64 blocks"
        name = names[0]
        if TOOL_TIER.get(name, 0) > tier_of(dict(self.inventory)):
            return 3.0, f"no tool to harvest {name}"
        self.inventory[DROPS.get(name, name)] += count
        return 6.0 * count, ""

    def _station(self, name: str) -> bool:
        """A table or furnace here, or one from the inventory placed here."""
        if name in self.here.placed or name in self.here.seen:
            return True
        if self.inventory[name] > 0:
            self.inventory[name] -= 1
            self.here.placed.add(name)
            return True
        return False

    def _plank_kind(self) -> str:
        """The plank kind held most (a recipe's "planks" are one kind, the body's best)."""
        return max(PLANKS, key=lambda p: self.inventory[p])

    def _craft(self, item: str, count: int) -> str:
        """As ``bots/body/skills/craft.js``: ``count`` items (whole crafts), planks of any
        log held when the asked kind's log is not held, "missing ingredients: N name"."""
        if item in PLANKS and self.inventory[item.replace("_planks", "_log")] == 0:
            item = next((p for p in PLANKS if self.inventory[p.replace("_planks", "_log")]), item)
        recipe = RECIPES.get(item)
        if recipe is None:
            return f"{item} cannot be crafted"
        times = -(-count // recipe.count)
        needs = {
            (self._plank_kind() if k == "planks" else k): n * times for k, n in recipe.needs.items()
        }
        missing = [
            f"{n - self.inventory[k]} {k}" for k, n in needs.items() if self.inventory[k] < n
        ]
        if missing:
            return "missing ingredients: " + ", ".join(missing)
        if recipe.table and not self._station("crafting_table"):
            return "no crafting table within 16 blocks (and none in inventory)"
        for k, n in needs.items():
            self.inventory[k] -= n
        self.inventory[item] += recipe.count * times
        return ""

    def _smelt(self, item: str, count: int) -> str:
        if item not in SMELTING:
            return f"{item} cannot be smelted"
        if self.inventory[item] < count:
            return f"missing ingredients: {count - self.inventory[item]} {item}"
        fuel = next((f for f in FUELS if self.inventory[f] > 0 and f != item), None)
        if fuel is None:
            return "no fuel in inventory (coal, charcoal, planks or logs)"
        burn = math.ceil(count / FUELS[fuel])
        if self.inventory[fuel] < burn:
            return f"missing fuel: {burn - self.inventory[fuel]} {fuel}"
        if not self._station("furnace"):
            return "no furnace within 32 blocks (and none in inventory)"
        self.inventory[item] -= count
        self.inventory[fuel] -= burn
        self.inventory[SMELTING[item]] += count
        return ""


@dataclass
class Run:
    body: ToyBody
    skills: Counter[str]  # skill calls the body ran, by skill
    goals: list[str]
    events: list[dict[str, object]]

    @property
    def unique(self) -> int:
        return len(self.body.acquired)

    def share(self, skill: str) -> float:
        return self.skills[skill] / max(1, sum(self.skills.values()))


def _modules() -> dict[str, Module]:
    def trig(*names: str) -> Schedule:
        return Schedule(cadence=None, triggers=frozenset(names))

    return {
        "perception": PerceptionModule(trig("topic:event", "world:event")),
        "goal_generation": GoalGeneration(Schedule(cadence=5.0)),
        "planning": Planning(trig("state:goals", "topic:skill", "topic:heard")),
        "cognitive_controller": CognitiveController(trig("topic:skill", "topic:heard")),
        "skill_execution": SkillExecution(trig("topic:decision")),
        "action_awareness": ActionAwareness(trig("topic:skill")),
    }


async def run_agent(
    seconds: float,
    *,
    traits: tuple[str, ...] = EXPLORER,
    community_goal: str = "",
    places: tuple[Place, ...] = WILD,
    seed: int = 0,
    flaky: float = 0.0,
) -> Run:
    """One agent's modules over ``seconds`` of the toy world (its own clock)."""
    clock = ManualClock(START)
    cfg = config(agents=[{"name": "Ann", "traits": list(traits)}])
    async with local_services(cfg) as svc:
        svc.clock = clock
        svc.store.agent("Ann").set(
            "identity",
            Identity(name="Ann", traits=traits, community_goal=community_goal),
            writer="runtime",
        )
        events: list[dict[str, object]] = []
        svc.events.add_listener(events.append)
        body = ToyBody(clock, places, flaky=flaky, seed=seed)
        mods = _modules()
        ctxs = {
            n: module_context(svc, m, agent="Ann", body=body, seed=seed) for n, m in mods.items()
        }
        for ctx in ctxs.values():
            ctx.clock = clock
        race = random.Random(seed)
        goals: list[str] = []
        next_goal = next_plan = next_decide = clock.now()

        async def step(name: str) -> None:
            await mods[name].step(ctxs[name])

        while clock.now() - START < seconds:
            now = clock.now()
            await step("perception")
            if now >= next_goal:
                await step("goal_generation")
                next_goal = now + 5.0
            if now >= next_plan:
                await step("planning")
                next_plan = now + 60.0
            if now >= next_decide:
                await step("cognitive_controller")
                next_decide = now + 3.0
            before = len(body.calls)
            await step("skill_execution")  # runs the decided skill to its end
            if len(body.calls) > before:
                await step("action_awareness")
                # the controller and planning wake on the skill's end, perception on its
                # own second: any of them may be first
                order = ["perception", "planning", "cognitive_controller"]
                race.shuffle(order)
                for name in order:
                    await step(name)
                next_decide = clock.now() + 3.0
            kind = svc.store.agent("Ann").get("goals", Goals).kind
            if kind and (not goals or goals[-1] != kind):
                goals.append(kind)
            clock.advance(1.0)
        return Run(body, Counter(c.skill for c in body.calls), goals, events)
