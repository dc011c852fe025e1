"""What every experiment shares: its YAML file, options, runs of a village, timelines, outputs.

An experiment file (``experiments/<name>/config.yaml``) has::

    experiment: tax                # which runner
    repeats: 4                     # per condition (--repeats overrides)
    conditions:                    # what differs between runs
      - {name: full-pro, preset: full, community_goal: ..., overrides: {...}, params: {...}}
    protocol: {...}                # every number of the protocol (validated by the runner)
    paper: {...}                   # the paper's figures, for report.md
    village: {...}                 # a village file (agent_runtime.config) shared by all runs

A run = one condition x one repeat: a :class:`Village` with its own run folder
under ``<out>/runs/<condition>-r<k>/``. Protocol times are in protocol seconds;
:class:`Timeline` maps them to wall time with ``--time-scale`` (which also scales
the modules' cadences, so a scaled run is the same run, faster).
"""

from __future__ import annotations

import asyncio
import contextlib
import csv
import json
import logging
import math
import time
from collections import Counter
from collections.abc import Callable, Coroutine, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field, ValidationError

from agent_runtime.config.errors import ConfigError, FieldProblem
from agent_runtime.config.loader import parse_config, problems_from_validation, read_yaml
from agent_runtime.config.models import Strict, VillageConfig

if TYPE_CHECKING:
    from agent_runtime.app.village import Village
    from agent_runtime.llm.brain import Brain

log = logging.getLogger(__name__)

EXPERIMENTS_DIR = Path(__file__).resolve().parent
SHUTDOWN_GRACE_S = 10.0  # then stuck agent tasks are cancelled again (a runtime bug)
CANCEL_AGAIN_S = 1.0  # a protocol task still running this long after its cancel gets another
WORKERS_STOP_S = 30.0  # workers checkpoint and exit on SIGTERM (WorkerPool's stop_timeout)


class Condition(Strict):
    name: str = Field(pattern=r"^[A-Za-z0-9_.-]{1,40}$")
    preset: Literal["full", "baseline", "no_action_awareness", "no_social"] | None = None
    community_goal: str | None = None
    overrides: dict[str, Any] = Field(default_factory=dict)  # dotted paths into `village`
    params: dict[str, Any] = Field(default_factory=dict)  # read by the runner


class ExperimentFile(Strict):
    experiment: str
    description: str = ""
    repeats: int = Field(default=1, ge=1, le=100)
    conditions: tuple[Condition, ...] = Field(min_length=1)
    protocol: dict[str, Any] = Field(default_factory=dict)
    paper: dict[str, Any] = Field(default_factory=dict)
    village: dict[str, Any]


def load_experiment_file(path: Path) -> ExperimentFile:
    """Read and validate an experiment file; errors name the field and the file."""
    data = read_yaml(path)
    try:
        exp = ExperimentFile.model_validate(data)
    except ValidationError as err:
        raise ConfigError(path, problems_from_validation(err)) from None
    parse_config(exp.village, f"{path} (village)")  # fail early on a broken village
    names = [c.name for c in exp.conditions]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise ConfigError(path, [FieldProblem("conditions", f"names repeated: {dup}")])
    return exp


def parse_protocol(exp: ExperimentFile, model: type[Any], file: Path | str) -> Any:
    try:
        return model.model_validate(exp.protocol)
    except ValidationError as err:
        problems = [
            FieldProblem("protocol." + p.path if p.path else "protocol", p.message)
            for p in problems_from_validation(err)
        ]
        raise ConfigError(file, problems) from None


