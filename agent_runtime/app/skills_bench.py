"""Scenarios of ``piano bench skills``: every skill from a typical starting point, N at once.

A *round* connects ``agents`` fresh bodies (a clean inventory each), teleports them to the
scenario's starting place, hands them its items (``/give``) and runs its steps on all of them
at once; every step's outcome is recorded under the step's label. A chained scenario (craft
planks -> sticks -> table -> pickaxe) stops an agent's chain at its first failure. The
tech-tree climb lets the heuristic step selection (:func:`modules.techtree.craft_step`) pick
each step from the body's own inventory and what it sees, until it holds an iron ingot.
"""

from __future__ import annotations

import asyncio
import collections
import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from agent_runtime.config.models import DEFAULT_VERSION
from agent_runtime.interfaces import BotSpec
from agent_runtime.world import SkillCall, SkillOutcome
from modules.techtree import craft_step

Vec = tuple[float, float, float]


class Admin(Protocol):
    async def teleport(self, player: str, x: float, y: float, z: float) -> None: ...
    async def command(self, command: str) -> str | None: ...
    async def restore(self, x: float, z: float, radius: float) -> int: ...


@dataclass(frozen=True)
class Step:
    label: str
    call: Callable[[random.Random, Vec], SkillCall]


@dataclass(frozen=True)
class Scenario:
    name: str
    start: str  # a place of the village (``EmbeddedServer.places``)
    steps: tuple[Step, ...]
    give: tuple[tuple[str, int], ...] = ()
    receiver: bool = False  # a standing body at the start that the steps may name "{receiver}"


def _call(
    skill: str, timeout: float = 90.0, **args: Any
) -> Callable[[random.Random, Vec], SkillCall]:
    return lambda _rng, _at: SkillCall(skill=skill, args=args, timeout=timeout)


def _walk(distance: float) -> Callable[[random.Random, Vec], SkillCall]:
    def call(rng: random.Random, at: Vec) -> SkillCall:
        a = rng.uniform(0, 2 * math.pi)
        x, z = at[0] + distance * math.cos(a), at[2] + distance * math.sin(a)
        return SkillCall(skill="go_to", args={"x": x, "z": z, "range": 2.0}, timeout=90)

    return call


def _gather(
    name: str, start: str, block: str, count: int, tool: str | None = None, label: str = ""
) -> Scenario:
    """Collect ``count`` ``block`` from place ``start`` (holding ``tool``)."""
    step = Step(label or f"{name}_{count}", _call("collect", block=block, count=count))
    return Scenario(name, start, (step,), give=((tool, 1),) if tool else ())


RECEIVER = "benchrecv"

#: blocks within this many of a round's start are put back as generated before the round
RESTORE_RADIUS = 48.0

SCENARIOS: tuple[Scenario, ...] = (
    Scenario("goto_20", "village_centre", (Step("goto_20", _walk(20)),)),
    Scenario("goto_50", "village_centre", (Step("goto_50", _walk(50)),)),
    Scenario("goto_100", "village_centre", (Step("goto_100", _walk(100)),)),
    _gather("collect_logs", "village_centre", "log", 4, label="collect_logs_4"),
    # the same at the forest's edge (where an agent told of the forest goes for wood): the
    # skill's own time, without the 16-block walk from the square to the nearest tree
    _gather("collect_logs_forest", "forest", "log", 4, label="collect_logs_4_forest"),
    _gather("collect_stone", "hills", "stone", 3, tool="wooden_pickaxe"),
    _gather("collect_coal", "cave", "coal_ore", 2, tool="wooden_pickaxe", label="collect_coal_2"),
    _gather("collect_iron", "cave", "iron_ore", 1, tool="stone_pickaxe", label="collect_iron_1"),
    _gather("collect_dirt", "village_centre", "dirt", 3),
    _gather("collect_wheat", "village_centre", "wheat", 2),
    Scenario(
        "craft",
        "village_centre",
        (
            Step("craft_planks", _call("craft", 30, item="oak_planks", count=12)),
            Step("craft_sticks", _call("craft", 30, item="stick", count=1)),
            Step("craft_table", _call("craft", 30, item="crafting_table", count=1)),
            Step("craft_wooden_pickaxe", _call("craft", 60, item="wooden_pickaxe", count=1)),
            Step("craft_stone_pickaxe", _call("craft", 60, item="stone_pickaxe", count=1)),
        ),
        give=(("oak_log", 3), ("cobblestone", 3)),
    ),
    Scenario(
        "smelt",
        "village_centre",
        (Step("smelt_iron", _call("smelt", 90, item="iron_ore", count=1, fuel="oak_planks")),),
        give=(("iron_ore", 1), ("oak_planks", 2), ("furnace", 1)),
    ),
    Scenario(
        "chest",
        "village_centre",
        (
            Step("deposit", _call("deposit", 60, item="cobblestone", count=4)),
            Step("withdraw", _call("withdraw", 60, item="cobblestone", count=2)),
        ),
        give=(("cobblestone", 4),),
    ),
    Scenario(
        "give",
        "village_centre",
        (Step("give", _call("give", 60, player=RECEIVER, item="dirt", count=1)),),
        give=(("dirt", 1),),
        receiver=True,
    ),
    Scenario(
        "eat",
        "village_centre",
        (Step("eat", _call("eat", 30, item="golden_apple")),),
        give=(("golden_apple", 1),),
    ),
)

