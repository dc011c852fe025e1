"""``piano plan --agents N [--embodied] [--llm-latency S]``: the nodes, CPUs, memory, world
shards and LLM rates a village of N agents needs, from the committed benchmark results
(:mod:`agent_runtime.app.plan`); every figure says which measurement it comes from."""

from __future__ import annotations

import argparse
import json
import os
import sys

import psutil
from rich.console import Console
from rich.table import Table

from agent_runtime.app.plan import CPU_HEADROOM, MEMORY_HEADROOM, PlanError, load_costs, plan


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("plan", help="size a village: nodes, CPUs, memory, shards, LLM rates")
    p.add_argument("--agents", type=int, required=True)
    p.add_argument("--embodied", action="store_true", help="with bodies on embedded servers")
    p.add_argument("--llm-latency", type=float, default=0.0, help="seconds a call takes")
    p.add_argument("--no-llm", action="store_true", help="the heuristic brain: no LLM rates")
    p.add_argument("--cores-per-node", type=float, help="cores of one node (default: this machine's)")
    p.add_argument("--memory-per-node", type=float, help="GB of one node (default: this machine's)")
    p.add_argument("--json", action="store_true", help="print JSON")


def run(args: argparse.Namespace) -> int:
    if args.cores_per_node is None:
        args.cores_per_node = float(os.cpu_count() or 1)
    if args.memory_per_node is None:
        args.memory_per_node = round(psutil.virtual_memory().total / 2**30, 1)
    try:
        p = plan(
            args.agents,
            load_costs(),
            embodied=args.embodied,
            cores_per_node=args.cores_per_node,
            memory_gb_per_node=args.memory_per_node,
            llm_latency_s=args.llm_latency,
            llm=not args.no_llm,
        )
    except (PlanError, ValueError) as err:
        print(f"piano plan: {err}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(p.as_dict(), indent=2))
        return 0
    table = Table(title=f"{p.agents} agents{' with bodies' if p.embodied else ''}")
    table.add_column("what")
    table.add_column("needs", justify="right")
    table.add_column("from")
    rows = [
        ("CPUs (cores)", f"{p.cpus:g}", p.sources.get("cpus", "")),
        ("memory (GB)", f"{p.memory_gb:g}", p.sources.get("memory_gb", "")),
        (
            f"nodes of {args.cores_per_node:g} cores / {args.memory_per_node:g} GB",
            str(p.nodes),
            f"at most {CPU_HEADROOM:.0%} of the cores, {MEMORY_HEADROOM:.0%} of the memory",
        ),
        ("world shards", str(p.world_shards), p.sources.get("world_shards", "no world")),
        ("agent workers", str(p.agent_workers), "--workers auto: 100 agents each at least"),
        ("LLM calls / s", f"{p.llm_calls_per_s:g}", p.sources.get("llm_calls_per_s", "none")),
        (
            "LLM tokens / minute",
            f"{p.llm_tokens_per_minute:,.0f}",
            p.sources.get("llm_tokens_per_minute", "none"),
        ),
        ("LLM requests in flight", f"{p.llm_requests_in_flight:g}", "calls / s x --llm-latency"),
    ]
    for row in rows:
        table.add_row(*row)
    Console().print(table)
    return 0
