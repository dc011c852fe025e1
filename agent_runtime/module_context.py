"""What a module sees while it steps: its agent's state (only declared sections), the bus,
the body, the brain, the event log, a seeded RNG and the run clock."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel

from agent_runtime.bus import topics
from agent_runtime.bus.messages import Topic
from agent_runtime.clock import Clock
from agent_runtime.interfaces import Body, Bus, Subscription
from agent_runtime.run.events import EventLog
from agent_runtime.sched_stats import ModuleStats
from agent_runtime.state.sections import Section
from agent_runtime.state.store import AgentState

if TYPE_CHECKING:
    from agent_runtime.agent_services import AgentServices

S = TypeVar("S", bound=Section)
M = TypeVar("M", bound=BaseModel)


class SectionAccessError(RuntimeError):
    """A module read a section it did not declare in ``reads``/``writes``."""


@dataclass
class ModuleContext:
    agent: str
    module: str
    run_id: str
    state: AgentState
    bus: Bus
    body: Body
    events: EventLog
    rng: random.Random
    clock: Clock
    services: AgentServices
    reads: frozenset[str]
    writes: frozenset[str]
    stats: ModuleStats = field(default_factory=ModuleStats)
    inbox: dict[str, Subscription] = field(default_factory=dict)
    shared: dict[str, Any] = field(
        default_factory=dict
    )  # one dict per agent, shared by its modules
    #: when the current step was due (event-loop clock): its grid time for a timed step,
    #: its start for a triggered one
    due: float = 0.0

    # --- state ----------------------------------------------------------------
    def read(self, section: str, kind: type[S]) -> S:
        if section not in self.reads and section not in self.writes:
            raise SectionAccessError(
                f"module {self.module!r} did not declare a read of {section!r}"
            )
        return self.state.get(section, kind)

    def write(self, section: str, value: Section) -> None:
        self.state.set(section, value, writer=self.module)

    def update(self, section: str, kind: type[S], **changes: Any) -> S:
        return self.state.update(section, kind, writer=self.module, **changes)

    # --- bus ------------------------------------------------------------------
    def topic(self, kind: str, agent: str | None = None) -> str:
        return topics.agent(self.run_id, agent or self.agent, kind)

    async def publish(self, topic: Topic[M], message: M) -> None:
        """Publish on this agent's ``topic`` (or the world's, for a world topic): the
        topic's model, handed to subscribers in this process as it is."""
        where = (
            self.topic(topic.kind)
            if topic.scope == "agent"
            else topics.world(self.run_id, topic.kind)
        )
        await self.bus.publish(where, message)

    def pending(self, topic: Topic[M]) -> list[M]:
        """Drain the messages that arrived on ``topic`` (the module's trigger
        ``topic.trigger``) since the last step."""
        sub = self.inbox.get(topic.trigger)
        out: list[M] = []
        if sub is None:
            return out
        while (msg := sub.get_nowait()) is not None:
            if isinstance(msg.payload, topic.model):  # always, on a bus of typed topics
                out.append(msg.payload)
        return out

    async def next_message(self, topic: Topic[M]) -> M:
        """Wait for the next message on ``topic`` (a trigger of the module)."""
        while True:
            msg = await self.inbox[topic.trigger].get()
            if isinstance(msg.payload, topic.model):
                return msg.payload

    # --- events ---------------------------------------------------------------
    def emit(self, type_: str, **data: Any) -> None:
        self.events.emit(type_, self.agent, module=self.module, **data)
