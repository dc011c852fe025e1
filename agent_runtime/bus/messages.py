"""One frozen model per topic kind: what a publisher hands over is what a subscriber gets.

:data:`TOPICS` is the list of every topic of a run with its model (the table in
:mod:`agent_runtime.bus.topics` is checked against it by ``tests/core/test_messages.py``).
A bus accepts only the model of a message's topic (:func:`check`: a dict, or another
model, is a :class:`TypeError`); in one process the model object itself is delivered
(models are frozen, so sharing one is safe); on the wire it is its JSON, and what arrives
from the wire is validated into the topic's model (:func:`decode`) before anyone sees it.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar

from pydantic import BaseModel, ConfigDict

from agent_runtime.state.sections import Decision
from agent_runtime.world import BodyEvent, HeardChat, SkillCall, SkillOutcome

__all__ = [
    "BODY_EVENT",
    "DECISION",
    "GOAL",
    "HEARD",
    "RUN_PROGRESS",
    "RUN_STATUS",
    "SKILL",
    "SPEECH",
    "STATUS",
    "TOPICS",
    "VIEW3D",
    "VIEW3D_REQUEST",
    "WORLD_EVENT",
    "AgentStatus",
    "GcFigures",
    "GoalChange",
    "Heard",
    "LlmModuleFigures",
    "Message",
    "Progress",
    "RunStatus",
    "SkillEvent",
    "Speech",
    "Topic",
    "View3dAnswer",
    "View3dRequest",
    "WorldEvent",
    "check",
    "decode",
    "encode",
    "model_for",
]

M = TypeVar("M", bound=BaseModel)


class Message(BaseModel):
    """Base of the messages defined here: frozen; fields unknown to this version ignored
    (an external publisher may send more)."""

    model_config = ConfigDict(frozen=True, extra="ignore")


class Speech(Message):
    """What an agent said (talking), and whether its body got the line out."""

    speaker: str
    text: str
    to: str | None = None
    decision: str = ""  # the id of the decision that asked for it
    brain: str = ""
    delivered: bool = False


class Heard(HeardChat):
    """A line the agent heard (perception): chat or a whisper within hearing, or a world
    announcement, heard by every agent wherever it stands."""

    to_me: bool = False  # a whisper, or a line naming the agent
    announcement: bool = False


class SkillEvent(Message):
    """A skill of a decision started, or finished with its outcome (skill execution)."""

    event: Literal["started", "finished"]
    decision: str = ""
    call: SkillCall
    outcome: SkillOutcome | None = None


class GoalChange(Message):
    """A new goal (goal generation)."""

    goal: str
    kind: str = ""  # the closest activity
    previous: str = ""
    brain: str = ""


class AgentStatus(Message):
    """An agent started (with its modules) or stopped (the runtime)."""

    status: Literal["started", "stopped"]
    modules: tuple[str, ...] = ()


class View3dRequest(Message):
    """Someone (the web page) asks for a 3D view from an agent's eyes: nothing more to say."""


class View3dAnswer(Message):
    """The answer of the process that holds the body: the viewer's URL or why there is none."""

    agent: str
    url: str | None = None
    error: str | None = None


class WorldEvent(Message):
    """The world (an experiment) speaking to every agent of the run. Perception reads only
    an ``announcement``'s ``speaker``, ``text`` and ``at``: nothing else reaches an agent."""

    kind: str
    speaker: str = ""
    text: str = ""
    at: float = 0.0


class RunStatus(Message):
    """A village (or worker) runs its agents."""

    status: str
    agents: int = 0


