"""The per-agent costs a plan is made from, read from committed benchmark results.

Each :class:`Cost` names the file and field it comes from, so a reader can check it and a
new measurement changes the plan without touching this code:

- agents without a world: ``piano bench runtime --json-out`` (CPU per agent-second, memory
  per agent, Redis and the broker included; decisions per agent-minute);
- embodied agents: ``piano bench village --json-out`` runs of different sizes on one shard,
  none near saturating its machine (every process of the run: server, bot hosts, Redis,
  broker, the village): the least-squares line through them gives a fixed part and a part
  per agent, and their mean decisions per agent-minute the pace that CPU buys; the agents
  per shard of a run with 0 kicks is the density planned for;
- the LLM: ``piano bench cost --json-out`` (calls and tokens per agent-hour).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_runtime.app.village_table import decisions_per_agent_minute

__all__ = [
    "CURRENT_COST",
    "ROOT",
    "Cost",
    "Costs",
    "PlanError",
    "Sources",
    "load_costs",
    "read_result",
]

ROOT = Path(__file__).resolve().parents[3]

#: the newest ``piano bench cost`` result (part J of agent_runtime/llm/BENCH.md): what a village
#: with a model is expected to ask of its endpoint, per agent-hour
CURRENT_COST = "agent_runtime/llm/results/cost-2026-11-27-e3-j1.json"


@dataclass(frozen=True)
class Sources:
    """The committed measurements a plan is made from (paths relative to the repository)."""

    runtime: str = "agent_runtime/app/results/cluster-2026-11-26/runtime-1000-proc3.json"
    #: one-shard ``piano bench village`` runs of different sizes, none near saturation, of the
    #: bodies and servers as they are now (runs of older bodies and servers no longer describe
    #: them: the 2026-11-27 calibration stays in results/plan/ as history)
    villages: tuple[str, ...] = (
        "agent_runtime/app/results/density-2026-12-02-sizes/village-10-1shard-after.json",
        "agent_runtime/app/results/density-2026-12-02-sizes/village-25-1shard-after.json",
        "agent_runtime/app/results/density-2026-12-02-sizes/village-50-1shard-after.json",
    )
    #: a run whose shards held their agents with 0 kicks: its agents per shard are planned for
    density: str = (
        "agent_runtime/app/results/density-2026-12-02-sizes/village-100-ray2nodes-after-1.json"
    )
    #: the current LLM bill (``piano bench cost``): the one source of the LLM rates of a plan
    #: and of the README's 50-agent figures (its ``cost-summary`` block names this file)
    cost: str = CURRENT_COST
    #: a village run on a local Ray cluster: what Ray's own processes cost (``ray *`` kinds)
    ray: str = (
        "agent_runtime/app/results/density-2026-12-02-sizes/village-100-ray2nodes-after-2.json"
    )


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
    #: the pace the CPU above buys: decisions per agent-minute of the runs it is measured in
    decisions_per_agent_minute: Cost  # without a world
    embodied_decisions_per_agent_minute: Cost
    llm_calls_per_agent_hour: Cost
    llm_tokens_per_agent_hour: Cost
    #: with ``--cluster ray``: Ray's own processes (raylets, GCS, dashboard, actor hosts)
    ray_fixed_cores: Cost
    ray_fixed_mb: Cost


def read_result(rel: str, root: Path = ROOT) -> dict[str, Any]:
    """A committed result file (``rel`` relative to ``root``); :class:`PlanError` names it."""
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


def _ray_part(data: dict[str, Any], rel: str, what: str) -> float:
    """The sum of ``what`` over a run's ``ray *`` processes."""
    kinds = data.get("all_processes", {}).get("by_kind", {})
    parts = [float(v[what]) for k, v in kinds.items() if k.startswith("ray")]
    if not parts:
        raise PlanError(f"{rel}: no field all_processes.by_kind.ray*")
    return sum(parts)


def _pace(data: dict[str, Any], rel: str) -> float:
    """A village run's decisions per agent-minute."""
    try:
        return decisions_per_agent_minute(data)
    except KeyError as err:
        raise PlanError(f"{rel}: no field {err.args[0]}") from None


def _unkicked(data: dict[str, Any], rel: str) -> None:
    if _field(data, rel, "kicks") > 0 or data.get("kicks_whole_run", 0) > 0:
        raise PlanError(f"{rel}: bodies were kicked; it cannot calibrate the plan")


#: a calibration run whose machine was busier than this share of its cores (its own processes
#: and anything beside them) did less work per agent than it wanted: it cannot calibrate
BUSY = 0.95


def _unsaturated(data: dict[str, Any], rel: str) -> None:
    busy = data.get("machine_cpu_percent")
    cores = data.get("provenance", {}).get("cpus")
    if busy is not None and cores and float(busy) >= 100 * BUSY * float(cores):
        raise PlanError(
            f"{rel}: its machine was saturated ({float(busy):g}% of {100 * int(cores)}%); "
            "it cannot calibrate the plan"
        )


def load_costs(root: Path = ROOT, sources: Sources | None = None) -> Costs:
    src = sources or Sources()
    r, c, dense = (
        read_result(src.runtime, root),
        read_result(src.cost, root),
        read_result(src.density, root),
    )
    ray = read_result(src.ray, root)
    runs = {rel: read_result(rel, root) for rel in src.villages}
    for rel, data in runs.items():
        _unkicked(data, rel)
        _unsaturated(data, rel)
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
    paces = [_pace(d, rel) for rel, d in runs.items()]
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
        decisions_per_agent_minute=Cost(
            _field(r, src.runtime, "cc_decisions_per_s") * 60 / _field(r, src.runtime, "agents"),
            f"{src.runtime}: cc_decisions_per_s x 60 / agents",
        ),
        embodied_decisions_per_agent_minute=Cost(
            sum(paces) / len(paces), f"{runs_named}: decisions per agent-minute, their mean"
        ),
        llm_calls_per_agent_hour=Cost(
            _field(c, src.cost, "modules", "all", "calls_per_agent_hour"),
            f"{src.cost}: modules.all.calls_per_agent_hour",
        ),
        llm_tokens_per_agent_hour=Cost(
            _field(c, src.cost, "modules", "all", "tokens_per_agent_hour"),
            f"{src.cost}: modules.all.tokens_per_agent_hour",
        ),
        ray_fixed_cores=Cost(
            _ray_part(ray, src.ray, "cpu_percent") / 100,
            f"{src.ray}: all_processes.by_kind.ray*.cpu_percent, summed",
        ),
        ray_fixed_mb=Cost(
            _ray_part(ray, src.ray, "rss_mb"),
            f"{src.ray}: all_processes.by_kind.ray*.rss_mb, summed",
        ),
    )
