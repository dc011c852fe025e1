"""Heuristic step selection: the next skill that advances an activity, given the inventory.

Used by the controller's heuristic policy and by the heuristic planner. It walks
the tech tree backwards (a wooden pickaxe needs sticks and planks, planks need
logs, ...) and returns the first step whose prerequisites are met.
"""

from __future__ import annotations

from dataclasses import dataclass

from agent_runtime.world import SkillCall
from modules.knowledge import (
    DROPS,
    LOGS,
    PLANKS,
    RECIPES,
    TOOL_TIER,
    best_pickaxe_tier,
    count_of,
    counts_as,
    planks_for,
)


@dataclass(frozen=True)
class Step:
    text: str
    call: SkillCall


def _collect(block: str, n: int, why: str) -> Step:
    return Step(
        f"collect {n} {block.replace('_', ' ')} {why}".strip(),
        SkillCall(skill="collect", args={"block": block, "count": n}),
    )


def _craft(item: str, n: int = 1) -> Step:
    return Step(
        f"craft {item.replace('_', ' ')}", SkillCall(skill="craft", args={"item": item, "count": n})
    )


def _log_block(seen_blocks: dict[str, float]) -> str:
    """The nearest log kind in sight, else "log": any log will do for planks and sticks."""
    logs = [b for b in seen_blocks if b in LOGS]
    return min(logs, key=lambda b: seen_blocks[b]) if logs else "log"


#: what a furnace turns into an iron ingot: iron ore's drop, the ore block itself up to 1.16
#: and ``raw_iron`` from 1.17 on (minecraft-data, ``knowledge.counts_as``); the agent smelts
#: whichever it holds (no version flag: it reads its own inventory)
IRON_TO_SMELT = counts_as("iron_ore")


def iron_held(inv: dict[str, int]) -> str | None:
    """The iron to smelt the agent holds (the first kind of :data:`IRON_TO_SMELT` held)."""
    return next((item for item in IRON_TO_SMELT if inv.get(item, 0) > 0), None)


def _planks_of_held_log(inv: dict[str, int]) -> str | None:
    """The planks the logs held make (the first kind held), None without logs."""
    return next((p for log, p in zip(LOGS, PLANKS, strict=True) if inv.get(log, 0) > 0), None)


def craft_step(
    target: str, inv: dict[str, int], seen: dict[str, float], depth: int = 0, count: int = 1
) -> Step | None:
    """The next step towards having ``count`` of ``target`` (None if already held or
    unknown)."""
    if count_of(inv, target) >= count or depth > 6:
        return None
    recipe = RECIPES.get(target)
    if recipe is None:
        return None
    if (
        recipe.table
        and inv.get("crafting_table", 0) == 0
        and not station_near(seen, "crafting_table")
    ):
        sub = craft_step("crafting_table", inv, seen, depth + 1)
        if sub is not None:
            return sub
    for need, n in recipe.needs.items():
        if count_of(inv, need) < n:
            return need_step(need, n, inv, seen, depth + 1)
    return _craft(target)


def need_step(
    need: str, n: int, inv: dict[str, int], seen: dict[str, float], depth: int = 0
) -> Step:
    """The next step towards holding ``n`` of ``need`` (an ingredient, or a block's drop)."""
    have = count_of(inv, need)
    tier = best_pickaxe_tier(inv)
    if need == "planks" or need in PLANKS:
        plank = _planks_of_held_log(inv)
        if plank is not None:
            return _craft(plank)
        return _collect(_log_block(seen), 3, "for planks")
    if need == "log" or need in LOGS:
        return _collect(need if need in seen else _log_block(seen), max(1, n - have), "")
    if need in RECIPES:
        return craft_step(need, inv, seen, depth + 1, count=n) or _craft(need)
    if need == "cobblestone":
        if tier < 1:
            return craft_step("wooden_pickaxe", inv, seen, depth + 1) or _craft("wooden_pickaxe")
        return _collect("stone", n - have + 1, "for cobblestone")
    if need == "iron_ingot":
        iron = iron_held(inv)
        if iron is not None:
            return smelt_step(iron, inv, seen)
        if tier < 2:
            return craft_step("stone_pickaxe", inv, seen, depth + 1) or _craft("stone_pickaxe")
        return _collect("iron_ore", n - have, "for iron")
    if need == "wheat":
        return _collect("wheat", n, "from the farm")
    if need == "coal":
        if tier < 1:
            return craft_step("wooden_pickaxe", inv, seen, depth + 1) or _craft("wooden_pickaxe")
        return _collect("coal_ore", 2, "for coal")
    return _collect(need, max(1, n - have), "")