class LlmModuleFigures(Message):
    """One module's model use so far (a progress record's ``llm_modules``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    calls: int = 0
    tokens: int = 0
    cost_usd: float = 0.0


class GcFigures(Message):
    """What the garbage collector did in the process (``agent_runtime.gc_settings``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    young_collections: int = 0
    young_pause_ms_total: float = 0.0
    young_pause_ms_max: float = 0.0
    full_collections: int = 0
    full_pause_ms_max: float = 0.0
    full_freed: int = 0


class Progress(Message):
    """A village's (or worker's) progress record: every figure ``Village._progress`` sends
    (``agent_runtime/app/progress.py``), typed; an unknown field is an error. A figure the
    process does not have (no model, no Agent State, ...) is None and left out of
    :meth:`figures`, as it was left out of the record."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    elapsed_s: float = 0.0
    agents: int = 0
    decisions: int = 0
    speech: int = 0
    skills: int = 0
    errors: int = 0
    unresponsive: int = 0
    shard: tuple[int, int] | None = None  # (this worker, of how many)
    # scheduling lag of the recent steps
    lag_ms_p50: float | None = None
    lag_ms_p95: float | None = None
    # model use (with an LLM service)
    llm_calls: int | None = None
    llm_tokens: int | None = None
    llm_cost_usd: float | None = None
    llm_model_share: float | None = None
    llm_fallbacks: int | None = None
    llm_shed: int | None = None
    llm_failed: int | None = None
    llm_attempt_errors: int | None = None
    llm_text: str | None = None
    llm_modules: dict[str, LlmModuleFigures] | None = None
    #: share of the recent announced intentions kept (None: none announced)
    coherence: float | None = None
    #: agent -> [x, y, z] (with an Agent State)
    positions: dict[str, tuple[float, float, float]] | None = None
    # what benchmarks take deltas of
    bus_published: int | None = None
    module_timed: dict[str, int] | None = None
    module_agents: dict[str, int] | None = None
    module_interval: dict[str, float] | None = None
    gc: GcFigures | None = None

    def figures(self) -> dict[str, Any]:
        """The record as JSON-ready values, without the figures it does not have."""
        return self.model_dump(mode="json", exclude_none=True)


Scope = Literal["agent", "world", "run"]


@dataclass(frozen=True, slots=True)
class Topic(Generic[M]):
    """One kind of topic: where it lives, what it carries, who publishes it."""

    scope: Scope
    kind: str  # the topic's tail: ``decision``, ``view3d/open``, ``event``, ...
    model: type[M]
    publisher: str

    @property
    def trigger(self) -> str:
        """A module's schedule trigger that wakes on it: ``topic:<kind>`` for the agent's
        own topics, ``world:<kind>`` for the world's."""
        return f"{'topic' if self.scope == 'agent' else self.scope}:{self.kind}"

    def pattern(self) -> str:
        """The topic under ``piano/{run}/``, as in the table of :mod:`.topics`."""
        return f"agent/{{a}}/{self.kind}" if self.scope == "agent" else f"{self.scope}/{self.kind}"


DECISION = Topic("agent", "decision", Decision, "cognitive controller")
SPEECH = Topic("agent", "speech", Speech, "talking")
HEARD = Topic("agent", "heard", Heard, "perception")
SKILL = Topic("agent", "skill", SkillEvent, "skill execution")
GOAL = Topic("agent", "goal", GoalChange, "goal generation")
BODY_EVENT = Topic("agent", "event", BodyEvent, "runtime (the body's events)")
STATUS = Topic("agent", "status", AgentStatus, "runtime")
VIEW3D_REQUEST = Topic("agent", "view3d/open", View3dRequest, "the web page")
VIEW3D = Topic("agent", "view3d", View3dAnswer, "the body's process")
WORLD_EVENT = Topic("world", "event", WorldEvent, "experiments / world")
RUN_STATUS = Topic("run", "status", RunStatus, "village")
RUN_PROGRESS = Topic("run", "progress", Progress, "village / each worker")

#: every topic of a run
TOPICS: tuple[Topic[Any], ...] = (
    DECISION,
    SPEECH,
    HEARD,
    SKILL,
    GOAL,
    BODY_EVENT,
    STATUS,
    VIEW3D_REQUEST,
    VIEW3D,
    WORLD_EVENT,
    RUN_STATUS,
    RUN_PROGRESS,
)
_BY_TAIL: dict[tuple[str, str], type[BaseModel]] = {(t.scope, t.kind): t.model for t in TOPICS}


@functools.lru_cache(maxsize=65536)
def model_for(topic: str) -> type[BaseModel] | None:
    """The model of a full topic (``piano/{run}/agent/Ann/decision`` -> Decision); None for
    a topic that is not one of :data:`TOPICS`. A run has a bounded set of topics: cached."""
    parts = topic.split("/")
    if len(parts) < 4 or parts[0] != "piano":
        return None
    scope = parts[2]
    tail = parts[4:] if scope == "agent" else parts[3:]
    return _BY_TAIL.get((scope, "/".join(tail)))


def check(topic: str, payload: object) -> None:
    """Refuse what is not the model of ``topic``: a dict or another model is a TypeError,
    a topic outside :data:`TOPICS` a ValueError."""
    model = model_for(topic)
    if model is None:
        raise ValueError(f"no message model for topic {topic!r} (see agent_runtime.bus.messages)")
    if not isinstance(payload, model):
        raise TypeError(
            f"{topic} carries {model.__name__}, not {type(payload).__name__}"
            " (a bus publishes typed messages only)"
        )


def encode(payload: BaseModel) -> bytes:
    """A message's wire form: its JSON."""
    return payload.model_dump_json().encode()


def decode(topic: str, raw: bytes | bytearray | str) -> BaseModel | None:
    """A message from the wire validated into ``topic``'s model; None for a topic outside
    :data:`TOPICS`. Raises pydantic's ValidationError when it is not that model's JSON."""
    model = model_for(topic)
    if model is None:
        return None
    return model.model_validate_json(raw)
