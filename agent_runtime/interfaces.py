"""The runtime's seams, in one place.

Implementations live elsewhere: state stores in :mod:`agent_runtime.state`,
buses in :mod:`agent_runtime.bus`, language models in :mod:`agent_runtime.llm`,
bodies and transports in :mod:`bots` (and the no-op/fake ones in
:mod:`agent_runtime.body`), modules in :mod:`modules`.
"""

from __future__ import annotations

import abc
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from pydantic import BaseModel

from agent_runtime.config.models import DEFAULT_VERSION
from agent_runtime.world import BodyEvent, Observation, SkillCall, SkillOutcome

T = TypeVar("T", bound=BaseModel)


# --- language models ----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Message:
    role: str  # "system" | "user" | "assistant"
    content: str


@dataclass(frozen=True, slots=True)
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0  # of prompt_tokens, served from the provider's prefix cache

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


@dataclass(frozen=True, slots=True)
class LLMRequest(Generic[T]):
    """One structured call: messages in, an instance of ``response_model`` out."""

    module: str
    agent: str
    messages: tuple[Message, ...]
    response_model: type[T]
    temperature: float = 0.7
    max_tokens: int = 512
    prompt_name: str = ""


@dataclass(frozen=True, slots=True)
class LLMResult(Generic[T]):
    value: T
    usage: Usage
    model: str
    latency_s: float
    attempts: int = 1
    cost_usd: float = 0.0
    brain: str = "llm"  # label carried into every artifact: "llm:<model>", "scripted", ...


class LanguageModel(abc.ABC):
    """A chat model that returns validated structured output or raises ``LLMError``."""

    name: str = "model"

    @abc.abstractmethod
    async def complete(self, request: LLMRequest[T]) -> LLMResult[T]: ...

    async def aclose(self) -> None:  # noqa: B027 - optional hook
        """Release connections."""


# --- message bus ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BusMessage:
    """A message as delivered: its topic and the topic's model (``agent_runtime.bus.messages``)."""

    topic: str
    payload: BaseModel


class Bus(abc.ABC):
    """Publish/subscribe with MQTT topic semantics (``+`` and ``#`` wildcards).

    ``publish`` takes the model of the topic (``agent_runtime.bus.messages.TOPICS``) and
    nothing else: a dict is a TypeError; a subscription yields that model."""

    @abc.abstractmethod
    async def publish(self, topic: str, payload: BaseModel) -> None: ...

    @abc.abstractmethod
    def subscribe(self, pattern: str, maxsize: int = 256) -> Subscription: ...

    async def subscriptions_ready(self) -> None:
        """Return once other processes' messages reach every subscription made so far
        (at once for an in-process bus; the MQTT bus waits for the broker's acknowledgement)."""
        return None


class Subscription(abc.ABC):
    """A bounded queue of messages matching one pattern; oldest dropped when full."""

    pattern: str
    dropped: int
    on_put: Callable[[], None] | None  # called after each delivered message (wakes a runner)

    @abc.abstractmethod
    async def get(self) -> BusMessage: ...

    @abc.abstractmethod
    def get_nowait(self) -> BusMessage | None: ...

    @abc.abstractmethod
    def close(self) -> None: ...

    def __aiter__(self) -> AsyncIterator[BusMessage]:
        return self._iter()

    async def _iter(self) -> AsyncIterator[BusMessage]:
        while True:
            yield await self.get()


# --- bodies -----------------------------------------------------------------------


class Body(abc.ABC):
    """One agent's presence in the world (a mineflayer bot, or a no-op stand-in)."""

    name: str

    @abc.abstractmethod
    async def observe(self) -> Observation: ...

    @abc.abstractmethod
    async def run_skill(self, call: SkillCall) -> SkillOutcome:
        """Run one skill to completion, failure, timeout or cancellation (never raises for those)."""

    @abc.abstractmethod
    async def cancel_skill(self) -> None: ...

    @abc.abstractmethod
    def events(self) -> AsyncIterator[BodyEvent]:
        """Body events (chat, death, kicked, ...) from a bounded queue."""

    async def open_viewer(self) -> int:
        """Serve a 3D view from this body's eyes on loopback and return its port. Bodies
        with no eyes (no world) have none: :class:`NotImplementedError`."""
        raise NotImplementedError(f"{self.name} has no 3D view (no world)")


@dataclass(frozen=True, slots=True)
class BotSpec:
    name: str
    host: str = "127.0.0.1"
    port: int = 25565
    version: str = DEFAULT_VERSION
    spawn: tuple[float, float, float] | None = None
    #: the run's body key file (mode 0600), for a server of this run: the body proves its
    #: name with it at login; None on a server that asks for no proof
    login_key_file: str | None = None


class BotTransport(abc.ABC):
    """Creates bodies. An async context manager that owns its processes and threads."""

    @abc.abstractmethod
    async def __aenter__(self) -> BotTransport: ...

    @abc.abstractmethod
    async def __aexit__(self, *exc: object) -> None: ...

    @abc.abstractmethod
    async def connect(self, spec: BotSpec) -> Body: ...
