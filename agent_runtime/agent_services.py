"""Per-run shared services handed to every agent (one object, not thirty arguments)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from agent_runtime.clock import Clock
from agent_runtime.config.models import VillageConfig
from agent_runtime.interfaces import Bus
from agent_runtime.run.events import EventLog
from agent_runtime.sched_stats import SchedulerMetrics
from agent_runtime.state.store import StateStore

if TYPE_CHECKING:
    from redis.asyncio import Redis


@dataclass
class AgentServices:
    run_id: str
    config: VillageConfig
    store: StateStore
    bus: Bus
    events: EventLog
    clock: Clock
    metrics: SchedulerMetrics
    redis: Redis | None = None
    llm: Any = None  # agent_runtime.llm.factory.LLMService | None (None = heuristic brain)
    embedder: Any = None  # modules.memory encoder shared by all agents
    places: dict[str, Any] = field(default_factory=dict)  # world's named places
    extra: dict[str, Any] = field(default_factory=dict)
