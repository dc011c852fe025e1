"""One granted LLM request slot, and what its request reports back.

The :class:`~agent_runtime.llm.limits.Limiter` grants a :class:`Slot` around each HTTP
request; the model reports the real token count (:meth:`Slot.settle`, correcting the
token bucket), a good reply (its hold time feeds the adaptive limit), a 429 or a timeout.
"""

from __future__ import annotations

import time

from agent_runtime.llm.adaptive import AdaptiveConcurrency
from agent_runtime.llm.buckets import TokenBucket
from agent_runtime.llm.priority import Priority

__all__ = ["Slot"]


class Slot:
    """One granted request slot.

    :meth:`settle` reports the real token count; :meth:`succeeded` reports a
    good reply (its hold time feeds the adaptive limit); :meth:`overloaded`
    reports an HTTP 429.
    """

    def __init__(
        self,
        tokens: TokenBucket | None,
        control: AdaptiveConcurrency,
        estimated_tokens: float,
        waited_s: float,
        *,
        key: str,
        priority: Priority,
        saturated: bool,
        in_flight: int = 1,
    ) -> None:
        self._tokens = tokens  # the run's tokens-per-minute bucket, if any
        self._control = control  # the run's concurrency limit
        self.estimated_tokens = estimated_tokens
        self.waited_s = waited_s
        self.key = key
        self.priority = priority
        self.saturated = saturated
        self.in_flight_at_grant = in_flight  # requests in flight once granted, itself included
        self.granted_at = time.monotonic()
        self.ok = False
        self._settled = False

    def settle(self, actual_tokens: int) -> None:
        if self._settled:
            return
        self._settled = True
        if self._tokens is not None:
            self._tokens.adjust(self.estimated_tokens - actual_tokens)

    def succeeded(self) -> None:
        self.ok = True

    def overloaded(self) -> None:
        """HTTP 429: too many requests."""
        self._control.overloaded()

    def timed_out(self) -> None:
        """No answer within the request timeout: more than the server serves in time; the
        time held is a lower bound of its service time."""
        self._control.overloaded()
        self._control.note_service(time.monotonic() - self.granted_at)