#: the climb's goal: an iron pickaxe; the climb ends at its first iron ingot
CLIMB_TARGET = "iron_pickaxe"

#: where the climb's brain looks when a block it needs is nowhere in sight (the village
#: places every agent is told about: stone, coal and iron are at the hills and the cave)
GATHER_AT = {"stone": "cave", "coal_ore": "cave", "iron_ore": "cave"}


@dataclass
class Tally:
    """Outcomes of one step label (one concurrency level)."""

    times: list[float] = field(default_factory=list)  # seconds, successes only
    runs: int = 0
    ok: int = 0
    failures: collections.Counter[str] = field(default_factory=collections.Counter)
    reasons: collections.Counter[str] = field(default_factory=collections.Counter)
    timing: collections.Counter[str] = field(default_factory=collections.Counter)  # summed ms
    #: the first failures as the body told them (reason and detail, timing left out)
    examples: list[dict[str, Any]] = field(default_factory=list)

    def add(self, outcome: SkillOutcome) -> None:
        self.runs += 1
        timing = outcome.detail.get("timing")
        if isinstance(timing, dict):
            self.timing.update({k: int(v) for k, v in timing.items() if isinstance(v, int | float)})
        if outcome.success:
            self.ok += 1
            self.times.append(outcome.ended_at - outcome.started_at)
            return
        self.failures[failure_kind(outcome)] += 1
        self.reasons[outcome.reason[:80]] += 1
        if len(self.examples) < 2:
            detail = {k: v for k, v in outcome.detail.items() if k != "timing"}
            self.examples.append({"reason": outcome.reason, "detail": detail})

    def summary(self) -> dict[str, Any]:
        n = max(1, self.runs)
        return {
            "runs": self.runs,
            "success_rate": round(self.ok / n, 3),
            "time_s": {"p50": percentile(self.times, 50), "p95": percentile(self.times, 95)},
            "failures": dict(self.failures),
            "reasons": dict(self.reasons.most_common(5)),
            "examples": self.examples,
            "per_run_ms": {k: round(v / n) for k, v in sorted(self.timing.items())},
        }


def failure_kind(outcome: SkillOutcome) -> str:
    """The typed kind of a failure; "unknown" when the body gave none or only "other"."""
    return "unknown" if outcome.failure in (None, "other") else str(outcome.failure)


