"""Concurrency that follows what the endpoint can serve (AIMD on latency and 429s).

A local model server answers one or two requests at a time; requests sent
beyond that wait inside the server, where no priority applies, and every
latency grows. :class:`AdaptiveConcurrency` keeps the number of requests in
flight near what the endpoint serves without queueing:

* per key (the module: its prompts have a typical size) it keeps a *baseline*:
  the median of its last ``window`` latencies measured while it was the only
  request in flight (nothing of ours could queue ahead of it in the server);
  a key without one yet is compared with the baseline of all keys; no request
  is judged against a baseline of fewer than ``baseline_samples`` such
  latencies (one reply slowed by a cold server or a stalled client would
  otherwise make every queued reply look fast, and the limit would climb to
  ``max_limit`` over a one-at-a-time server);
* requests granted while others were in flight are compared with their key's
  baseline; once ``judge_after`` of them were seen at the current limit, a mean
  ratio above ``tolerance`` means they queue in the server: the limit shrinks
  by ``decrease`` (at most once per baseline latency), and that level is
  remembered as a *ceiling*: the limit does not grow back to it for
  ``refresh_after`` replies (a one-at-a-time server is not probed with a second
  request every few calls, which would queue the controller behind it);
* when the first reply alone came, or no reply came alone after ``probe_after``
  replies (e.g. two agents always asking at once), the limit is 1 until
  ``baseline_samples`` replies came alone; when the baseline was not refreshed
  for ``refresh_after`` replies, until one reply comes alone (a *probe*, as
  BBR's ProbeRTT does); a probe's replies do not raise the limit (it is 1 only
  for the probe);
* an HTTP 429 or a timeout halves the limit and sets the ceiling there;
* while every slot is busy and the requests at this limit are not slower than
  the baseline (or there are none yet: at limit 1), the limit grows: by one
  per reply until the first sign of congestion (slow start), then by
  ``increase/limit`` (slowly: a local server's capacity is small and fixed).

With ``enabled=False`` the limit stays at ``max_limit`` and only the service
time is measured (the limiter's backlog estimate uses it either way).
"""

from __future__ import annotations

import statistics
import time
from collections import deque
from collections.abc import Callable
from typing import Any

__all__ = ["AdaptiveConcurrency"]