def fuel_step(inv: dict[str, int], seen: dict[str, float]) -> Step:
    """Something to burn: coal when coal ore is in sight and a pickaxe held, else logs."""
    if "coal_ore" in seen and best_pickaxe_tier(inv) >= 1:
        return _collect("coal_ore", 2, "for fuel")
    return _collect(_log_block(seen), 2, "for fuel")


def adapt(call: SkillCall, inv: dict[str, int]) -> SkillCall:
    """A step planned before its logs were gathered ("any log"): craft the planks of the
    log kind actually held; a smelt planned for more ore than was gathered: what is held."""
    item = str(call.args.get("item", ""))
    count = call.args.get("count")
    if call.skill == "smelt" and isinstance(count, int) and 0 < inv.get(item, 0) < count:
        return call.model_copy(update={"args": {**call.args, "count": inv[item]}})
    if (
        call.skill == "craft"
        and item in PLANKS
        and inv.get(item.replace("_planks", "_log"), 0) == 0
    ):
        held = planks_for(inv)
        if inv.get(held.replace("_planks", "_log"), 0) > 0:
            return call.model_copy(update={"args": {**call.args, "item": held}})
    return call


def step_done(
    planned: SkillCall | None, done: SkillCall, success: bool | None, ended_at: float, plan_at: float
) -> bool:
    """The plan step ``planned`` is done: ``done`` carried it out, succeeded, and ended after the
    plan was last written (``plan_at``). Planning marks the step done by this rule; the
    controller looks ahead by it before planning has."""
    return (
        planned is not None and bool(success) and same_step(planned, done) and ended_at > plan_at
    )


def same_step(planned: SkillCall, done: SkillCall) -> bool:
    """``done`` carried out ``planned`` (also when :func:`adapt` changed the planks kind)."""
    if planned == done:
        return True
    p, d = planned.args, done.args
    return (
        planned.skill == done.skill == "craft"
        and str(p.get("item")) in PLANKS
        and str(d.get("item")) in PLANKS
        and p.get("count") == d.get("count")
    )


#: blocks in sight an explorer may gather (what it sees, not a role table)
GATHERABLE_SUFFIXES = ("_log", "_ore")
GATHERABLE = frozenset(
    {"wheat", "carrots", "potatoes", "beetroots", "melon", "pumpkin", "sugar_cane"}
)
#: the tech tree an explorer climbs, lowest rung first; each rung needs the ones before it
LADDER = (
    "crafting_table",
    "wooden_pickaxe",
    "stone_pickaxe",
    "furnace",
    "iron_ingot",
    "iron_pickaxe",
)
#: what the body burns in a furnace (``bots/body/skills/smelt.js``): items smelted by one
FUELS: dict[str, float] = {"coal": 8.0, "charcoal": 8.0, **dict.fromkeys((*PLANKS, *LOGS), 1.5)}
#: blocks that stand in the world once placed (a crafting table or furnace nearby serves)
STATIONS = frozenset({"crafting_table", "furnace"})
#: how far the body's craft and smelt skills look for a table or furnace
#: (``bots/body/skills/craft.js``, ``lib/container.js``): one seen farther away does not serve
STATION_RADIUS = 32.0


def station_near(seen: dict[str, float], station: str) -> bool:
    """A placed ``station`` in sight close enough for the skills to use it."""
    return seen.get(station, float("inf")) <= STATION_RADIUS


_EXPLORE = Step("explore the surroundings", SkillCall(skill="explore", args={"distance": 48}))


def smelt_step(item: str, inv: dict[str, int], seen: dict[str, float]) -> Step:
    """The next step towards smelting the ``item`` held: a furnace (held or in sight), some
    fuel, then the smelt."""
    if inv.get("furnace", 0) == 0 and not station_near(seen, "furnace"):
        return craft_step("furnace", inv, seen) or _craft("furnace")
    held = {f: v for f, v in FUELS.items() if f != item and inv.get(f, 0) > 0}
    best = max(held.values(), default=0.0)  # the body burns the best fuel it holds
    burns = min((int(inv[f] * v) for f, v in held.items() if v == best), default=0)
    if burns < 1:
        return fuel_step(inv, seen)
    n = max(1, min(inv.get(item, 0), burns, 8))
    return Step(
        f"smelt {item.replace('_', ' ')}", SkillCall(skill="smelt", args={"item": item, "count": n})
    )


def climb_step(inv: dict[str, int], seen: dict[str, float]) -> Step | None:
    """The next step up :data:`LADDER` from the highest rung held (a placed station in
    sight counts as held); None at the top, or when the next rung needs what the agent
    neither holds nor sees (iron ore for an ingot)."""

    def held(rung: str) -> bool:
        return count_of(inv, rung) > 0 or (rung in STATIONS and station_near(seen, rung))

    top = max((i for i, rung in enumerate(LADDER) if held(rung)), default=-1)
    if top + 1 >= len(LADDER):
        return None
    target = LADDER[top + 1]
    if target != "iron_ingot":
        return craft_step(target, inv, seen)
    iron = iron_held(inv)
    if iron is not None:
        return smelt_step(iron, inv, seen)
    if best_pickaxe_tier(inv) >= 2 and "iron_ore" in seen:
        return _collect("iron_ore", 3, "to smelt")
    return None


