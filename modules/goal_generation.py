"""Goal generation: the agent's social goal, regenerated every 5-10 s.

Inputs, as in the paper: name, community goal, traits, what others are doing
(from social awareness), the current goal and the inventory. The current goal
is kept unless it is done or there is none (or, rarely, when the village
clearly needs something else). Every change is appended to the goal history,
from which experiments infer roles.

The heuristic policy scores activities by how well they fit the community goal
and traits, and - when social information is available - favours activities few
others are doing (the division of labour that social awareness makes possible).
"""

from __future__ import annotations

import time
from collections import Counter
from typing import Any, ClassVar

from pydantic import BaseModel, Field

from agent_runtime.interfaces import Module
from agent_runtime.module_context import ModuleContext
from agent_runtime.state.sections import GoalEntry, Goals, Identity, Perception, Social
from modules.base import remember
from modules.brain import choose
from modules.knowledge import ACTIVITIES, KEYWORDS, count_of

HISTORY = 200
ACTIVITY_WORDS = {k: v[0] for k, v in ACTIVITIES.items()}


class GoalOut(BaseModel):
    goal: str = Field(max_length=200, description="your social goal, one sentence")
    kind: str = Field(description="closest activity: " + ", ".join(ACTIVITIES))
    keep_current: bool = False
    reason: str = Field(default="", max_length=200)


def classify_activity(text: str) -> str:
    """Map free text (a goal or someone's activity) to an activity kind."""
    low = text.lower()
    best, score = "socialize", 0
    for kind, words in KEYWORDS.items():
        s = sum(1 for w in words if w in low)
        if kind.replace("_", " ") in low:
            s += 3
        if s > score:
            best, score = kind, s
    for kind, (desc, role) in ACTIVITIES.items():
        if desc in low or role in low:
            return kind
    return best


def goal_done(kind: str, inv: dict[str, int], started_inv: dict[str, int]) -> bool:
    gained = {k: inv.get(k, 0) - started_inv.get(k, 0) for k in inv}
    if kind == "gather_wood":
        return count_of(inv, "log") - count_of(started_inv, "log") >= 16
    if kind == "mine":
        return gained.get("cobblestone", 0) >= 16 or gained.get("iron_ore", 0) >= 3
    if kind == "farm":
        return gained.get("wheat", 0) + gained.get("bread", 0) >= 6
    if kind == "craft_tools":
        return inv.get("stone_pickaxe", 0) > 0 and inv.get("furnace", 0) > 0
    if kind == "smelt":
        return gained.get("iron_ingot", 0) >= 3
    return False


class GoalGeneration(Module):
    name: ClassVar[str] = "goal_generation"
    reads: ClassVar[frozenset[str]] = frozenset({"identity", "goals", "social", "perception"})
    writes: ClassVar[frozenset[str]] = frozenset({"goals"})

    def __init__(
        self, schedule: Any, *, use_social: bool = True, kinds: tuple[str, ...] = ()
    ) -> None:
        super().__init__(schedule)
        self.use_social = use_social
        unknown = [k for k in kinds if k not in ACTIVITIES]
        if unknown:
            raise ValueError(f"goal_generation.options.kinds: unknown activities {unknown}")
        self.kinds = kinds  # restrict the heuristic's choice (experiments); () = all
        self._started_inv: dict[str, int] = {}
        self._since = 0.0

    def get_state(self) -> dict[str, Any]:
        return {"started_inv": self._started_inv, "since": self._since}

    def set_state(self, state: Any) -> None:
        self._started_inv = dict(state.get("started_inv", {}))
        self._since = float(state.get("since", 0.0))

    def heuristic(
        self,
        ctx: ModuleContext,
        ident: Identity,
        goals: Goals,
        others: Counter[str],
        inv: dict[str, int],
    ) -> GoalOut:
        rng = ctx.rng
        if (
            goals.current
            and not goal_done(goals.kind, inv, self._started_inv)
            and rng.random() > 0.08
        ):
            return GoalOut(
                goal=goals.current, kind=goals.kind, keep_current=True, reason="not done yet"
            )
        text = (ident.community_goal + " " + " ".join(ident.traits)).lower()
        kinds = list(self.kinds) or [k for k in ACTIVITIES if k != "pay_tax"]
        weights = []
        total_others = sum(others.values())
        for k in kinds:
            w = 1.0 + 2.0 * sum(1 for word in KEYWORDS.get(k, ()) if word in text)
            if total_others:
                share = others.get(k, 0) / total_others
                w *= 1.5 - share  # complementary: favour what few others are doing
            if k == goals.kind and len(kinds) > 1:
                w *= 0.5  # a finished goal is less attractive right away
            weights.append(max(0.05, w))
        kind = rng.choices(kinds, weights=weights, k=1)[0]
        desc = ACTIVITIES[kind][0]
        return GoalOut(
            goal=desc[0].upper() + desc[1:],
            kind=kind,
            reason="fits the community goal"
            + (" and what others are not doing" if total_others else ""),
        )

    async def step(self, ctx: ModuleContext) -> None:
        ident = ctx.read("identity", Identity)
        goals = ctx.read("goals", Goals)
        inv = dict(ctx.read("perception", Perception).observation.inventory)
        others: Counter[str] = Counter()
        summary = ""
        if self.use_social:
            people = ctx.read("social", Social).people
            for p in people.values():
                if p.activity:
                    others[classify_activity(p.activity)] += 1
            summary = "; ".join(f"{p.name}: {p.activity}" for p in people.values() if p.activity)

        def heuristic() -> GoalOut:
            return self.heuristic(ctx, ident, goals, others, inv)

        out, brain = await choose(
            ctx,
            "goal_generation",
            GoalOut,
            {
                "name": ident.name,
                "community_goal": ident.community_goal,
                "traits": " ".join(ident.traits) or "(none)",
                "others": summary or "(you do not know what others are doing)",
                "current_goal": goals.current or "(none)",
                "inventory": ", ".join(f"{k} x{v}" for k, v in inv.items()) or "empty",
                "activities": ", ".join(ACTIVITIES),
            },
            heuristic,
            max_tokens=150,
        )
        kind = out.kind if out.kind in ACTIVITIES else classify_activity(out.goal)
        now = time.time()
        if out.keep_current and goals.current:
            # the history records every regeneration, kept or changed (roles use the last 5)
            entry = GoalEntry(goal=goals.current, at=now, brain=brain, reason="kept: " + out.reason)
            ctx.write(
                "goals",
                goals.model_copy(
                    update={"history": (*goals.history[-(HISTORY - 1) :], entry), "updated_at": now}
                ),
            )
            return
        entry = GoalEntry(goal=out.goal, at=now, brain=brain, reason=out.reason)
        ctx.write(
            "goals",
            Goals(
                current=out.goal,
                kind=kind,
                brain=brain,
                updated_at=now,
                history=(*goals.history[-(HISTORY - 1) :], entry),
            ),
        )
        self._started_inv = inv
        self._since = now
        await ctx.publish(
            "goal", {"goal": out.goal, "kind": kind, "previous": goals.current, "brain": brain}
        )
        ctx.emit("goal", goal=out.goal, kind=kind, previous=goals.current, brain=brain)
        remember(ctx, f"My goal now: {out.goal}.", "plan", importance=5)
