"""Microbench: the perception steps of a 50-agent village replayed, snapshot texts and step
times as one village run recorded them, through the perception module of the tree on
PYTHONPATH (run it once with the tree before the change and once with the tree after):
each body's snapshot validated from its text as the body does, perception's comparison and
section write, the state flushes (fakeredis). A step that came less than 0.9 s after the
body's previous snapshot was woken by an event (perception's cadence is 1 s): it is replayed
as a triggered step. Prints one JSON object.

    PYTHONPATH=TREE python bench_perception.py SNAPSHOTS.jsonl [--repeat 3]

SNAPSHOTS.jsonl(.gz): one ``[body name, snapshot text]`` per line, in the order they arrived."""

from __future__ import annotations

import argparse
import asyncio
import gzip
import json
import sys
import time
from pathlib import Path

from agent_runtime.app.testing import local_services, module_context
from agent_runtime.body.recording import RecordingBody
from agent_runtime.module import Schedule
from agent_runtime.state.sections import SECTION_WRITERS, Identity
from agent_runtime.world import Observation
from modules.perception import PerceptionModule

EARLY_S = 0.9


class _ReplayBody(RecordingBody):
    text = ""
    snapshots = 0

    async def observe(self) -> Observation:
        self.snapshots += 1
        return Observation.model_validate_json(self.text)


async def _replay(steps: list[tuple[str, str, bool]]) -> dict[str, float]:
    async with local_services() as svc:
        mods: dict[str, tuple[PerceptionModule, _ReplayBody, object]] = {}
        for name in dict.fromkeys(n for n, _, _ in steps):
            svc.store.agent(name).set(
                "identity", Identity(name=name), writer=SECTION_WRITERS["identity"]
            )
            pm = PerceptionModule(Schedule(cadence=1.0, triggers=frozenset({"topic:event"})))
            body = _ReplayBody(name)
            mods[name] = (pm, body, module_context(svc, pm, agent=name, body=body))
        cpu0, wall0 = time.process_time(), time.perf_counter()
        for i, (name, text, early) in enumerate(steps):
            pm, body, ctx = mods[name]
            body.text = text
            if early:
                ctx.stats.triggered += 1  # type: ignore[attr-defined]
            await pm.step(ctx)  # type: ignore[arg-type]
            if i % 50 == 49:
                await svc.store.flush()
        await svc.store.flush()
        cpu = time.process_time() - cpu0
        return {
            "cpu_s": cpu,
            "wall_s": time.perf_counter() - wall0,
            "snapshots": sum(b.snapshots for _, b, _ in mods.values()),
        }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("snapshots", type=Path)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    last: dict[str, float] = {}
    steps: list[tuple[str, str, bool]] = []
    opener = gzip.open if args.snapshots.suffix == ".gz" else open
    with opener(args.snapshots, "rt") as f:
        lines = f.read().splitlines()
    for line in lines:
        name, text = json.loads(line)
        at = json.loads(text)["at"]
        steps.append((name, text, name in last and at - last[name] < EARLY_S))
        last[name] = at
    runs = [asyncio.run(_replay(steps)) for _ in range(args.repeat)]
    best = min(runs, key=lambda r: r["cpu_s"])
    sys.stdout.write(
        json.dumps(
            {
                "tree": str(Path(sys.modules["modules"].__path__[0]).parent),
                "steps": len(steps),
                "event_steps": sum(e for _, _, e in steps),
                "snapshots_taken": best["snapshots"],
                "cpu_ms_best": round(best["cpu_s"] * 1000, 1),
                "cpu_ms_runs": [round(r["cpu_s"] * 1000, 1) for r in runs],
                "cpu_us_per_step": round(best["cpu_s"] / len(steps) * 1e6, 1),
            }
        )
        + "\n"
    )


if __name__ == "__main__":
    main()
