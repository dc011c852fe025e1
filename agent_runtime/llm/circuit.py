"""A circuit breaker per endpoint: a refused or dead LLM endpoint costs one warning, not
seconds per call.

After ``threshold`` consecutive failures that say the endpoint is unreachable or refusing
(connection errors, timeouts, 5xx, refused requests such as a wrong key or an unknown
model), the circuit *opens*: every call fails at once with :class:`LLMCircuitOpen` (the
module uses its heuristic) for ``open_s`` seconds. Then one call is let through
(*half-open*): if it succeeds the circuit closes, else it opens again for twice as long
(capped at ``max_open_s``). A warning is logged when the circuit opens, and once more when
it closes. Slow but answering endpoints, invalid replies, shed requests and budgets do not
count: those are not the endpoint being down.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import KW_ONLY, dataclass, field

from agent_runtime.interfaces import LanguageModel, LLMRequest, LLMResult, T
from agent_runtime.llm.errors import (
    LLMCircuitOpen,
    LLMConnectionError,
    LLMError,
    LLMRequestRejected,
    LLMServerError,
    LLMTimeout,
)

__all__ = ["Circuit", "CircuitBreakerModel"]

log = logging.getLogger(__name__)

TRIPPING: tuple[type[LLMError], ...] = (
    LLMConnectionError,
    LLMTimeout,
    LLMServerError,
    LLMRequestRejected,
)


@dataclass(eq=False)
class Circuit:
    """The state of one endpoint, shared by every module and agent that calls it."""

    name: str
    _: KW_ONLY
    threshold: int = 3
    open_s: float = 15.0  # how long it opens next (doubles on each failed probe)
    max_open_s: float = 120.0
    clock: Callable[[], float] = time.monotonic
    failures: int = field(default=0, init=False)
    open_until: float | None = field(default=None, init=False)
    opened: int = field(default=0, init=False)  # how many times it opened
    skipped: int = field(default=0, init=False)  # calls answered by the open circuit
    _probing: bool = field(default=False, init=False)

    def __post_init__(self) -> None:
        if self.threshold < 1 or self.open_s <= 0 or self.max_open_s < self.open_s:
            raise ValueError("need threshold >= 1 and 0 < open_s <= max_open_s")
        self.base_open_s = self.open_s

    @property
    def state(self) -> str:
        if self.open_until is None:
            return "closed"
        return "half-open" if self.clock() >= self.open_until else "open"

    def before_call(self) -> None:
        """Raise :class:`LLMCircuitOpen` unless this call may go to the endpoint."""
        if self.open_until is None:
            return
        if self.clock() < self.open_until or self._probing:
            self.skipped += 1
            raise LLMCircuitOpen(
                f"{self.name} is down (circuit open after {self.failures} failures)"
            )
        self._probing = True  # half-open: this one call probes the endpoint

    def succeeded(self) -> None:
        if self.open_until is not None:
            log.warning("LLM endpoint %s answers again; circuit closed", self.name)
        self.failures = 0
        self.open_until = None
        self.open_s = self.base_open_s
        self._probing = False

    def failed(self, err: LLMError) -> None:
        if not isinstance(err, TRIPPING):
            self._probing = False
            return
        self.failures += 1
        if self._probing:  # the probe failed: open again, for longer
            self._probing = False
            self.open_s = min(self.max_open_s, self.open_s * 2)
            self.open_until = self.clock() + self.open_s
            self.opened += 1
        elif self.open_until is None and self.failures >= self.threshold:
            self.open_until = self.clock() + self.open_s
            self.opened += 1
            log.warning(
                "LLM endpoint %s failed %d times in a row (%s); using the heuristic brain "
                "and retrying in %.0f s",
                self.name,
                self.failures,
                err,
                self.open_s,
            )


class CircuitBreakerModel(LanguageModel):
    """A model whose calls go through a :class:`Circuit`."""

    def __init__(self, inner: LanguageModel, circuit: Circuit) -> None:
        self.inner = inner
        self.circuit = circuit
        self.name = inner.name

    async def complete(self, request: LLMRequest[T]) -> LLMResult[T]:
        self.circuit.before_call()
        try:
            result = await self.inner.complete(request)
        except LLMError as err:
            self.circuit.failed(err)
            raise
        except BaseException:
            self.circuit._probing = False
            raise
        self.circuit.succeeded()
        return result

    async def aclose(self) -> None:
        await self.inner.aclose()
