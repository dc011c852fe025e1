"""Running one module on its schedule: cadence (with jitter), triggers, crash and restart.

A :class:`ModuleRunner` is the body of one named task ``agent[<name>].<module>``.
It sleeps until the module is due or a trigger fires (a watched state section
was written, or a bus message arrived for a ``topic:``/``world:`` trigger),
steps the module, and records how late the step started against its due time.
Due-time wake-ups go through :mod:`agent_runtime.ticks` (rounded up to a 5 ms grid, one
loop timer per tick for all runners): the rounding is part of the lag measured.
An exception in ``step`` is logged and recorded, the runner backs off
(capped exponential with jitter), calls ``setup`` again ("restart") and goes on;
the agent's other modules are not affected. A first ``setup`` that times out or loses its
connection is retried with backoff (``SETUP_RETRIES``); a module whose first ``setup``
fails otherwise (or keeps timing out) is reported (``module_disabled``) and disabled for
that agent; the agent and the village go on without it.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from dataclasses import KW_ONLY, dataclass, field

from agent_runtime.bus import topics
from agent_runtime.clock import wall_time
from agent_runtime.module import Module
from agent_runtime.module_context import ModuleContext
from agent_runtime.sched_stats import SchedulerMetrics
from agent_runtime.ticks import TICK_S, round_up, wakeups

log = logging.getLogger(__name__)

#: times a transiently failing ``setup`` (timeout, lost connection) is retried before the
#: module is disabled for the agent
SETUP_RETRIES = 4


@dataclass(eq=False)
class ModuleRunner:
    module: Module
    ctx: ModuleContext
    _: KW_ONLY
    time_scale: float
    metrics: SchedulerMetrics
    rng: random.Random
    max_backoff: float = 30.0
    stopping: bool = field(default=False, init=False)
    _wake: asyncio.Event = field(default_factory=asyncio.Event, init=False)
    _installed: bool = field(default=False, init=False)
    _fired: bool = field(default=False, init=False)
    _armed: float | None = field(default=None, init=False)  # the due time waited for (_arm)

    def __post_init__(self) -> None:
        sched, scale = self.module.schedule, self.time_scale
        self.cadence = sched.cadence * scale if sched.cadence else None
        self.cadence_max = sched.cadence_max * scale if sched.cadence_max else None
        self.min_interval = sched.min_interval * scale
        self._tick = TICK_S * scale
        self._on_tick = self._timer_fired  # bound once: no allocation per wait
        self.metrics.stats[self.module.name].append(self.ctx.stats)
        if self.cadence:
            self.metrics.expected_interval[self.module.name] = (
                (self.cadence + self.cadence_max) / 2 if self.cadence_max else self.cadence
            )

    def _interval(self) -> float | None:
        if self.cadence is None:
            return None
        if self.cadence_max and self.cadence_max > self.cadence:
            return self.rng.uniform(self.cadence, self.cadence_max)
        return self.cadence

    def stop(self) -> None:
        self.stopping = True
        self._wake.set()

    def wake(self, *_: object) -> None:
        self._wake.set()

    def _arm(self, when: float) -> None:
        self._armed = when
        self._wakeups.at(when, self._on_tick)

    def _timer_fired(self, when: float) -> None:
        if when != self._armed:  # woken otherwise meanwhile: this wake-up is not wanted
            return
        self._fired = True
        self._wake.set()

    def install_triggers(self) -> None:
        """Subscribe and listen before the task starts, so no early message is missed."""
        if self._installed:
            return
        self._installed = True
        ctx = self.ctx
        for trig in self.module.schedule.triggers:
            kind, _, what = trig.partition(":")
            if kind == "state":
                ctx.listen(what, self.wake)
            elif kind in ("topic", "world"):
                pattern = (
                    topics.agent(ctx.run_id, ctx.agent, what)
                    if kind == "topic"
                    else topics.world(ctx.run_id, what)
                )
                sub = ctx.bus.subscribe(pattern, maxsize=64)
                sub.on_put = self.wake
                ctx.inbox[trig] = sub
            else:
                raise ValueError(f"module {self.module.name}: unknown trigger {trig!r}")

    async def _setup_with_retries(self) -> None:
        """``setup``, retried with backoff while it fails transiently (a Redis round trip that
        timed out while a thousand agents start at once); any other error is final."""
        for attempt in range(SETUP_RETRIES + 1):
            try:
                await self.module.setup(self.ctx)
                return
            except (TimeoutError, ConnectionError) as err:
                if attempt == SETUP_RETRIES:
                    raise
                log.warning(
                    "agent[%s].%s setup failed transiently (%s); retrying",
                    self.ctx.agent,
                    self.module.name,
                    type(err).__name__,
                )
                backoff = min(self.max_backoff, 0.5 * 2**attempt) * self.time_scale
                await asyncio.sleep(backoff * (0.5 + self.rng.random()))

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        self._wakeups = wakeups()
        module, ctx = self.module, self.ctx
        self.install_triggers()
        try:
            await self._setup_with_retries()
            if _cancel_pending():
                raise asyncio.CancelledError
        except asyncio.CancelledError:
            raise
        except Exception as err:  # a module that cannot start is disabled for this agent only
            ctx.stats.errors += 1
            log.exception("agent[%s].%s setup failed; module disabled", ctx.agent, module.name)
            ctx.emit("module_disabled", error=f"{type(err).__name__}: {err}")
            for sub in ctx.inbox.values():
                sub.close()
            return
        interval = self._interval()
        # spread first steps over one interval so agents do not step in lockstep
        next_due = loop.time() + (self.rng.uniform(0, interval) if interval else 0.0)
        failures = 0
        has_triggers = bool(module.schedule.triggers)
        last_step = 0.0
        try:
            while not self.stopping:
                timed = False
                waited = False  # False: the previous step overran this due time
                if interval is None:
                    await self._wake.wait()
                elif not self._wake.is_set() and next_due > loop.time():
                    waited = True
                    # one shared loop timer per tick for every runner due in it
                    self._arm(round_up(next_due, self._tick))
                    try:
                        await self._wake.wait()
                    finally:
                        self._armed = None  # the wake-up armed above is stale from now on
                    timed = self._fired
                elif next_due <= loop.time():
                    timed = True
                if self.stopping:
                    break
                woke = self._wake.is_set() and not (timed and self._fired)
                self._fired = False
                self._wake.clear()
                if woke and not timed:
                    ctx.stats.triggered += 1
                    gap = loop.time() - last_step
                    if gap < self.min_interval:
                        await asyncio.sleep(self.min_interval - gap)
                start = loop.time()
                ctx.due = next_due if timed and interval is not None else start
                if timed and interval is not None:
                    ctx.stats.timed += 1
                    if waited:
                        self.metrics.record_lag(start - next_due)
                    else:
                        ctx.stats.overruns += 1
                t0 = time.perf_counter()
                try:
                    await module.step(ctx)
                    failures = 0
                    if _cancel_pending():
                        # the step swallowed a cancel and returned (redis-py 8.1 retries a
                        # command a cancel interrupted): the stop still holds
                        raise asyncio.CancelledError
                except asyncio.CancelledError:
                    raise
                except Exception as err:
                    task = asyncio.current_task()
                    if self.stopping or (task is not None and task.cancelling()):
                        # a cancellation raced with a timeout inside the step (Python 3.11
                        # can turn it into TimeoutError): honour the stop, do not retry
                        raise asyncio.CancelledError from err
                    failures += 1
                    ctx.stats.errors += 1
                    log.exception("agent[%s].%s step failed", ctx.agent, module.name)
                    ctx.emit(
                        "module_error", error=f"{type(err).__name__}: {err}", failures=failures
                    )
                    backoff = min(self.max_backoff, 0.5 * 2 ** (failures - 1)) * self.time_scale
                    await asyncio.sleep(backoff * (0.5 + self.rng.random()))
                    try:
                        await module.setup(ctx)
                        ctx.stats.restarts += 1
                        ctx.emit("module_restarted", failures=failures)
                    except asyncio.CancelledError:
                        raise
                    except Exception:
                        log.exception("agent[%s].%s restart failed", ctx.agent, module.name)
                finally:
                    ctx.stats.busy_s += time.perf_counter() - t0
                    ctx.stats.steps += 1
                    self.metrics.last_step[(ctx.agent, module.name)] = wall_time()
                last_step = loop.time()
                if interval is not None and (timed or not has_triggers):
                    interval = self._interval() or interval
                    next_due += interval
                    if next_due < last_step:  # fell behind: do not burst to catch up
                        next_due = last_step
        finally:
            for sub in ctx.inbox.values():
                sub.close()


def _cancel_pending() -> bool:
    """True when this task was asked to stop and something below swallowed the cancel."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0
