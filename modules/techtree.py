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


def craft_step(
    target: str, inv: dict[str, int], seen: dict[str, float], depth: int = 0
) -> Step | None:
    """The next step towards having one ``target`` (None if already held or unknown)."""
    if count_of(inv, target) > 0 or depth > 6:
        return None
    recipe = RECIPES.get(target)
    if recipe is None:
        return None
    if recipe.table and inv.get("crafting_table", 0) == 0 and "crafting_table" not in seen:
        sub = craft_step("crafting_table", inv, seen, depth + 1)
        if sub is not None:
            return sub
    for need, n in recipe.needs.items():
        if count_of(inv, need) >= n:
            continue
        if need == "planks":
            plank = planks_for(inv)
            log = plank.replace("_planks", "_log")
            if inv.get(log, 0) > 0:
                return _craft(plank)
            return _collect(_log_block(seen), 3, "for planks")
        if need in RECIPES:
            sub = craft_step(need, inv, seen, depth + 1)
            if sub is not None:
                return sub
            return _craft(need)
        if need == "cobblestone":
            if best_pickaxe_tier(inv) < 1:
                return craft_step("wooden_pickaxe", inv, seen, depth + 1) or _craft(
                    "wooden_pickaxe"
                )
            return _collect("stone", n - count_of(inv, need) + 1, "for cobblestone")
        if need == "iron_ingot":
            if inv.get("iron_ore", 0) > 0:
                if inv.get("furnace", 0) == 0 and "furnace" not in seen:
                    return craft_step("furnace", inv, seen, depth + 1)
                return Step(
                    "smelt iron ore",
                    SkillCall(skill="smelt", args={"item": "iron_ore", "count": 1}),
                )
            if best_pickaxe_tier(inv) < 2:
                return craft_step("stone_pickaxe", inv, seen, depth + 1)
            return _collect("iron_ore", 3, "for iron")
        if need == "wheat":
            return _collect("wheat", n, "from the farm")
        if need == "coal":
            if best_pickaxe_tier(inv) < 1:
                return craft_step("wooden_pickaxe", inv, seen, depth + 1)
            return _collect("coal_ore", 2, "for coal")
        return _collect(need, n, "")
    return _craft(target)


def adapt(call: SkillCall, inv: dict[str, int]) -> SkillCall:
    """A step planned before its logs were gathered ("any log"): craft the planks of the
    log kind actually held."""
    item = str(call.args.get("item", ""))
    if (
        call.skill == "craft"
        and item in PLANKS
        and inv.get(item.replace("_planks", "_log"), 0) == 0
    ):
        held = planks_for(inv)
        if inv.get(held.replace("_planks", "_log"), 0) > 0:
            return call.model_copy(update={"args": {**call.args, "item": held}})
    return call


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


def explore_step(inv: dict[str, int], seen: dict[str, float]) -> Step:
    """An explorer's next step from what it sees and holds: gather the nearest kind it has
    not got yet (when its tools allow), craft the next tool it can, else roam further."""
    tier = best_pickaxe_tier(inv)
    for block in sorted(seen, key=lambda b: seen[b]):
        gatherable = block in GATHERABLE or block.endswith(GATHERABLE_SUFFIXES)
        if gatherable and DROPS.get(block, block) not in inv and TOOL_TIER.get(block, 0) <= tier:
            return _collect(block, 2, "- something I have not got yet")
    for target in ("crafting_table", "wooden_pickaxe", "stone_pickaxe", "furnace"):
        step = craft_step(target, inv, seen)
        if step is not None and step.call.skill == "craft":
            return step
    return Step("explore the surroundings", SkillCall(skill="explore", args={"distance": 48}))


def next_step(kind: str, inv: dict[str, int], seen: dict[str, float]) -> Step:
    """The next concrete step of an activity (goal kind)."""
    logs = count_of(inv, "log")
    tier = best_pickaxe_tier(inv)
    if kind == "gather_wood":
        if logs >= 12:
            plank = planks_for(inv)
            return _craft(plank, 2)
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
        if inv.get("iron_ore", 0) > 0:
            return craft_step("iron_pickaxe", inv, seen) or Step(
                "smelt iron ore", SkillCall(skill="smelt", args={"item": "iron_ore", "count": 1})
            )
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
