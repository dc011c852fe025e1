"""``piano plan --agents N [--embodied] [--llm-latency S] [--cores C [--memory-gb M]]``: the
nodes, CPUs, memory, world shards and LLM rates a village of N agents needs, from the
committed benchmark results (:mod:`agent_runtime.app.plan`), and with ``--cores`` what it
does on the machine(s) it will run on: the CPU it uses, CPU-bound or not, the pace its agents
decide at. ``--check RUN`` compares that with a ``piano bench village`` result. Every figure
says which measurement it comes from."""

from __future__ import annotations

import argparse
import json
import os
import sys

import psutil
from rich.console import Console
from rich.table import Table

from agent_runtime.app.bench_output import Measurement, add_json_out, emit
from agent_runtime.app.cli.bench_flags import add_llm_latency
from agent_runtime.app.plan import (
    CPU_HEADROOM,
    MEMORY_HEADROOM,
    OnMachine,
    Plan,
    PlanError,
    check,
    load_costs,
    on_machine,
    plan,
    read_result,
)


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("plan", help="size a village: nodes, CPUs, memory, shards, LLM rates")
    p.add_argument("--agents", type=int, required=True)
    p.add_argument("--embodied", action="store_true", help="with bodies on embedded servers")
    add_llm_latency(p, 0.0, "the time an LLM call takes")
    p.add_argument("--no-llm", action="store_true", help="the heuristic brain: no LLM rates")
    p.add_argument(
        "--cores-per-node", type=float, help="cores of one node (default: this machine's)"
    )
    p.add_argument("--memory-per-node", type=float, help="GB of one node (default: this machine's)")
    p.add_argument("--cluster", choices=["ray"], help="on a Ray cluster: Ray's processes too")
    p.add_argument(
        "--cores", type=float, help="the cores it will run on, in all: what it does there"
    )
    p.add_argument("--memory-gb", type=float, help="the GB it will run on, in all (with --cores)")
    p.add_argument(
        "--check",
        metavar="RUN",
        help="a piano bench village result (repository path): the plan on its machine beside it",
    )
    p.add_argument("--json", action="store_true", help="print JSON")
    add_json_out(p)


def _machine_rows(m: OnMachine) -> list[tuple[str, str, str]]:
    bound = "yes" if m.cpu_bound else "near: the lag's tail grows" if m.near_saturation else "no"
    rows = [
        (f"on {m.cores:g} cores: CPUs used", f"{m.cpus_used:g}", m.sources["cpus_used"]),
        ("  CPU-bound", f"{bound} ({m.cpu_load:.2f} x the cores)", m.sources["cpu_load"]),
        (
            "  decisions per agent-minute",
            f"{m.decisions_per_agent_minute:g}",
            m.sources["decisions_per_agent_minute"],
        ),
    ]
    if m.memory_fits is not None:
        fits = "yes" if m.memory_fits else "no"
        rows.append((f"  memory fits {m.memory_gb:g} GB", fits, m.sources["memory_fits"]))
    return rows


def _print(p: Plan, m: OnMachine | None, args: argparse.Namespace) -> None:
    table = Table(title=f"{p.agents} agents{' with bodies' if p.embodied else ''}")
    table.add_column("what")
    table.add_column("needs", justify="right")
    table.add_column("from")
    rows = [
        ("CPUs (cores)", f"{p.cpus:g}", p.sources.get("cpus", "")),
        ("memory (GB)", f"{p.memory_gb:g}", p.sources.get("memory_gb", "")),
        (
            "decisions per agent-minute (the pace those CPUs buy)",
            f"{p.decisions_per_agent_minute:g}",
            p.sources["decisions_per_agent_minute"],
        ),
        (
            f"nodes of {args.cores_per_node:g} cores / {args.memory_per_node:g} GB",
            str(p.nodes),
            f"at most {CPU_HEADROOM:.0%} of the cores, {MEMORY_HEADROOM:.0%} of the memory",
        ),
        ("world shards", str(p.world_shards), p.sources.get("world_shards", "no world")),
        ("agent workers", str(p.agent_workers), "--workers auto: 100 agents each at least"),
        ("LLM calls / s", f"{p.llm_calls_per_s:g}", p.sources.get("llm_calls_per_s", "none")),
        (
            "LLM requests / minute",
            f"{p.llm_requests_per_minute:,.0f}",
            p.sources.get("llm_requests_per_minute", "none"),
        ),
        (
            "LLM tokens / minute",
            f"{p.llm_tokens_per_minute:,.0f}",
            p.sources.get("llm_tokens_per_minute", "none"),
        ),
        ("LLM requests in flight", f"{p.llm_requests_in_flight:g}", "calls / s x --llm-latency"),
    ]
    if m is not None:
        rows += _machine_rows(m)
    for row in rows:
        table.add_row(*row)
    Console().print(table)


def run(args: argparse.Namespace) -> int:
    since = Measurement()
    if args.cores_per_node is None:
        args.cores_per_node = float(os.cpu_count() or 1)
    if args.memory_per_node is None:
        args.memory_per_node = round(psutil.virtual_memory().total / 2**30, 1)
    try:
        if args.check and args.cores is None:  # the machine the run was measured on
            args.cores = float(read_result(args.check)["provenance"]["cpus"])
        p = plan(
            args.agents,
            load_costs(),
            embodied=args.embodied or bool(args.check),
            cores_per_node=args.cores_per_node,
            memory_gb_per_node=args.memory_per_node,
            llm_latency_s=args.llm_latency,
            llm=not args.no_llm,
            ray=args.cluster == "ray",
        )
        m = (
            None
            if args.cores is None
            else on_machine(p, cores=args.cores, memory_gb=args.memory_gb)
        )
        if args.check and m is not None:
            emit(check(p, m, args.check), args, since)
            return 0
    except (PlanError, ValueError, KeyError) as err:
        print(f"piano plan: {err}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps({**p.as_dict(), "on_machine": m and m.as_dict()}, indent=2))
        return 0
    _print(p, m, args)
    return 0
