"""Errors raised by the LLM layer.

Every failure a caller should survive is an :class:`LLMError`; :func:`think`
turns any of them into a labelled heuristic fallback. Anything else (a bug, a
cancellation) propagates. ::

    LLMError                        .model, .attempts, .usage (tokens spent anyway)
     ├── LLMTimeout                 the endpoint did not answer within timeout_s (after retries)
     ├── LLMConnectionError         could not reach the endpoint (after retries)
     ├── LLMRateLimited             HTTP 429 (after retries)
     │    └── LLMLimiterTimeout     our own limiter queue did not grant a slot in time
     │         └── LLMShed          shed to the heuristic: its priority's deadline passed
     │                              while queued, or the queue was too far behind to make it
     ├── LLMServerError             HTTP 5xx (after retries)
     ├── LLMRequestRejected         non-retryable 4xx: bad request, auth, unknown model
     ├── LLMInvalidOutput           reply still not valid JSON for the schema after one repair
     ├── LLMBudgetExceeded          the agent's token / USD budget is spent
     ├── LLMCircuitOpen             the endpoint failed repeatedly: calls skip it for a while
     └── LLMConfigError             the settings cannot work (e.g. the API key variable is unset)
"""

from __future__ import annotations

from agent_runtime.interfaces import Usage

__all__ = [
    "LLMBudgetExceeded",
    "LLMCircuitOpen",
    "LLMConfigError",
    "LLMConnectionError",
    "LLMError",
    "LLMInvalidOutput",
    "LLMLimiterTimeout",
    "LLMRateLimited",
    "LLMRequestRejected",
    "LLMServerError",
    "LLMShed",
    "LLMTimeout",
]


class LLMError(Exception):
    """A language-model call failed for good (retries and repair already spent)."""

    def __init__(
        self,
        message: str,
        *,
        model: str = "",
        attempts: int = 0,
        usage: Usage | None = None,
        status_code: int | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.model = model
        self.attempts = attempts
        self.usage = usage if usage is not None else Usage()
        self.status_code = status_code

    @property
    def kind(self) -> str:
        """Short stable name for metrics (the class name)."""
        return type(self).__name__


class LLMTimeout(LLMError):
    pass


class LLMConnectionError(LLMError):
    pass


class LLMRateLimited(LLMError):
    pass


class LLMLimiterTimeout(LLMRateLimited):
    pass


class LLMShed(LLMLimiterTimeout):
    """A request given up before it was sent, so its caller uses the heuristic at once.

    ``reason`` is ``"deadline"`` (it waited its priority's whole deadline) or
    ``"backlog"`` (the queue ahead of it could not be served within the deadline).
    """

    def __init__(self, message: str, *, reason: str, priority: str, waited_s: float) -> None:
        super().__init__(message)
        self.reason = reason
        self.priority = priority
        self.waited_s = waited_s


class LLMServerError(LLMError):
    pass


class LLMRequestRejected(LLMError):
    pass


class LLMInvalidOutput(LLMError):
    def __init__(
        self,
        message: str,
        *,
        raw: str = "",
        model: str = "",
        attempts: int = 0,
        usage: Usage | None = None,
    ) -> None:
        super().__init__(message, model=model, attempts=attempts, usage=usage)
        self.raw = raw  # the last reply, for the prompt log


class LLMBudgetExceeded(LLMError):
    def __init__(self, message: str, *, agent: str, model: str = "") -> None:
        super().__init__(message, model=model)
        self.agent = agent


class LLMCircuitOpen(LLMError):
    """The endpoint is considered down after repeated failures; the call was not sent."""


class LLMConfigError(LLMError):
    pass
