"""Scheduling figures: each module runner's counters (:class:`ModuleStats`) and the
village-wide ones (:class:`SchedulerMetrics`: lag reservoir, per-module totals, last steps)."""

from __future__ import annotations

import random
from collections import defaultdict
from dataclasses import dataclass, field

__all__ = ["ModuleStats", "SchedulerMetrics"]


@dataclass
class ModuleStats:
    steps: int = 0
    errors: int = 0
    restarts: int = 0
    triggered: int = 0
    timed: int = 0  # steps started because the cadence came due
    overruns: int = 0  # due steps that started late because the previous step ran over
    busy_s: float = 0.0
    llm_calls: int = 0
    fallbacks: int = 0


@dataclass
class SchedulerMetrics:
    """Village-wide scheduling figures (lag reservoir, per-module stats)."""

    max_samples: int = 200_000
    lags_ms: list[float] = field(default_factory=list)
    seen: int = 0
    stats: dict[str, list[ModuleStats]] = field(default_factory=lambda: defaultdict(list))
    expected_interval: dict[str, float] = field(default_factory=dict)
    #: (agent, module) -> wall time its last step ended (see agent_runtime/run/responsiveness.py)
    last_step: dict[tuple[str, str], float] = field(default_factory=dict)
    _rng: random.Random = field(default_factory=lambda: random.Random(0))

    def record_lag(self, lag_s: float) -> None:
        self.seen += 1
        v = max(0.0, lag_s * 1000.0)
        if len(self.lags_ms) < self.max_samples:
            self.lags_ms.append(v)
        else:  # reservoir sampling keeps a uniform sample
            j = self._rng.randrange(self.seen)
            if j < self.max_samples:
                self.lags_ms[j] = v

    def reset_lags(self) -> None:
        self.lags_ms.clear()
        self.seen = 0

    def module_totals(self) -> dict[str, dict[str, float]]:
        out: dict[str, dict[str, float]] = {}
        for name, lst in self.stats.items():
            out[name] = {
                "agents": len(lst),
                "steps": sum(s.steps for s in lst),
                "errors": sum(s.errors for s in lst),
                "restarts": sum(s.restarts for s in lst),
                "triggered": sum(s.triggered for s in lst),
                "timed": sum(s.timed for s in lst),
                "overruns": sum(s.overruns for s in lst),
                "busy_s": round(sum(s.busy_s for s in lst), 3),
                "llm_calls": sum(s.llm_calls for s in lst),
                "fallbacks": sum(s.fallbacks for s in lst),
            }
        return out
