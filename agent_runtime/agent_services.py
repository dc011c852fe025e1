"""Per-run services the runtime hands to every agent (one object, not thirty arguments).

Modules never see this object: the agent (:mod:`agent_runtime.agent`) hands each of its
modules only what that module may use (:class:`~agent_runtime.module_context.ModuleContext`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from agent_runtime.agent_memory import Encoder
from agent_runtime.clock import Clock
from agent_runtime.config.models import VillageConfig
from agent_runtime.interfaces import Bus
from agent_runtime.llm.factory import LLMService
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
    llm: LLMService | None = None  # None: the heuristic brain
    embedder: Encoder | None = None  # the memory streams' encoder, shared by all agents
