"""A lone explorer's modules in a scripted toy world (``toy_world.py``, no Minecraft): it
keeps doing useful things for 30 minutes of its own time, climbing the tech tree from what
it holds and sees, and does not idle.

Before issue 18's fix the same agent idled: a craft the body answered with fewer items than
the heuristics expected ("craft oak_planks count 2": one craft of 4, expected 8) counted as
a failure, and a short ingredient ("missing ingredients: 1 oak_planks" with one stick held
of two) was asked for again; four such in a row and the controller paused 10 s, over and
over. And every failed observation (a loaded bridge) was met with a 5-s idle skill.
"""

from __future__ import annotations

import itertools
from collections import Counter

import pytest

from tests.modules.toy_world import Run, run_agent

HALF_HOUR = 1800.0


def _failing_streak(run: Run) -> int:
    """The most times in a row the body was asked the same thing and refused it."""
    best, streak, last = 0, 0, None
    for e in run.events:
        if e["type"] != "skill_outcome":
            continue
        key = str(e.get("call"))
        streak = streak + 1 if not e.get("success") and key == last else int(not e.get("success"))
        last = key if not e.get("success") else None
        best = max(best, streak)
    return best


def _paused(run: Run) -> list[dict[str, object]]:
    """Idle skills decided because actions failed."""
    return [
        e
        for e in run.events
        if e["type"] == "decision" and e.get("kind") == "recover" and "idle" in str(e.get("skill"))
    ]


def _repeated_crafts(run: Run) -> int:
    """Crafts of a table or furnace right after the same craft succeeded (one was enough)."""
    calls = [(e["call"], e["success"]) for e in run.events if e["type"] == "skill_outcome"]
    return sum(
        1
        for (a, ok), (b, _) in itertools.pairwise(calls)
        if ok and a == b and str(a).count("crafting_table") + str(a).count("furnace") > 0
    )


@pytest.mark.parametrize("seed", [0, 1, 2])
async def test_a_lone_explorer_climbs_the_tech_tree_without_idling(seed: int) -> None:
    run = await run_agent(HALF_HOUR, seed=seed)
    assert run.share("idle") <= 0.03, run.skills  # the day plan's rest: a few looks around
    assert not _paused(run)
    assert _failing_streak(run) <= 2
    assert _repeated_crafts(run) == 0
    got = set(run.body.acquired)
    climbed = {"crafting_table", "wooden_pickaxe", "cobblestone", "stone_pickaxe", "furnace"}
    assert climbed <= got, sorted(got)
    assert {"coal", "iron_ore", "iron_ingot"} <= got, sorted(got)  # all of them were in sight
    assert run.unique >= 18, sorted(got)
    kinds = Counter(run.goals)
    assert not {"guard", "socialize", "trade"} & set(kinds), kinds  # nobody to do them with


async def test_a_failed_observation_is_waited_out_without_an_idle_skill() -> None:
    """A fifth of the bridge calls time out (a loaded machine): the agent decides nothing
    while it perceives nothing, then goes on from what it perceives again."""
    run = await run_agent(HALF_HOUR, seed=0, flaky=0.2)
    assert run.share("idle") <= 0.03, run.skills
    waits = [e for e in run.events if e["type"] == "decision" and e.get("kind") == "wait"]
    assert not waits  # nothing to publish: no skill, nothing to say
    assert run.unique >= 15, sorted(run.body.acquired)