def percentile(values: Sequence[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    k = min(len(ordered) - 1, max(0, math.ceil(q / 100 * len(ordered)) - 1))
    return round(ordered[k], 2)


@dataclass
class Bench:
    """One server, one transport; rounds of scenarios at a given number of agents."""

    transport: Any
    admin: Admin
    port: int
    places: dict[str, Vec]
    rng: random.Random
    serial: int = 0
    gate: asyncio.Semaphore = field(default_factory=lambda: asyncio.Semaphore(5))
    #: teleports sent again because the body was not there 5 s after the first: with 5
    #: bodies joining at once, a teleport right after a join was sometimes lost (the body
    #: stayed at its spawn, holding its items, for the whole 45 s)
    teleports_resent: int = 0
    #: blocks put back to the generated world before the rounds (what earlier rounds dug)
    blocks_restored: int = 0
    version: str = DEFAULT_VERSION  # the Minecraft version the server serves and the bodies speak

    async def restore(self, start: str) -> None:
        """The generated world again around place ``start``: every round starts on the same
        world (without it each round found the nearest trees taken by the rounds before and
        walked further, so a step's time depended on ``--rounds`` and the scenario order)."""
        x, _, z = self.places[start]
        self.blocks_restored += await self.admin.restore(x, z, RESTORE_RADIUS)

    async def body(
        self, start: str, give: Sequence[tuple[str, int]] = (), name: str | None = None
    ) -> Any:
        """A fresh body standing at place ``start`` holding ``give``."""
        self.serial += 1
        name = name or f"bsk{self.serial}"
        async with self.gate:
            body = await self.transport.connect(BotSpec(name, port=self.port, version=self.version))
        x, y, z = self.places[start]
        await self.admin.teleport(name, x + 0.5, y, z + 0.5)
        for item, n in give:
            await self.admin.command(f"/give {name} {item} {n}")
        await self._settle(body, (x + 0.5, y, z + 0.5), dict(give))
        return body

    async def _settle(self, body: Any, at: Vec, give: dict[str, int], within: float = 45.0) -> None:
        """Until the body stands at ``at`` holding ``give`` (the teleport and items arrived);
        the teleport is sent again every 5 s while the body is not there."""
        deadline = time.monotonic() + within
        resend = time.monotonic() + 5.0
        seen: Any = None
        while time.monotonic() < deadline:
            obs = await body.observe()
            p = obs.position
            seen = (p, obs.connected, {i: obs.inventory.get(i, 0) for i in give})
            here = p is not None and abs(p.x - at[0]) + abs(p.z - at[2]) < 2
            if here and all(obs.inventory.get(i, 0) >= n for i, n in give.items()):
                return
            if not here and time.monotonic() > resend:
                self.teleports_resent += 1
                await self.admin.teleport(body.name, *at)
                resend = time.monotonic() + 5.0
            await asyncio.sleep(0.2)
        raise RuntimeError(
            f"{body.name}: teleport/items did not arrive within {within} s"
            f" (wanted at {at} holding {give}; last seen at, connected, holding: {seen})"
        )

    async def round(self, scenario: Scenario, agents: int, tallies: dict[str, Tally]) -> None:
        await self.restore(scenario.start)
        receiver = None
        if scenario.receiver:
            receiver = await self.body(scenario.start, name=f"{RECEIVER}")
        try:
            bodies = await asyncio.gather(
                *(self.body(scenario.start, scenario.give) for _ in range(agents))
            )
            at = self.places[scenario.start]
            try:
                await asyncio.gather(*(self._chain(b, scenario, at, tallies) for b in bodies))
            finally:
                await asyncio.gather(*(b.close() for b in bodies), return_exceptions=True)
        finally:
            if receiver is not None:
                await receiver.close()

    async def _chain(
        self, body: Any, scenario: Scenario, at: Vec, tallies: dict[str, Tally]
    ) -> None:
        rng = random.Random(self.rng.random())
        for step in scenario.steps:
            outcome = await body.run_skill(step.call(rng, at))
            tallies.setdefault(step.label, Tally()).add(outcome)
            if not outcome.success:
                return

    async def climb(self, limit_s: float = 600.0, max_steps: int = 60) -> dict[str, Any]:
        """One body from the village centre to an iron ingot, the heuristic choosing each step."""
        body = await self.body("village_centre")
        t0 = time.monotonic()
        steps: list[dict[str, Any]] = []
        failed_in_row = 0
        try:
            while time.monotonic() - t0 < limit_s and len(steps) < max_steps:
                obs = await body.observe()
                if obs.inventory.get("iron_ingot", 0) > 0:
                    return _climb_result(True, t0, steps, "")
                seen: dict[str, float] = {}
                for b in obs.blocks:
                    seen[b.name] = min(seen.get(b.name, 1e9), b.distance)
                step = craft_step(CLIMB_TARGET, dict(obs.inventory), seen)
                if step is None:
                    return _climb_result(False, t0, steps, "no step towards an iron ingot")
                call = step.call.model_copy(update={"timeout": 120.0})
                block = str(call.args.get("block", ""))
                if call.skill == "collect" and block in GATHER_AT and block not in seen:
                    x, y, z = self.places[GATHER_AT[block]]
                    goto = SkillCall(
                        skill="go_to", args={"x": x, "y": y, "z": z, "range": 3.0}, timeout=120
                    )
                    steps.append(_step_record(await body.run_skill(goto)))
                outcome = await body.run_skill(call)
                steps.append(_step_record(outcome))
                failed_in_row = 0 if outcome.success else failed_in_row + 1
                if failed_in_row >= 3:
                    return _climb_result(False, t0, steps, outcome.reason)
            return _climb_result(False, t0, steps, "step or time limit")
        finally:
            await body.close()


def _step_record(o: SkillOutcome) -> dict[str, Any]:
    return {
        "skill": o.skill,
        "ok": o.success,
        "s": round(o.ended_at - o.started_at, 1),
        **({} if o.success else {"failure": failure_kind(o), "reason": o.reason[:80]}),
    }


def _climb_result(ok: bool, t0: float, steps: list[dict[str, Any]], why: str) -> dict[str, Any]:
    return {
        "success": ok,
        "time_s": round(time.monotonic() - t0, 1),
        "steps": len(steps),
        "failed_steps": sum(1 for s in steps if not s["ok"]),
        "why": why,
        "log": steps,
    }
