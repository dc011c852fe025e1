"""Per-call options and the record of what happened, passed down the call chain.

``Brain.think(..., priority=, deadline_s=)`` sets :class:`CallOptions` for
the duration of one call; the model reads them with :func:`current_options`
when it asks the limiter for a slot. :class:`ManagedLanguageModel` opens a
:class:`CallTrace` around each call; the model below it notes there whether
the reply needed a repair, which structured-output mode was used and which
attempt errors it survived, and the accounting reads it afterwards. Both use
context variables, so concurrent calls (separate tasks) never see each
other's.
"""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field

from agent_runtime.llm.priority import Priority

__all__ = ["CallOptions", "CallTrace", "call_options", "current_options", "current_trace", "traced"]


@dataclass(frozen=True, slots=True)
class CallOptions:
    priority: Priority | None = None  # None: from the module's name
    deadline_s: float | None = None  # None: the priority's deadline
    # the caller's heuristic for this decision (what it falls back to); the simulated
    # provider in ``simulated_content: heuristic`` mode answers with it
    heuristic: Callable[[], object] | None = None


@dataclass(slots=True)
class CallTrace:
    mode: str | None = None  # structured-output mode of the last request
    repaired: bool = False  # the reply parsed only after the repair turn
    format_rejections: int = 0  # requests whose response_format the endpoint rejected
    attempt_errors: Counter[str] = field(default_factory=Counter)  # survived or not


_options: ContextVar[CallOptions | None] = ContextVar("llm_call_options", default=None)
_trace: ContextVar[CallTrace | None] = ContextVar("llm_call_trace", default=None)


def current_options() -> CallOptions:
    return _options.get() or CallOptions()


def current_trace() -> CallTrace | None:
    return _trace.get()


@contextlib.contextmanager
def call_options(options: CallOptions) -> Iterator[CallOptions]:
    token = _options.set(options)
    try:
        yield options
    finally:
        _options.reset(token)


@contextlib.contextmanager
def traced() -> Iterator[CallTrace]:
    trace = CallTrace()
    token = _trace.set(trace)
    try:
        yield trace
    finally:
        _trace.reset(token)
