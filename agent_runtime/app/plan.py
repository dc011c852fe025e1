"""Capacity planning: what N agents need (CPUs, memory, nodes, world shards, workers, LLM
rates), from per-agent costs the benchmarks measured and committed as result files.

Every figure of a :class:`Plan` names the file and field it comes from (``sources``), so a
reader can check it and a new measurement changes the plan without touching this code:

- agents without a world: ``piano bench runtime --json-out`` (CPU per agent-second, memory
  per agent; Redis and the broker included);
- embodied agents: ``piano bench village --json-out`` runs of different sizes on one shard,
  none near saturating its machine (every process of the run: server, bot hosts, Redis,
  broker, the village): the least-squares line through them gives a fixed part and a part
  per agent; the agents per shard of a run with 0 kicks is the density planned for;
- the LLM: ``piano bench cost --json-out`` (calls and tokens per agent-hour).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_runtime.app.doc_figures import markdown_table
from agent_runtime.app.village_table import decisions_per_agent_minute
from agent_runtime.app.workers import AGENTS_PER_WORKER

__all__ = ["Costs", "Plan", "PlanError", "Sources", "load_costs", "plan", "render_check"]

ROOT = Path(__file__).resolve().parents[2]
#: a share of a node's cores planned for at most (the lag's tail grows near saturation)
CPU_HEADROOM = 0.7
#: and of its memory
MEMORY_HEADROOM = 0.8


@dataclass(frozen=True)
class Sources:
    """The committed measurements a plan is made from (paths relative to the repository)."""

    runtime: str = "agent_runtime/app/results/cluster-2026-11-26/runtime-1000-proc3.json"
    #: one-shard ``piano bench village`` runs of different sizes, none near saturation (the
    #: runs of 2026-11-27 00:07-00:12 before the server's batched writes are history)
    villages: tuple[str, ...] = (
        "agent_runtime/app/results/plan/village-10-1shard-2026-11-27.json",
        "agent_runtime/app/results/plan/village-20-1shard-2026-11-27.json",
        "agent_runtime/app/results/plan/village-30-1shard-2026-11-27.json",
    )
    #: a run whose shards held their agents with 0 kicks: its agents per shard are planned for
    density: str = "agent_runtime/app/results/cluster-2026-11-27/village-100-ray2nodes-c5.json"
    cost: str = "agent_runtime/llm/results/cost-2026-11-27-c-after.json"


class PlanError(ValueError):
    """A result file is missing or lacks a field; the message names it."""


@dataclass(frozen=True)
class Cost:
    value: float
    source: str  # "file: field"


@dataclass(frozen=True)
class Costs:
    cores_per_agent: Cost  # without a world
    mb_per_agent: Cost
    embodied_cores_per_agent: Cost
    embodied_mb_per_agent: Cost
    embodied_fixed_cores: Cost  # what a village with bodies costs before its first agent
    embodied_fixed_mb: Cost
    agents_per_shard: Cost
    llm_calls_per_agent_hour: Cost
    llm_tokens_per_agent_hour: Cost


@dataclass(frozen=True)
class Plan:
    agents: int
    embodied: bool
    cpus: float
    memory_gb: float
    nodes: int
    world_shards: int
    agent_workers: int
    llm_calls_per_s: float
    llm_tokens_per_minute: float
    llm_requests_in_flight: float
    sources: dict[str, str] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def _read(rel: str, root: Path) -> dict[str, Any]:
    path = root / rel
    try:
        data: dict[str, Any] = json.loads(path.read_text())
    except FileNotFoundError:
        raise PlanError(f"{rel}: no such result file (run the benchmark with --json-out)") from None
    except ValueError as err:
        raise PlanError(f"{rel}: not JSON ({err})") from None
    return data


def _field(data: dict[str, Any], rel: str, *path: str) -> float:
    node: Any = data
    for key in path:
        if not isinstance(node, dict) or key not in node:
            raise PlanError(f"{rel}: no field {'.'.join(path)}")
        node = node[key]
    return float(node)


def _line(points: list[tuple[float, float]]) -> tuple[float, float]:
    """(at 0, per unit): the least-squares line through ``(x, y)`` points."""
    mean_x = sum(x for x, _ in points) / len(points)
    mean_y = sum(y for _, y in points) / len(points)
    spread = sum((x - mean_x) ** 2 for x, _ in points)
    per = sum((x - mean_x) * (y - mean_y) for x, y in points) / spread
    return mean_y - per * mean_x, per


def _unkicked(data: dict[str, Any], rel: str) -> None:
    if _field(data, rel, "kicks") > 0 or data.get("kicks_whole_run", 0) > 0:
        raise PlanError(f"{rel}: bodies were kicked; it cannot calibrate the plan")


def load_costs(root: Path = ROOT, sources: Sources | None = None) -> Costs:
    src = sources or Sources()
    r, c, dense = _read(src.runtime, root), _read(src.cost, root), _read(src.density, root)
    runs = {rel: _read(rel, root) for rel in src.villages}
    for rel, data in runs.items():
        _unkicked(data, rel)
        if _field(data, rel, "shards") != 1:
            raise PlanError(f"{rel}: a calibration run has one shard")
    _unkicked(dense, src.density)
    if len({_field(d, rel, "agents") for rel, d in runs.items()}) < 2:
        raise PlanError(f"{', '.join(src.villages)}: need runs of at least two sizes")

    def line(*path: str) -> tuple[float, float]:  # (at 0 agents, per agent) through the runs
        return _line([(_field(d, rel, "agents"), _field(d, rel, *path)) for rel, d in runs.items()])

    cpu_fixed, cpu_per = line("all_processes", "cpu_percent")
    mb_fixed, mb_per = line("all_processes", "rss_mb")
    runs_named = " and ".join(src.villages)
    return Costs(
        cores_per_agent=Cost(
            _field(r, src.runtime, "cpu_us_per_agent_s") / 1e6
            + _field(r, src.runtime, "services_cpu_pct") / 100 / _field(r, src.runtime, "agents"),
            f"{src.runtime}: cpu_us_per_agent_s + services_cpu_pct / agents",
        ),
        mb_per_agent=Cost(
            _field(r, src.runtime, "rss_mb_per_agent"), f"{src.runtime}: rss_mb_per_agent"
        ),
        embodied_cores_per_agent=Cost(
            cpu_per / 100, f"{runs_named}: all_processes.cpu_percent, the slope per agent"
        ),
        embodied_mb_per_agent=Cost(
            mb_per, f"{runs_named}: all_processes.rss_mb, the slope per agent"
        ),
        embodied_fixed_cores=Cost(max(0.0, cpu_fixed / 100), f"{runs_named}: the line at 0 agents"),
        embodied_fixed_mb=Cost(max(0.0, mb_fixed), f"{runs_named}: the line at 0 agents"),
        agents_per_shard=Cost(
            _field(dense, src.density, "agents") / _field(dense, src.density, "shards"),
            f"{src.density}: agents / shards, 0 kicks",
        ),
        llm_calls_per_agent_hour=Cost(
            _field(c, src.cost, "modules", "all", "calls_per_agent_hour"),
            f"{src.cost}: modules.all.calls_per_agent_hour",
        ),
        llm_tokens_per_agent_hour=Cost(
            _field(c, src.cost, "modules", "all", "tokens_per_agent_hour"),
            f"{src.cost}: modules.all.tokens_per_agent_hour",
        ),
    )


def plan(
    agents: int,
    costs: Costs,
    *,
    embodied: bool,
    cores_per_node: float,
    memory_gb_per_node: float,
    llm_latency_s: float = 0.0,
    llm: bool = True,
) -> Plan:
    """What ``agents`` agents need on nodes of ``cores_per_node`` cores and
    ``memory_gb_per_node`` GB (each planned at :data:`CPU_HEADROOM` / :data:`MEMORY_HEADROOM`)."""
    if agents < 1 or cores_per_node <= 0 or memory_gb_per_node <= 0 or llm_latency_s < 0:
        raise ValueError("need agents >= 1, positive node sizes and a latency >= 0")
    cpu = costs.embodied_cores_per_agent if embodied else costs.cores_per_agent
    mem = costs.embodied_mb_per_agent if embodied else costs.mb_per_agent
    shards = math.ceil(agents / costs.agents_per_shard.value) if embodied else 0
    # with bodies: the village's fixed part once (its servers' load grows with their bots,
    # which the part per agent holds), the rest per agent
    fixed_cores = costs.embodied_fixed_cores.value if embodied else 0.0
    fixed_mb = costs.embodied_fixed_mb.value if embodied else 0.0
    cpus = agents * cpu.value + fixed_cores
    memory_gb = (agents * mem.value + fixed_mb) / 1024
    nodes = max(
        math.ceil(cpus / (cores_per_node * CPU_HEADROOM)),
        math.ceil(memory_gb / (memory_gb_per_node * MEMORY_HEADROOM)),
        1,
    )
    calls_s = agents * costs.llm_calls_per_agent_hour.value / 3600 if llm else 0.0
    tokens_min = agents * costs.llm_tokens_per_agent_hour.value / 60 if llm else 0.0
    sources = {"cpus": cpu.source, "memory_gb": mem.source}
    if embodied:
        sources["world_shards"] = costs.agents_per_shard.source
    if llm:
        sources["llm_calls_per_s"] = costs.llm_calls_per_agent_hour.source
        sources["llm_tokens_per_minute"] = costs.llm_tokens_per_agent_hour.source
    return Plan(
        agents=agents,
        embodied=embodied,
        cpus=round(cpus, 2),
        memory_gb=round(memory_gb, 2),
        nodes=nodes,
        world_shards=shards,
        agent_workers=max(1, math.ceil(agents / AGENTS_PER_WORKER)),
        llm_calls_per_s=round(calls_s, 2),
        llm_tokens_per_minute=round(tokens_min),
        llm_requests_in_flight=round(calls_s * llm_latency_s, 1),  # Little's law
        sources=sources,
    )


def _calibrated_rates(root: Path = ROOT) -> str:
    """The decisions per agent-minute of the runs the plan is calibrated on: ``low-high``."""
    rates = [decisions_per_agent_minute(_read(rel, root)) for rel in Sources().villages]
    return f"{min(rates):.2f}-{max(rates):.2f} (calibration runs)"


def _measured_cores(measured: Mapping[str, Any]) -> str:
    """The run's cores, saying when its machine was saturated (then it shows no more than
    the machine has: the need may be larger)."""
    cores = float(measured["all_processes"]["cpu_percent"]) / 100
    machine = int(measured["provenance"]["cpus"])
    text = f"{cores:.2f} (of the machine's {machine}"
    busy = measured.get("machine_cpu_percent")
    if busy is not None and float(busy) >= 95 * machine:
        text += f"; machine CPU {float(busy):g}%: saturated, the need may be more"
    return text + ")"


def _render_calibration(root: Path = ROOT) -> str:
    """The village runs the plan with bodies is calibrated on, and the line through them."""
    src, costs = Sources(), load_costs(root)
    rows = []
    for rel in src.villages:
        r = _read(rel, root)
        used = r["all_processes"]
        servers = sum(float(v) for v in r.get("server_cpu_percent", {}).values())
        rows.append(
            f"| {r['provenance']['date'][:16].replace('T', ' ')} | {r['agents']} "
            f"| {used['cpu_percent']:g} | {servers:g} | {used['rss_mb']:,.0f} "
            f"| {decisions_per_agent_minute(r):.2f} | {r['sched_lag_ms']['p99']:g} | {r['kicks']} |"
        )
    per_cpu, per_mb = costs.embodied_cores_per_agent.value, costs.embodied_mb_per_agent.value
    fixed_cpu, fixed_mb = costs.embodied_fixed_cores.value, costs.embodied_fixed_mb.value
    rows.append(
        f"| **the line**: per agent | | **{100 * per_cpu:.2f}** | | **{per_mb:.1f}** | | | |"
    )
    rows.append(f"| at 0 agents | | {100 * fixed_cpu:.1f} | | {fixed_mb:,.0f} | | | |")
    head = (
        "| run (UTC) | agents | CPU % of one core, all processes | of it the server "
        "| RSS MB | decisions per agent-minute | lag p99 (ms) | kicks |"
    )
    return markdown_table(head, rows)


def render_check(source: Path, options: Mapping[str, str]) -> str:
    """The plan for a measured village bench (``source``) beside what it measured; with
    ``table=calibration`` instead the runs the plan is calibrated on (``source``: the first)."""
    if options.get("table") == "calibration":
        return _render_calibration()
    measured = json.loads(source.read_text())
    agents = int(measured["agents"])
    p = plan(
        agents,
        load_costs(),
        embodied=True,
        cores_per_node=float(options.get("cores", "2")),
        memory_gb_per_node=float(options.get("memory_gb", "24")),
        llm=False,
    )
    cores = float(measured["all_processes"]["cpu_percent"]) / 100
    gb = float(measured["all_processes"]["rss_mb"]) / 1024
    rows = [
        f"| {agents} agents with bodies | planned | measured | planned / measured |",
        "|---|---|---|---|",
        f"| CPUs (cores) | {p.cpus:g} | {_measured_cores(measured)} | {p.cpus / cores:.2f} |",
        f"| memory (GB) | {p.memory_gb:g} | {gb:.2f} | {p.memory_gb / gb:.2f} |",
        f"| world shards | {p.world_shards} | {measured['shards']} (kicks: "
        f"{measured['kicks']}) | |",
        f"| nodes of {options.get('cores', '2')} cores | {p.nodes} | 1 | |",
        f"| decisions per agent-minute (the work the CPU buys) | {_calibrated_rates()} "
        f"| {decisions_per_agent_minute(measured):.2f} | |",
    ]
    return "\n".join(rows) + "\n"
