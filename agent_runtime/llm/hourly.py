"""A village-wide spending rate: ``llm.budget.max_usd_per_hour``.

:class:`HourlyBudget` is a bucket of dollars that refills at ``max_usd_per_hour`` / 3600
per second and holds at most ``burst_s`` seconds of it (default 5 minutes); it starts full
and every call's cost is taken out of it. While it runs low, calls are shed to the heuristic
before they are sent (:class:`~agent_runtime.llm.errors.LLMShed`, reason ``budget``), the
least needed first, one tier more at each fifth of the bucket:

====================  =================================================================
bucket below          shed (their heuristic decides)
====================  =================================================================
80%                   reflection
60%                   + importance ratings and other low-priority calls
40%                   + goals, plans, social summaries (normal priority)
20%                   + talking and other high-priority calls except the controller
empty                 + the cognitive controller (only once nothing else is left to shed)
====================  =================================================================

Every change of tier is said: a warning line in the log, an ``llm_budget`` event (through
``on_change``) and the counts in ``snapshot()`` (metrics.json ``llm.budget.per_hour``).
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from agent_runtime.checks import require_positive
from agent_runtime.clock import wall_time
from agent_runtime.llm.errors import LLMShed
from agent_runtime.llm.priority import Priority, SchedulingPolicy

__all__ = ["TIERS", "HourlyBudget"]

logger = logging.getLogger(__name__)

#: (name, share of the bucket below which it is shed), least needed first
TIERS: tuple[tuple[str, float], ...] = (
    ("reflection", 0.8),
    ("importance and other low-priority calls", 0.6),
    ("goals, plans and social summaries", 0.4),
    ("talking", 0.2),
    ("the cognitive controller", 0.0),
)
CONTROLLER_TIER = len(TIERS) - 1

Listener = Callable[[dict[str, Any]], object]


class HourlyBudget:
    def __init__(
        self,
        max_usd_per_hour: float,
        *,
        burst_s: float = 300.0,
        policy: SchedulingPolicy | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        require_positive(max_usd_per_hour=max_usd_per_hour, burst_s=burst_s)
        self.max_usd_per_hour = max_usd_per_hour
        self.rate_per_s = max_usd_per_hour / 3600.0
        self.capacity = self.rate_per_s * burst_s
        self.policy = policy if policy is not None else SchedulingPolicy()
        self._clock = clock
        self._level = self.capacity
        self._stamp = clock()
        self.spent_usd = 0.0
        self.shedding = 0  # tiers shed now (0: none)
        self.shed: Counter[str] = Counter()  # module -> calls shed for the budget
        self.changes: list[dict[str, Any]] = []
        self.listeners: list[Listener] = []

    def tier(self, module: str) -> int:
        """The module's place in the shedding order (0 = shed first)."""
        name = module.lower()
        if "controller" in name:
            return CONTROLLER_TIER
        if "reflect" in name:
            return 0
        return {Priority.LOW: 1, Priority.NORMAL: 2, Priority.HIGH: 3}[self.policy.priority(module)]

    @property
    def level(self) -> float:
        now = self._clock()
        self._level = min(self.capacity, self._level + (now - self._stamp) * self.rate_per_s)
        self._stamp = now
        return self._level

    def _update(self) -> int:
        share = self.level / self.capacity
        tiers = sum(1 for _, below in TIERS[:CONTROLLER_TIER] if share < below)
        if share <= 0.0:
            tiers = len(TIERS)
        if tiers != self.shedding:
            self._announce(self.shedding, tiers, share)
            self.shedding = tiers
        return tiers

    def _announce(self, old: int, new: int, share: float) -> None:
        names = [name for name, _ in TIERS[:new]]
        change = {
            "at": round(wall_time(), 3),
            "max_usd_per_hour": self.max_usd_per_hour,
            "bucket_share": round(max(0.0, share), 3),
            "shedding": names,
        }
        self.changes.append(change)
        if new > old:
            logger.warning(
                "LLM budget %.2f USD/hour: spending too fast (%.0f%% of the budget's bucket "
                "left); the heuristic decides for %s until it recovers",
                self.max_usd_per_hour,
                max(0.0, share) * 100,
                ", ".join(names),
            )
        else:
            logger.warning(
                "LLM budget %.2f USD/hour: recovering; %s",
                self.max_usd_per_hour,
                "still shedding " + ", ".join(names) if names else "nothing shed any more",
            )
        for listener in self.listeners:
            listener(change)

    def check(self, module: str) -> None:
        """Raise :class:`LLMShed` (reason ``budget``) when the module's tier is shed now."""
        if self.tier(module) < self._update():
            self.shed[module] += 1
            raise LLMShed(
                f"LLM budget {self.max_usd_per_hour:g} USD/hour: {module} is shed while "
                "spending runs ahead of it",
                reason="budget",
                priority=self.policy.priority(module).label,
                waited_s=0.0,
            )

    def charge(self, usd: float) -> None:
        if usd <= 0:
            return
        self.level  # noqa: B018 (refill up to now first)
        self._level -= usd
        self.spent_usd += usd
        self._update()

    def snapshot(self) -> dict[str, Any]:
        return {
            "max_usd_per_hour": self.max_usd_per_hour,
            "spent_usd": round(self.spent_usd, 6),
            "bucket_share": round(max(0.0, self.level) / self.capacity, 4),
            "shedding": [name for name, _ in TIERS[: self.shedding]],
            "shed_calls": dict(sorted(self.shed.items())),
            "changes": self.changes[-50:],
            "change_count": len(self.changes),
        }
