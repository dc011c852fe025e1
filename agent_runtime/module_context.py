"""What a module may use while it steps, and nothing else: its agent's state (only the
sections it declared), its topics on the bus, the body, its brain, the event log, a seeded
RNG, the run clock and its agent's memory inbox (and the memory store, for the module that
keeps the stream). No village config, no other agent, no untyped service: what two modules
share is a state section, a bus message or the memory inbox."""

from __future__ import annotations

import random
from dataclasses import InitVar, dataclass, field
from typing import TypeVar

from pydantic import BaseModel

from agent_runtime.agent_memory import MemoryInbox, MemoryStore, memory_inbox
from agent_runtime.bus import topics
from agent_runtime.bus.messages import Topic
from agent_runtime.clock import Clock
from agent_runtime.interfaces import Body, Bus, Subscription
from agent_runtime.llm.brain import Brain
from agent_runtime.run.events import EventLog
from agent_runtime.sched_stats import ModuleStats
from agent_runtime.state.sections import Section
from agent_runtime.state.store import AgentState, Listener

S = TypeVar("S", bound=Section)
M = TypeVar("M", bound=BaseModel)


class SectionAccessError(RuntimeError):
    """A module read a section it did not declare in ``reads``/``writes``, or wrote one it
    did not declare in ``writes``."""


@dataclass
class ModuleContext:
    agent: str
    module: str
    run_id: str
    #: the agent's state: reached only through :meth:`read`, :meth:`write`, :meth:`update`
    #: and :meth:`snapshot`, which hold the module to its declared sections
    state: InitVar[AgentState]
    bus: Bus
    body: Body
    events: EventLog
    rng: random.Random
    clock: Clock
    #: the module's brain for this agent: a model (or none: the heuristic) and its accounting
    brain: Brain
    reads: frozenset[str]
    writes: frozenset[str]
    #: the agent's memory records waiting for the memory module (one per agent)
    memory: MemoryInbox = field(default_factory=memory_inbox)
    #: where the memory stream is kept; only for the module that keeps it
    memory_store: MemoryStore | None = None
    stats: ModuleStats = field(default_factory=ModuleStats)
    inbox: dict[str, Subscription] = field(default_factory=dict)
    #: the module's own policies by name, made once (``modules.policies.module_policy``)
    policies: dict[str, object] = field(default_factory=dict)
    #: when the current step was due (event-loop clock): its grid time for a timed step,
    #: its start for a triggered one
    due: float = 0.0
    _state: AgentState = field(init=False, repr=False)

    def __post_init__(self, state: AgentState) -> None:
        self._state = state

    # --- state ----------------------------------------------------------------
    def _check_read(self, section: str) -> None:
        if section not in self.reads and section not in self.writes:
            raise SectionAccessError(
                f"module {self.module!r} did not declare a read of {section!r}"
            )

    def read(self, section: str, kind: type[S]) -> S:
        self._check_read(section)
        return self._state.get(section, kind)

    def snapshot(self, sections: list[str]) -> dict[str, Section]:
        """Several declared sections read in one go (a consistent view)."""
        for section in sections:
            self._check_read(section)
        return self._state.snapshot(sections)

    @property
    def version(self) -> int:
        """Counts every write of the agent's state: unchanged, nothing was written since."""
        return self._state.version

    def listen(self, section: str, listener: Listener) -> None:
        """Call ``listener`` on every write of a declared section (a ``state:`` trigger)."""
        self._check_read(section)
        self._state.listen(section, listener)

    def write(self, section: str, value: Section) -> None:
        if section not in self.writes:
            raise SectionAccessError(
                f"module {self.module!r} did not declare a write of {section!r}"
            )
        self._state.set(section, value, writer=self.module)

    def update(self, section: str, kind: type[S], **changes: object) -> S:
        if section not in self.writes:
            raise SectionAccessError(
                f"module {self.module!r} did not declare a write of {section!r}"
            )
        return self._state.update(section, kind, writer=self.module, **changes)

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
    def emit(self, type_: str, **data: object) -> None:
        self.events.emit(type_, self.agent, module=self.module, **data)
