"""Action awareness: expected vs observed outcome of every skill.

When a skill starts it records what should change (e.g. collect 3 oak_log ->
+3 oak_log) and the inventory at that moment; when it finishes it compares
with the inventory the body now reports (and the outcome's own delta) and
writes any discrepancy into the ``awareness`` section and working memory, so
the controller does not believe in progress that did not happen.
"""

from __future__ import annotations

from typing import Any, ClassVar

from agent_runtime.bus.messages import SKILL
from agent_runtime.module import Module
from agent_runtime.module_context import ModuleContext
from agent_runtime.state.sections import Awareness, Discrepancy, Perception
from agent_runtime.world import SkillOutcome
from modules.base import appended, remember
from modules.knowledge import FAMILIES, counts_as, expected_gain

LIMIT = 20


def observed_of(item: str, observed: dict[str, int]) -> int:
    """The observed change of ``item``, where a family ("log", "planks") sums its members and
    an ore's drop counts the raw metal it drops at other versions (``knowledge.counts_as``)."""
    if item in FAMILIES:
        return sum(v for k, v in observed.items() if k.endswith(f"_{item}"))
    return sum(observed.get(k, 0) for k in counts_as(item))


def compare(expected: dict[str, int], observed: dict[str, int]) -> dict[str, tuple[int, int]]:
    """Items whose observed change falls short of (or contradicts) the expectation."""
    out = {}
    for item, exp in expected.items():
        got = observed_of(item, observed)
        if (exp > 0 and got < exp) or (exp < 0 and got > exp):
            out[item] = (exp, got)
    return out


def describe(
    skill: str, args: dict[str, Any], gaps: dict[str, tuple[int, int]], reason: str
) -> str:
    what = f"{skill} " + " ".join(str(v) for v in args.values())
    parts = []
    for item, (exp, got) in gaps.items():
        parts.append(f"expected {exp:+d} {item}, observed {got:+d}")
    text = f"Tried to {what.strip()}: " + "; ".join(parts)
    if reason:
        text += f" ({reason})"
    return text


class ActionAwareness(Module):
    name: ClassVar[str] = "action_awareness"
    reads: ClassVar[frozenset[str]] = frozenset({"perception", "awareness"})
    writes: ClassVar[frozenset[str]] = frozenset({"awareness"})

    def __init__(self, schedule: Any) -> None:
        super().__init__(schedule)
        self._before: dict[str, dict[str, int]] = {}
        self.checks = 0
        self.mismatches = 0

    def get_state(self) -> dict[str, Any]:
        return {"checks": self.checks, "mismatches": self.mismatches}

    def set_state(self, state: Any) -> None:
        self.checks = int(state.get("checks", 0))
        self.mismatches = int(state.get("mismatches", 0))

    async def step(self, ctx: ModuleContext) -> None:
        for ev in ctx.pending(SKILL):
            skill, args, decision = ev.call.skill, dict(ev.call.args), ev.decision
            inv = dict(ctx.read("perception", Perception).observation.inventory)
            if ev.event == "started":
                self._before[decision] = inv
                aw = ctx.read("awareness", Awareness)
                ctx.write(
                    "awareness",
                    aw.model_copy(
                        update={
                            "expected": expected_gain(skill, args),
                            "expected_for": decision,
                            "updated_at": ctx.clock.now(),
                        }
                    ),
                )
            else:
                self._finish(ctx, decision, skill, args, inv, ev.outcome)

    def _finish(
        self,
        ctx: ModuleContext,
        decision: str,
        skill: str,
        args: dict[str, Any],
        inv_after: dict[str, int],
        outcome: SkillOutcome | None,
    ) -> None:
        expected = expected_gain(skill, args)
        before = self._before.pop(decision, None)
        observed: dict[str, int] = dict(outcome.inventory_delta) if outcome else {}
        if before is not None and not observed:
            keys = set(before) | set(inv_after)
            observed = {
                k: inv_after.get(k, 0) - before.get(k, 0)
                for k in keys
                if inv_after.get(k, 0) != before.get(k, 0)
            }
        self.checks += 1
        gaps = compare(expected, observed)
        aw = ctx.read("awareness", Awareness)
        if not gaps and (outcome is None or outcome.success):
            ctx.write(
                "awareness",
                aw.model_copy(
                    update={
                        "last_check": f"{skill}: as expected",
                        "expected": {},
                        "updated_at": ctx.clock.now(),
                    }
                ),
            )
            return
        self.mismatches += 1
        reason = outcome.reason if outcome is not None else ""
        if not gaps and outcome is not None and not outcome.success:
            note = f"Tried to {skill}: it failed ({reason}); nothing changed as hoped"
        else:
            note = describe(skill, args, gaps, reason)
        d = Discrepancy(
            skill=skill, expected=expected, observed=observed, note=note, at=ctx.clock.now()
        )
        ctx.write(
            "awareness",
            aw.model_copy(
                update={
                    "discrepancies": appended(aw.discrepancies, d, LIMIT),
                    "last_check": note,
                    "expected": {},
                    "updated_at": ctx.clock.now(),
                }
            ),
        )
        ctx.emit("discrepancy", skill=skill, expected=expected, observed=observed, note=note)
        remember(ctx, note + ".", "observation", importance=4)