def _new_in_sight(inv: dict[str, int], seen: dict[str, float]) -> Step | None:
    """The nearest kind in sight it does not hold and its tools can harvest."""
    tier = best_pickaxe_tier(inv)
    for block in sorted(seen, key=lambda b: seen[b]):
        gatherable = block in GATHERABLE or block.endswith(GATHERABLE_SUFFIXES)
        got = any(d in inv for d in counts_as(DROPS.get(block, block)))
        if gatherable and not got and TOOL_TIER.get(block, 0) <= tier:
            return _collect(block, 2, "- something I have not got yet")
    return None


def _new_craft(inv: dict[str, int], seen: dict[str, float]) -> Step | None:
    """A kind of item it does not hold and can craft right now from what it holds."""
    table = inv.get("crafting_table", 0) > 0 or station_near(seen, "crafting_table")
    for item, recipe in RECIPES.items():
        if item in inv or item in PLANKS or item in LADDER or (recipe.table and not table):
            continue
        if all(count_of(inv, need) >= n for need, n in recipe.needs.items()):
            return _craft(item)
    return None


def explore_step(inv: dict[str, int], seen: dict[str, float]) -> Step:
    """An explorer's next step from what it holds and sees: the next rung of the tech tree
    when it can craft or smelt it now, else the nearest kind in sight it does not hold (when
    its tools allow), else a new kind it can craft now, else what the next rung needs from
    the world (wood, stone, ore), else roam further."""
    climb = climb_step(inv, seen)
    if climb is not None and climb.call.skill in ("craft", "smelt"):
        return climb
    return _new_in_sight(inv, seen) or _new_craft(inv, seen) or climb or _EXPLORE


def next_step(kind: str, inv: dict[str, int], seen: dict[str, float]) -> Step:
    """The next concrete step of an activity (goal kind)."""
    logs = count_of(inv, "log")
    tier = best_pickaxe_tier(inv)
    if kind == "gather_wood":
        plank = _planks_of_held_log(inv)
        if logs >= 12 and plank is not None and count_of(inv, "planks") < 8:
            return _craft(plank)  # some planks to build with; logs are the goal
        return _collect(_log_block(seen), 4, "from the forest")
    if kind == "craft_tools":
        for target in ("wooden_pickaxe", "wooden_axe", "stone_pickaxe", "stone_sword", "furnace"):
            step = craft_step(target, inv, seen)
            if step is not None:
                return step
        return _collect("stone", 4, "for more tools")
    if kind == "mine":
        if tier < 1:
            return craft_step("wooden_pickaxe", inv, seen) or _craft("wooden_pickaxe")
        if tier >= 2 and "iron_ore" in seen:
            return _collect("iron_ore", 2, "in the hills")
        if tier >= 1 and "coal_ore" in seen and inv.get("coal", 0) < 4:
            return _collect("coal_ore", 2, "in the hills")
        if tier < 2 and count_of(inv, "cobblestone") >= 3:
            return craft_step("stone_pickaxe", inv, seen) or _collect("stone", 4, "in the hills")
        return _collect("stone", 4, "in the hills")
    if kind == "smelt":
        iron = iron_held(inv)
        if iron is not None:
            return craft_step("iron_pickaxe", inv, seen) or smelt_step(iron, inv, seen)
        return next_step("mine", inv, seen)
    if kind == "farm":
        if inv.get("wheat", 0) >= 3:
            return craft_step("bread", inv, seen) or _craft("bread")
        return _collect("wheat", 3, "at the farm")
    if kind == "build":
        if logs < 6:
            return _collect(_log_block(seen), 4, "for building")
        if tier >= 1:
            return _collect("stone", 4, "for building")
        return craft_step("wooden_pickaxe", inv, seen) or _collect("stone", 4, "")
    if kind == "art":
        if logs < 4:
            return _collect(
                "birch_log" if "birch_log" in seen else _log_block(seen), 4, "for decorations"
            )
        return Step(
            "explore for beautiful materials", SkillCall(skill="explore", args={"distance": 40})
        )
    if kind == "explore":
        return explore_step(inv, seen)
    if kind == "guard":
        return Step("keep watch", SkillCall(skill="idle", args={"seconds": 10}))
    return Step("take a short rest", SkillCall(skill="idle", args={"seconds": 5}))
