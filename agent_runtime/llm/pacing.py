"""Pacing from the endpoint's rate-limit headers: slow down before a 429, not after.

OpenAI (and compatible gateways) answer every request with what is left of the caller's
limits::

    x-ratelimit-limit-requests: 500        x-ratelimit-limit-tokens: 200000
    x-ratelimit-remaining-requests: 499    x-ratelimit-remaining-tokens: 199385
    x-ratelimit-reset-requests: 120ms      x-ratelimit-reset-tokens: 184ms
    retry-after: 2                         (on a 429)

:func:`parse_rate_headers` reads them (durations like ``1s``, ``6m0s``, ``120ms``);
:class:`HeaderPacer` keeps the latest figures and tells the :class:`~agent_runtime.llm.limits.Limiter`
how long a request must wait before it is sent:

- nothing left (requests, or tokens for this request's estimate): until the reset;
- below the low-water mark (default 10% of the limit): the remaining requests / tokens are
  spread evenly over the time to the reset, so the village slows down smoothly instead of
  running into the wall;
- after a 429 with ``retry-after``: every request waits that long, not only the retried one.

Requests granted since the last reply are counted against the remaining figures, so calls
sent together do not all read the same "499 left". A reset time that has passed forgets the
figures (the window refilled). Endpoints that send no such headers are never paced.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["HeaderPacer", "RateLimitInfo", "parse_duration", "parse_rate_headers"]

logger = logging.getLogger(__name__)

_DURATION = re.compile(r"(\d+(?:\.\d+)?)(ms|h|m|s)")


def parse_duration(text: str) -> float | None:
    """Seconds in an OpenAI reset duration (``"1s"``, ``"6m0s"``, ``"120ms"``, ``"1h2m"``)
    or a plain number of seconds; None if unreadable."""
    text = text.strip()
    try:
        return max(0.0, float(text))
    except ValueError:
        pass
    parts = _DURATION.findall(text)
    if not parts or "".join(n + u for n, u in parts) != text.replace(" ", ""):
        return None
    scale = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}
    return sum(float(n) * scale[u] for n, u in parts)


def _int(headers: Mapping[str, str], key: str) -> int | None:
    value = headers.get(key)
    if value is None:
        return None
    try:
        return int(float(value))
    except ValueError:
        return None


def _duration(headers: Mapping[str, str], key: str) -> float | None:
    value = headers.get(key)
    return parse_duration(value) if value is not None else None


@dataclass(frozen=True, slots=True)
class RateLimitInfo:
    """The rate-limit figures of one reply (None: not sent)."""

    limit_requests: int | None = None
    limit_tokens: int | None = None
    remaining_requests: int | None = None
    remaining_tokens: int | None = None
    reset_requests_s: float | None = None
    reset_tokens_s: float | None = None
    retry_after_s: float | None = None

    @property
    def empty(self) -> bool:
        return all(getattr(self, k) is None for k in self.__slots__)


def parse_rate_headers(headers: Mapping[str, str]) -> RateLimitInfo:
    """The figures in a reply's headers (case-insensitive keys expected lower-case, as
    ``httpx.Headers`` gives them)."""
    h = {k.lower(): v for k, v in headers.items()}
    retry_ms = _int(h, "retry-after-ms")
    retry = retry_ms / 1000.0 if retry_ms is not None else _duration(h, "retry-after")
    return RateLimitInfo(
        limit_requests=_int(h, "x-ratelimit-limit-requests"),
        limit_tokens=_int(h, "x-ratelimit-limit-tokens"),
        remaining_requests=_int(h, "x-ratelimit-remaining-requests"),
        remaining_tokens=_int(h, "x-ratelimit-remaining-tokens"),
        reset_requests_s=_duration(h, "x-ratelimit-reset-requests"),
        reset_tokens_s=_duration(h, "x-ratelimit-reset-tokens"),
        retry_after_s=retry,
    )


@dataclass(slots=True)
class _Budget:
    """What is left of one limit (requests or tokens) until it resets."""

    limit: float | None = None
    remaining: float | None = None  # None: unknown (no header yet, or the window reset)
    reset_at: float = 0.0

    def update(
        self, limit: int | None, remaining: int | None, reset_s: float | None, now: float
    ) -> None:
        if limit is not None:
            self.limit = float(limit)
        if remaining is not None:
            self.remaining = float(remaining)
            self.reset_at = now + (reset_s if reset_s is not None else 60.0)

    def wait(self, amount: float, now: float, last_grant: float) -> float:
        """Seconds before ``amount`` may be spent from this budget."""
        if self.remaining is None:
            return 0.0
        if now >= self.reset_at:
            self.remaining = None  # the window refilled
            return 0.0
        to_reset = self.reset_at - now
        if self.remaining < amount:
            return to_reset
        if self.limit and self.remaining < LOW_WATER * self.limit:
            # spread what is left evenly over the time to the reset
            spacing = to_reset * amount / self.remaining
            return max(0.0, last_grant + spacing - now)
        return 0.0

    def spend(self, amount: float) -> None:
        if self.remaining is not None:
            self.remaining -= amount


#: below this share of the limit, what is left is spread over the time to the reset
LOW_WATER = 0.1


class HeaderPacer:
    """The latest rate-limit figures of an endpoint and the wait they impose."""

    def __init__(self, *, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self.requests = _Budget()
        self.tokens = _Budget()
        self.paused_until = 0.0
        self._last_grant = float("-inf")
        self.observed = 0  # replies whose headers carried rate-limit figures
        self.paced = 0  # requests that waited for the pacer
        self.paced_s_total = 0.0
        self.retry_after_pauses = 0
        self.last: RateLimitInfo | None = None

    def observe(self, headers: Mapping[str, str]) -> RateLimitInfo:
        """Read one reply's headers (success or error)."""
        info = parse_rate_headers(headers)
        if info.empty:
            return info
        now = self._clock()
        self.observed += 1
        self.last = info
        self.requests.update(
            info.limit_requests, info.remaining_requests, info.reset_requests_s, now
        )
        self.tokens.update(info.limit_tokens, info.remaining_tokens, info.reset_tokens_s, now)
        if info.retry_after_s is not None and info.retry_after_s > 0:
            self.pause(info.retry_after_s)
        return info

    def pause(self, seconds: float) -> None:
        """Nothing is sent for ``seconds`` (a 429's ``retry-after``)."""
        until = self._clock() + seconds
        if until > self.paused_until:
            if self.paused_until <= self._clock():
                logger.warning("LLM endpoint asked to wait %.1f s (retry-after); pacing", seconds)
            self.paused_until = until
            self.retry_after_pauses += 1

    def delay(self, estimated_tokens: float) -> float:
        """Seconds a request of ``estimated_tokens`` must wait before it is sent now."""
        now = self._clock()
        return max(
            self.paused_until - now,
            self.requests.wait(1.0, now, self._last_grant),
            self.tokens.wait(float(estimated_tokens), now, self._last_grant),
            0.0,
        )

    def spend(self, estimated_tokens: float, waited_s: float) -> None:
        """A request goes out now: count it against what is left."""
        self._last_grant = self._clock()
        self.requests.spend(1.0)
        self.tokens.spend(float(estimated_tokens))
        if waited_s > 0:
            self.paced += 1
            self.paced_s_total += waited_s

    def snapshot(self) -> dict[str, Any]:
        last = self.last
        return {
            "observed": self.observed,
            "paced": self.paced,
            "paced_s_total": round(self.paced_s_total, 3),
            "retry_after_pauses": self.retry_after_pauses,
            "remaining_requests": self.requests.remaining,
            "remaining_tokens": self.tokens.remaining,
            "limit_requests": last.limit_requests if last else None,
            "limit_tokens": last.limit_tokens if last else None,
        }