@dataclass(frozen=True)
class ExperimentOptions:
    """Command-line knobs (``piano experiment``)."""

    out: Path
    llm: str | None = None  # heuristic | openai; None = the file's llm.provider
    repeats: int | None = None
    time_scale: float = 1.0
    world: str | None = None  # embedded | none; None = the file's world.kind
    agents: int | None = None  # fewer (or more, where the runner allows) agents
    scale: float | None = None  # culture: the paper's protocol times this (--scale)
    conditions: tuple[str, ...] = ()  # run only these conditions
    seed: int | None = None
    # agents hosted by this many worker processes sharing Redis, the broker and the world
    # (experiments/workers.py); 1 = in this process
    workers: int = 1
    shards: int | None = None  # culture: Minecraft servers the area is split over (--shards)
    embedder: Any = None  # tests: a cheap encoder instead of MiniLM
    llm_override: Any = None  # tests: a LanguageModel (e.g. scripted) used by every module
    progress: Callable[[str], None] | None = None
    # set by Ctrl-C/SIGTERM (``piano experiment``): the current run ends early and no
    # further run starts; the report covers the runs done
    stop: asyncio.Event | None = None


@dataclass(frozen=True)
class RunSpec:
    experiment: str
    condition: Condition
    repeat: int
    seed: int
    run_id: str
    run_dir: Path
    config: VillageConfig
    time_scale: float

    @property
    def label(self) -> str:
        return f"{self.condition.name}-r{self.repeat}"


def set_dotted(data: dict[str, Any], dotted: str, value: Any) -> None:
    node = data
    keys = dotted.split(".")
    for k in keys[:-1]:
        nxt = node.get(k)
        if not isinstance(nxt, dict):
            nxt = node[k] = {}
        node = nxt
    node[keys[-1]] = value


def village_data(
    exp: ExperimentFile, cond: Condition, opts: ExperimentOptions, seed: int
) -> dict[str, Any]:
    """The village file for one run (as data): condition, CLI flags and seed applied."""
    data: dict[str, Any] = json.loads(json.dumps(exp.village))  # deep copy of plain data
    if cond.preset is not None:
        set_dotted(data, "modules.preset", cond.preset)
    if cond.community_goal is not None:
        data["community_goal"] = cond.community_goal
    for dotted, value in cond.overrides.items():
        set_dotted(data, dotted, value)
    if opts.llm is not None:
        set_dotted(data, "llm.provider", opts.llm)
    if opts.world is not None:
        set_dotted(data, "world.kind", opts.world)
    set_dotted(data, "run.seed", seed)
    set_dotted(data, "run.time_scale", opts.time_scale)
    set_dotted(data, "run.progress_every", max(0.5, 10.0 * opts.time_scale))
    return data


def plan_runs(
    exp: ExperimentFile,
    opts: ExperimentOptions,
    out: Path,
    make_config: Callable[[dict[str, Any], Condition, int], VillageConfig] | None = None,
) -> Iterator[RunSpec]:
    """Conditions x repeats, each with its own seed, run id and folder."""
    selected = [c for c in exp.conditions if not opts.conditions or c.name in opts.conditions]
    unknown = sorted(set(opts.conditions) - {c.name for c in exp.conditions})
    if unknown:
        raise ValueError(
            f"unknown condition(s) {unknown}; known: {[c.name for c in exp.conditions]}"
        )
    repeats = opts.repeats or exp.repeats
    base_seed = opts.seed if opts.seed is not None else int(exp.village.get("run", {}).get("seed", 0))
    for ci, cond in enumerate(selected):
        for r in range(repeats):
            if opts.stop is not None and opts.stop.is_set():
                log.warning("stopped: runs from %s-r%d on are not started", cond.name, r)
                return
            seed = base_seed + 1000 * r + ci  # repeats differ; conditions of a repeat pair up
            data = village_data(exp, cond, opts, seed)
            label = f"{cond.name}-r{r}"
            cfg = make_config(data, cond, seed) if make_config else parse_config(data, label)
            yield RunSpec(
                experiment=exp.experiment,
                condition=cond,
                repeat=r,
                seed=seed,
                run_id=f"{exp.experiment}-{label}-{int(time.time() * 1000) % 10**8}",
                run_dir=out / "runs" / label,
                config=cfg,
                time_scale=opts.time_scale,
            )


