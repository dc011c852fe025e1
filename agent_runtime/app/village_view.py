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
    """The parts of a running village that its reports read (read-only)."""

    @property
    def run_id(self) -> str: ...
    @property
    def agents(self) -> Mapping[str, object]: ...
    @property
    def resolved(self) -> Sequence[ResolvedAgent]: ...
    @property
    def services(self) -> AgentServices | None: ...
    @property
    def bus(self) -> Bus | None: ...
    @property
    def store(self) -> StateStore | None: ...
    @property
    def metrics(self) -> SchedulerMetrics: ...
    @property
    def events(self) -> EventLog: ...
    @property
    def coherence(self) -> CoherenceTracker: ...
    @property
    def responsiveness(self) -> Responsiveness: ...
    @property
    def started_at(self) -> float: ...
    @property
    def stopped_at(self) -> float: ...
    @property
    def stop_reason(self) -> str: ...
    @property
    def web(self) -> Any: ...

    def unresponsive(self) -> dict[str, str]: ...
