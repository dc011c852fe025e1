"""What the run's reports read from a running village (:class:`RunningVillage`), as a type.

``metrics.json`` (:mod:`agent_runtime.app.metrics`) and the progress records
(:mod:`agent_runtime.app.progress`) read a village's parts; the village calls them. They name
the parts through this protocol instead of importing :class:`~agent_runtime.app.village.Village`
back, so the imports run one way (village -> metrics, progress -> this).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from agent_runtime.agent_services import AgentServices
from agent_runtime.config.loader import ResolvedAgent
from agent_runtime.interfaces import Bus
from agent_runtime.run.coherence import CoherenceTracker
from agent_runtime.run.events import EventLog
from agent_runtime.run.responsiveness import Responsiveness
from agent_runtime.sched_stats import SchedulerMetrics
from agent_runtime.state.store import StateStore

__all__ = ["RunningVillage"]


class RunningVillage(Protocol):
    """The parts of a running village that its reports read (they never write them).

    Members are the village's attributes; the two whose type in the village is narrower
    (its agents, its resolved list) are read-only properties, so that it still matches."""

    run_id: str
    services: AgentServices | None
    bus: Bus | None
    store: StateStore | None
    metrics: SchedulerMetrics
    events: EventLog
    coherence: CoherenceTracker
    responsiveness: Responsiveness
    started_at: float
    stopped_at: float
    stop_reason: str
    web: Any

    @property
    def agents(self) -> Mapping[str, object]: ...
    @property
    def resolved(self) -> Sequence[ResolvedAgent]: ...

    def unresponsive(self) -> dict[str, str]: ...