class Timeline:
    """Protocol seconds <-> wall clock for one run (``scale`` wall seconds per protocol s)."""

    def __init__(self, scale: float, start: float | None = None) -> None:
        if scale <= 0:
            raise ValueError("scale must be positive")
        self.scale = scale
        self.start = time.time() if start is None else start

    def now(self) -> float:
        """Protocol seconds since the start."""
        return (time.time() - self.start) / self.scale

    def since_start(self, wall: float) -> float:
        """Protocol second of wall-clock time ``wall``; 0 for a time before the start (the
        agents start before the clock: what they did meanwhile is held at t = 0)."""
        return max(0.0, (wall - self.start) / self.scale)

    def wall(self, t: float) -> float:
        """Wall-clock (unix) time of protocol second ``t``."""
        return self.start + t * self.scale

    def seconds(self, t: float) -> float:
        """A protocol duration in wall seconds."""
        return t * self.scale

    async def until(self, t: float) -> None:
        """Return at protocol second ``t`` (at once if it has passed)."""
        delay = self.wall(t) - time.time()
        if delay > 0:
            await asyncio.sleep(delay)


Protocol = Callable[["Village", Timeline], Coroutine[Any, Any, None]]


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

    view = RunView(  # live page + progress bar (issue 15)
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
        tl = Timeline(spec.time_scale)
        village.events.emit("experiment_started", experiment=spec.experiment,
                            condition=spec.condition.name, repeat=spec.repeat,
                            time_scale=spec.time_scale, workers=opts.workers)
        async with asyncio.TaskGroup() as tg:
            task = (
                tg.create_task(during(village, tl), name=f"experiment[{spec.label}].protocol")
                if during is not None
                else None
            )
            await village.run(tl.seconds(duration_s), stop=opts.stop)
            while task is not None and not task.done():  # again if a library swallowed it
                task.cancel()
                await asyncio.wait([task], timeout=CANCEL_AGAIN_S)
        if after is not None:
            await after(village, tl)
        village.events.emit("experiment_stopped", protocol_s=round(tl.now(), 3))
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


def read_events(run_dir: Path) -> list[dict[str, Any]]:
    path = run_dir / "events.jsonl"
    if not path.exists():
        return []
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError:
                log.warning("skipping a broken line in %s", path)
    return out


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


def brain_for(llm: Any, module: str, agent: str) -> Brain | None:
    """The :class:`Brain` an experiment-side policy gets from the run's LLMService (None =
    the heuristic), for :func:`agent_runtime.policy.make_policy`."""
    if llm is None or not llm.uses_llm:
        return None
    brain: Brain = llm.brain(module, agent)
    return brain


# --- writing outputs ------------------------------------------------------------------------


def experiment_dir(parent: Path, name: str) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    out = parent / f"{name}-{stamp}"
    i = 1
    while out.exists():
        out = parent / f"{name}-{stamp}-{i}"
        i += 1
    out.mkdir(parents=True)
    return out


def write_csv(path: Path, rows: Sequence[Mapping[str, Any]], fields: Sequence[str]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=list(fields), extrasaction="ignore")
        w.writeheader()
        for row in rows:
            w.writerow({k: _cell(row.get(k)) for k in fields})
    return path


def read_csv(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def _cell(v: Any) -> Any:
    if isinstance(v, float):
        return "" if not math.isfinite(v) else round(v, 6)
    if isinstance(v, (dict, list, tuple)):
        return json.dumps(v, default=str)
    return v


def write_jsonl(path: Path, rows: Iterable[Mapping[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, default=str) + "\n")
    return path


def clean(v: Any) -> Any:
    """JSON-safe: nan/inf -> None, tuples -> lists, recursively."""
    if isinstance(v, float):
        return v if math.isfinite(v) else None
    if isinstance(v, Mapping):
        return {str(k): clean(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [clean(x) for x in v]
    return v


def write_json(path: Path, data: Mapping[str, Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(clean(data), indent=2, default=str), encoding="utf-8")
    return path
