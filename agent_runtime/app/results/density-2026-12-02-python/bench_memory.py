"""Microbench: the memory module's steps with the heuristic brain, through the module of the
tree on PYTHONPATH (run it with the tree before the change and with the tree after): 50
agents, each step storing ``--items`` queued memories (fakeredis; the stream's writes join
the state flush as in the village). Prints one JSON object.

    PYTHONPATH=TREE python bench_memory.py [--steps 40] [--items 3] [--repeat 5]"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path

from agent_runtime.app.testing import local_services, module_context
from agent_runtime.module import Schedule
from agent_runtime.state.sections import Identity
from modules.base import remember
from modules.memory_module import Memory

AGENTS = 50


async def _run(steps: int, items: int) -> float:
    async with local_services() as svc:
        agents = []
        for a in range(AGENTS):
            name = f"A{a}"
            svc.store.agent(name).set("identity", Identity(name=name), writer="runtime")
            mem = Memory(Schedule(cadence=3.0))
            ctx = module_context(svc, mem, agent=name)
            await mem.setup(ctx)
            agents.append((mem, ctx))
        cpu0 = time.process_time()
        for s in range(steps):
            for _, ctx in agents:
                for i in range(items):
                    remember(ctx, f"I see P{s}-{i} nearby.", "observation")
            for mem, ctx in agents:
                await mem.step(ctx)
        return time.process_time() - cpu0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=40)
    ap.add_argument("--items", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    runs = [asyncio.run(_run(args.steps, args.items)) for _ in range(args.repeat)]
    n = AGENTS * args.steps
    sys.stdout.write(
        json.dumps(
            {
                "tree": str(Path(sys.modules["modules"].__path__[0]).parent),
                "agents": AGENTS,
                "steps": n,
                "memories_per_step": args.items,
                "cpu_ms_best": round(min(runs) * 1000, 1),
                "cpu_ms_runs": [round(r * 1000, 1) for r in runs],
                "cpu_us_per_step": round(min(runs) / n * 1e6, 1),
            }
        )
        + "\n"
    )


if __name__ == "__main__":
    main()