class AdaptiveConcurrency:
    # the tuning (module docstring); a test may set them on an instance
    tolerance = 1.35  # a mean latency ratio above it: requests queue in the server
    decrease = 0.75  # the limit's factor on congestion
    window = 32  # unqueued latencies kept per key for its baseline
    increase = 0.1  # growth per reply after slow start, divided by the limit
    judge_after = 3  # queued replies seen at a limit before it is judged
    probe_after = 8  # replies with none alone before a first probe
    refresh_after = 200  # replies before a ceiling is forgotten or a baseline refreshed
    baseline_samples = 3  # unqueued latencies needed before anything is judged

    def __init__(
        self,
        max_limit: int,
        *,
        enabled: bool = True,
        initial: int | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if max_limit < 1:
            raise ValueError(f"max_limit (the concurrency) must be >= 1, got {max_limit}")
        self.max_limit = max_limit
        self.enabled = enabled
        start = initial if initial is not None else min(max_limit, 2)
        self.limit = float(max(1, min(max_limit, start))) if enabled else float(max_limit)
        self._clock = clock
        self._since_alone = 0  # replies since the last one that came alone
        self._probe = False  # the limit is 1 until replies come alone
        self.probes = 0
        self._ratios: deque[float] = deque(maxlen=16)  # latency / baseline at this limit
        self._recent: dict[str, deque[float]] = {}
        self._any: deque[float] = deque(maxlen=self.window)
        self._slow_start = True
        self._last_decrease = float("-inf")
        self._ceiling: int | None = None  # a level where requests queued in the server
        self._since_ceiling = 0  # replies since the ceiling was set
        self.service_s: float | None = None  # EWMA of slot hold times (successful calls)
        self.observed = 0
        self.decreases = 0
        self.overloads = 0
        self.min_seen = self.limit
        self.max_seen = self.limit

    @property
    def probing(self) -> bool:
        return self.enabled and self._probe

    @property
    def _trusted(self) -> bool:
        """Enough unqueued latencies are known to judge queued ones against."""
        return len(self._any) >= self.baseline_samples

    @property
    def effective(self) -> int:
        """Requests allowed in flight now (1 while probing for a baseline)."""
        if self.probing:
            return 1
        return max(1, min(self.max_limit, int(self.limit)))

    def observe(self, key: str, latency_s: float, *, saturated: bool, in_flight: int = 1) -> None:
        """A successful request of ``key`` held its slot ``latency_s`` seconds.

        ``saturated``: every allowed slot was busy when it was granted;
        ``in_flight``: requests in flight just after it was granted (itself included).
        """
        latency_s = max(latency_s, 1e-4)
        self.observed += 1
        self._since_ceiling += 1
        if self._ceiling is not None and self._since_ceiling > self.refresh_after:
            self._ceiling = None  # probe that level again, once in a long while
        self.service_s = (
            latency_s if self.service_s is None else 0.8 * self.service_s + 0.2 * latency_s
        )
        recent = self._recent.get(key)
        if recent is None:
            recent = self._recent[key] = deque(maxlen=self.window)
        probing = self._probe  # a reply alone because of a probe says nothing of the limit
        if in_flight <= 1:
            recent.append(latency_s)
            self._any.append(latency_s)
            self._since_alone = 0
            # a refresh needs one reply alone; a first baseline, ``baseline_samples``: the
            # replies after the first are asked for at once, before anything is judged
            if self._trusted:
                self._probe = False
            else:
                self._start_probe()
        else:
            self._since_alone += 1
            if self._since_alone == (self.probe_after if not self._any else self.refresh_after):
                self._start_probe()
        if not self.enabled or not self._any:
            return  # no unqueued latency known yet: no evidence either way
        # this kind's own baseline, else (until it has one) that of all kinds
        baseline = statistics.median(recent or self._any)
        now = self._clock()
        if in_flight > 1 and self._trusted:
            self._ratios.append(latency_s / baseline)
        judged = len(self._ratios) >= self.judge_after
        mean = statistics.fmean(self._ratios) if judged else 1.0
        if judged and mean > self.tolerance:
            if now - self._last_decrease >= baseline:
                self._ceiling, self._since_ceiling = int(self.limit), 0
                self._shrink(self.decrease, now)
        elif (
            saturated
            and not probing
            and (judged or in_flight <= 1)
            and mean <= 1.15
            and self.limit < self._cap
        ):
            step = 1.0 if self._slow_start else self.increase / self.limit
            self._set(min(self._cap, self.limit + step))

    def _start_probe(self) -> None:
        if not self._probe:
            self.probes += 1
        self._probe = True

    @property
    def _cap(self) -> float:
        """The highest limit allowed now: ``max_limit``, or just below a remembered ceiling."""
        if self._ceiling is None:
            return float(self.max_limit)
        return max(1.0, min(float(self.max_limit), self._ceiling - 1e-3))

    def _set(self, limit: float) -> None:
        if int(limit) != int(self.limit):
            self._ratios.clear()  # judge every level afresh
        self.limit = limit
        self.min_seen = min(self.min_seen, limit)
        self.max_seen = max(self.max_seen, limit)

    def note_service(self, seconds: float) -> None:
        """A slot was held ``seconds`` without a usable answer (e.g. until a timeout)."""
        # blended like a reply (not a maximum): one stuck request must not make every
        # later estimate of the backlog shed requests the endpoint would serve in time
        self.service_s = seconds if self.service_s is None else 0.8 * self.service_s + 0.2 * seconds

    def overloaded(self) -> None:
        """The endpoint answered 429 (too many requests)."""
        self.overloads += 1
        if self.enabled:
            # a level where a request timed out or was refused is remembered like one where
            # requests queued: without it, additive increase took a one-at-a-time server
            # back to 2 in flight and straight into the next timeout
            self._ceiling, self._since_ceiling = int(self.limit), 0
            self._shrink(0.5, self._clock())

    def _shrink(self, factor: float, now: float) -> None:
        self._slow_start = False
        self._last_decrease = now
        self.decreases += 1
        self._set(max(1.0, self.limit * factor))
        self._ratios.clear()

    def snapshot(self) -> dict[str, Any]:
        return {
            "adaptive": self.enabled,
            "limit": round(self.limit, 3),
            "effective": self.effective,
            "max_limit": self.max_limit,
            "min_seen": round(self.min_seen, 3),
            "max_seen": round(self.max_seen, 3),
            "decreases": self.decreases,
            "probes": self.probes,
            "ceiling": self._ceiling,
            "overloads": self.overloads,
            "service_s_ewma": round(self.service_s, 4) if self.service_s is not None else None,
        }
