"""Running an experiment's village: one run's village with its protocol, its agents' fresh
state, the world's admin APIs, and which brain decided.

The experiment file and its runs are :mod:`experiments.spec`, the output files
:mod:`experiments.files`. A run's protocol time is a :class:`~agent_runtime.clock.Clock` of its
own (protocol seconds from when the protocol starts, at the run's time scale).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import Counter
from collections.abc import Callable, Coroutine, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_runtime.clock import Clock
from agent_runtime.config.models import VillageConfig
from experiments.spec import ExperimentOptions, RunSpec

if TYPE_CHECKING:
    from agent_runtime.app.village import Village

log = logging.getLogger(__name__)

#: what an experiment does to a running village on the run's protocol clock
Protocol = Callable[["Village", Clock], Coroutine[Any, Any, None]]

EXPERIMENTS_DIR = Path(__file__).resolve().parent
SHUTDOWN_GRACE_S = 10.0  # then stuck agent tasks are cancelled again (a runtime bug)
CANCEL_AGAIN_S = 1.0  # a protocol task still running this long after its cancel gets another
WORKERS_STOP_S = 30.0  # workers checkpoint and exit on SIGTERM (WorkerPool's stop_timeout)


async def run_village(
    spec: RunSpec,
    opts: ExperimentOptions,
    duration_s: float,
    during: Protocol | None = None,
    after: Protocol | None = None,
    *,
    agent_limit: int | None = None,
) -> None:
    """Open the run's village, run ``during`` next to it for ``duration_s`` protocol seconds,
    then ``after`` (final measurements) before the village shuts down.

    With ``opts.workers`` > 1 the agents live in worker processes (experiments/workers.py):
    the protocols get the coordinating village, whose ``resolved`` lists every agent
    (:func:`agent_names`), whose store is brought up to date by :func:`fresh_state`, and
    whose ``events`` (``events.jsonl`` and listeners) receive every worker's records; the
    protocol's clock starts when every agent runs, as it does in process."""
    from agent_runtime.app.progress import RunView, default_web_port
    from agent_runtime.app.village import Village, VillageOptions

    view = RunView(  # live page + progress bar
        spec.label, spec.time_scale * duration_s, opts.progress, web_port=default_web_port()
    )
    vopts = VillageOptions(
        run_dir=spec.run_dir,
        run_id=spec.run_id,
        agent_limit=agent_limit,
        embedder=opts.embedder,
        llm_override=opts.llm_override,
        **view.options(),
    )
    if opts.workers > 1:
        from experiments.workers import worker_village

        opened: contextlib.AbstractAsyncContextManager[Village] = worker_village(spec, opts, vopts)
    else:
        opened = Village(spec.config, vopts)
    async with opened as village:
        view.started(village)
        tl = Clock(time_scale=spec.time_scale)
        village.events.emit("experiment_started", experiment=spec.experiment,
                            condition=spec.condition.name, repeat=spec.repeat,
                            time_scale=spec.time_scale, workers=opts.workers)
        async with asyncio.TaskGroup() as tg:
            task = (
                tg.create_task(during(village, tl), name=f"experiment[{spec.label}].protocol")
                if during is not None
                else None
            )
            await village.run(tl.scaled(duration_s), stop=opts.stop)
            while task is not None and not task.done():  # again if a library swallowed it
                task.cancel()
                await asyncio.wait([task], timeout=CANCEL_AGAIN_S)
        if after is not None:
            await after(village, tl)
        village.events.emit("experiment_stopped", protocol_s=round(tl.protocol(), 3))
        view.close()
        grace = SHUTDOWN_GRACE_S + (WORKERS_STOP_S if opts.workers > 1 else 0.0)
        watchdog = asyncio.create_task(_report_slow_shutdown(spec.label, grace),
                                       name=f"experiment[{spec.label}].shutdown_watchdog")
    watchdog.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await watchdog


def agent_names(village: Village) -> list[str]:
    """Every agent of the run (in the village file's order), whether this process hosts it
    or a worker does: what a protocol iterates over (``village.agents`` holds only the
    agents of this process)."""
    return [a.name for a in village.resolved]


async def fresh_state(village: Village) -> None:
    """Bring the state store up to date before a protocol reads the agents' state. In process
    the store's cache *is* the agents' state; with workers the agents write to Redis from
    other processes, so the coordinator reloads every agent from Redis (pipelined).

    The reload is shielded: redis-py (8.1) can turn a cancellation that lands inside a
    command into a connection error it retries, so the protocol task would go on after the
    run ended; cancelled here, the task stops at once and the (finite) reload completes."""
    if village.options.host_agents or village.store is None:
        return
    reload = asyncio.ensure_future(village.store.load_agents(agent_names(village)))
    _reloads.add(reload)
    reload.add_done_callback(_reloads.discard)
    await asyncio.shield(reload)


_reloads: set[asyncio.Future[None]] = set()  # shielded reloads still running


def admin_apis(world: Any) -> list[tuple[str, str]]:
    """The admin API of every Minecraft server of the run as (shard name, URL): one per shard
    of ``world.shards``, else the embedded world's with the name "" (none without one)."""
    router = getattr(world, "router", None)
    if router is not None:
        return [(str(s.name), str(s.world.admin_url)) for s in router.shards if s.world.admin_url]
    url = getattr(world, "admin_url", None)
    return [("", str(url))] if url else []


async def _report_slow_shutdown(label: str, after_s: float) -> None:
    """Work around agent tasks that survive their cancellation (see experiments/NEEDS.md).

    When a village has not shut down after ``after_s`` seconds, log where every task waits,
    then cancel the still-running ``agent[...]`` tasks again every few seconds."""
    await asyncio.sleep(after_s)
    log.warning("run %s: the village has not shut down after %.0f s; tasks:", label, after_s)
    for task in asyncio.all_tasks():
        log.warning("  %s: %s", task.get_name(), " -> ".join(_await_chain(task.get_coro())))
    while True:
        stuck = [t for t in asyncio.all_tasks()
                 if t.get_name().startswith("agent[") and not t.done()]
        if stuck:
            log.warning("run %s: cancelling %d agent task(s) again: %s", label, len(stuck),
                        ", ".join(t.get_name() for t in stuck[:10]))
            for t in stuck:
                t.cancel()
        await asyncio.sleep(5.0)


def _await_chain(coro: Any) -> list[str]:
    """Where a suspended coroutine waits: its frames along ``cr_await``, outermost first."""
    out: list[str] = []
    while coro is not None and len(out) < 20:
        frame = getattr(coro, "cr_frame", None) or getattr(coro, "gi_frame", None)
        if frame is None:
            break
        out.append(f"{frame.f_code.co_filename.rsplit('/', 1)[-1]}:{frame.f_lineno} "
                   f"{frame.f_code.co_name}")
        coro = getattr(coro, "cr_await", None) or getattr(coro, "gi_yieldfrom", None)
    return out


# --- reading a run back -----------------------------------------------------------------


def brains_seen(events: Iterable[Mapping[str, Any]]) -> dict[str, int]:
    """Which brains produced the decisions and goals of a run (``heuristic``, ``llm:<model>``)."""
    c: Counter[str] = Counter()
    for e in events:
        if e.get("type") in ("decision", "goal") and e.get("brain"):
            c[str(e["brain"])] += 1
    return dict(c)


def brain_label(cfg: VillageConfig) -> str:
    if cfg.llm.provider == "heuristic":
        return "heuristic"
    return f"{cfg.llm.provider}:{cfg.llm.model}"


# --- writing outputs ------------------------------------------------------------------------
