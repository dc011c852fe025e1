"""``piano bench cost``: the LLM bill of a village, per module and per agent-hour.

Runs the 5-agent village (``configs/village_small.yaml``; ``--agents`` adds generated ones
or keeps the first N) against the simulated endpoint: every call answered after
``--llm-latency`` seconds (default 0.8) with the content the module's heuristic policy decides from
the same view at that moment (``simulated_content: heuristic``), so skills run as long as
real ones; prompts are the real prompts. The endpoint serves any number of calls at once,
like a hosted API (``concurrency`` 64, no adaptive limit); everything else in ``llm:`` is the
default. ``--world embedded`` (default) starts the embedded Minecraft server and bodies;
``--world none`` runs without Minecraft.

After the village is up, ``--duration`` seconds are measured, and it prints one JSON object:

- per module and in ``all``: calls, prompt tokens, cached tokens as OpenAI reports them (the
  longest prefix shared with the same (agent, module)'s previous prompt or the module's
  latest one, counted only for prompts of 1,024 tokens or more, in 128-token steps:
  :data:`agent_runtime.llm.simulated.OPENAI_CACHE`), completion tokens, each per agent-hour
  too, and dollars per agent-hour for the price table (gpt-4o, gpt-4o-mini, a local model at
  $0: :data:`agent_runtime.llm.cost.BENCH_PRICES`; cached input at the provider's cached
  price; ``usd_per_agent_hour_uncached``: as if nothing were cached), and
  ``usd_per_agent_hour_small_model``: the bill with ``llm.small_model`` (gpt-4o-mini) for the
  small calls and gpt-4o for the rest;
- the controller's decisions: how many, by brain, the share made by the model (the
  simulated endpoint's replies) and how many of those only kept the agent on course
  (``continue``), and the longest gap between two decisions of one agent;
- a 50-agent village's requests and tokens per minute, extrapolated linearly.

The figures count the measured window only (the start-up's calls are left out).
"""

from __future__ import annotations

import argparse
import itertools
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from agent_runtime.app.bench_output import Measurement, add_json_out, emit
from agent_runtime.app.cli.bench_flags import add_llm_latency
from agent_runtime.app.cost_tables import (
    EXTRAPOLATE_AGENTS,
    render_markdown,
    with_small_model,
)
from agent_runtime.clock import wall_time

DEFAULT_CONFIG = Path(__file__).resolve().parents[3] / "configs" / "village_small.yaml"


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "cost", help="the LLM bill per module and agent-hour against a simulated endpoint"
    )
    p.add_argument("--config", default=str(DEFAULT_CONFIG), help="village file")
    p.add_argument("--agents", type=int, default=5)
    p.add_argument("--world", choices=["embedded", "none"], default="embedded")
    p.add_argument("--duration", type=float, default=600.0, help="measured seconds")
    add_llm_latency(p, 0.8, "the simulated endpoint's answer time")
    p.add_argument("--seed", type=int, default=None, help="run seed (default: the file's)")
    p.add_argument("--run-dir", help="keep the run folder here (default: a temporary one)")
    p.add_argument(
        "--render",
        metavar="JSON",
        help="print the Markdown table of a saved result (no run), as in llm/BENCH.md",
    )
    add_json_out(p)


def bench_config(args: argparse.Namespace) -> Any:
    from agent_runtime.config.loader import load_config, resolve_agents, with_overrides

    cfg = load_config(args.config)
    updates: dict[str, Any] = {
        "run.duration": None,
        "world.kind": args.world,
        "world.port": 0,
        "llm": {
            "provider": "simulated",
            "simulated_latency_ms": args.llm_latency * 1000,
            "simulated_content": "heuristic",
            "concurrency": 64,
            "adaptive_concurrency": False,
            "log_prompts": False,
        },
    }
    if args.seed is not None:
        updates["run.seed"] = args.seed
    have = len(resolve_agents(cfg))
    if args.agents > have:
        extra = {"count": args.agents - have, "random_personality": True, "spawn_spread": 12.0}
        updates["agent_templates"] = [t.model_dump() for t in cfg.agent_templates] + [extra]
    return with_overrides(cfg, updates, args.config)


class ControllerDecisions:
    """Event listener: the controller's published decisions within the measured window."""

    def __init__(self) -> None:
        self.since: float | None = None  # None: not measuring yet
        self.records: list[tuple[str, float, str, bool, str]] = []  # agent, t, brain, reflex, kind
        self.asked: dict[str, int] = {}  # the controller's calls by their first reason
        self.revisions: dict[str, int] = {}  # planning's revisions by reason ("fresh": none)

    def __call__(self, record: dict[str, Any]) -> None:
        kind = record.get("type")
        if self.since is None or float(record.get("t", 0.0)) < self.since:
            return
        if kind == "controller_asked":
            first = str((record.get("reasons") or ["?"])[0])
            self.asked[first] = self.asked.get(first, 0) + 1
        elif kind == "plan":
            reason = str(record.get("reason") or "fresh").split(":", 1)[0]
            self.revisions[reason] = self.revisions.get(reason, 0) + 1
        if kind != "decision":
            return
        t = float(record["t"])
        if t >= self.since:
            self.records.append(
                (
                    str(record.get("agent")),
                    t,
                    str(record.get("brain")),
                    bool(record.get("reflex")),
                    str(record.get("kind")),
                )
            )

    def summary(self, agents: list[str], end: float) -> dict[str, Any]:
        from agent_runtime.llm.brain import HEURISTIC

        since = self.since if self.since is not None else end
        by_brain: dict[str, int] = {}
        model_kinds: dict[str, int] = {}
        times: dict[str, list[float]] = {a: [] for a in agents}
        model_times: dict[str, list[float]] = {a: [] for a in agents}
        for agent, t, brain, reflex, kind in self.records:
            by_brain[brain] = by_brain.get(brain, 0) + 1
            times.setdefault(agent, []).append(t)
            if brain != HEURISTIC and not reflex:
                model_kinds[kind] = model_kinds.get(kind, 0) + 1
                model_times.setdefault(agent, []).append(t)
        total = len(self.records)
        model = sum(model_kinds.values())
        gaps = {a: _longest_gap(ts, since, end) for a, ts in sorted(times.items())}
        model_gaps = {a: _longest_gap(ts, since, end) for a, ts in sorted(model_times.items())}
        return {
            "decisions": total,
            "by_brain": dict(sorted(by_brain.items())),
            "model_decisions": model,
            "model_share": round(model / total, 4) if total else 0.0,
            "model_decisions_by_kind": dict(sorted(model_kinds.items())),
            "model_continue_share": round(model_kinds.get("continue", 0) / model, 4)
            if model
            else 0.0,
            "longest_gap_s": max(gaps.values(), default=0.0),
            "longest_gap_s_by_agent": gaps,
            "longest_model_gap_s": max(model_gaps.values(), default=0.0),
            "longest_model_gap_s_by_agent": model_gaps,
            "asked_by_reason": dict(sorted(self.asked.items())),
            "plan_revisions": dict(sorted(self.revisions.items())),
        }


def _longest_gap(times: list[float], since: float, end: float) -> float:
    """The longest time without a decision in [since, end] (the window's edges count)."""
    points = [since, *sorted(times), end]
    return round(max(b - a for a, b in itertools.pairwise(points)), 2)


async def _bench(args: argparse.Namespace, run_dir: Path) -> dict[str, Any]:
    from agent_runtime.app.village import Village, VillageOptions
    from agent_runtime.llm.cost import cost_table, window

    cfg = bench_config(args)
    decisions = ControllerDecisions()
    limit = args.agents if args.agents < 5 else None
    opts = VillageOptions(run_dir=run_dir, run_id="bench-cost", agent_limit=limit)
    t0 = time.monotonic()
    async with Village(cfg, opts) as v:
        startup_s = time.monotonic() - t0
        llm = v.services.llm if v.services is not None else None
        assert llm is not None, "the simulated provider was not started"
        v.events.add_listener(decisions)
        start_summary = llm.accounting.summary()
        decisions.since = wall_time()
        w0 = time.monotonic()
        await v.run(duration=args.duration)
        measured_s = time.monotonic() - w0
        end = wall_time()
        by_module = window(llm.accounting.summary(), start_summary)
        agents = sorted(v.agents)
        controller = decisions.summary(agents, end)
        skills = v.events.counts.get("skill_outcome", 0)
    agent_hours = len(agents) * measured_s / 3600.0
    table = cost_table(by_module, agent_hours)
    everything = table["all"]
    per_min = EXTRAPOLATE_AGENTS / 60.0
    return {
        "bench": "cost",
        "date": time.strftime("%Y-%m-%d", time.gmtime()),
        "commit": _commit(),
        "config": str(args.config),
        "world": args.world,
        "agents": len(agents),
        "latency_ms": args.llm_latency * 1000,
        "startup_s": round(startup_s, 1),
        "measured_s": round(measured_s, 1),
        "agent_hours": round(agent_hours, 4),
        "endpoint": "simulated: replies carry the heuristic's decision, labelled simulated",
        "cached_tokens": "as OpenAI reports them: the longest prefix shared with the same "
        "(agent, module)'s previous prompt or the module's latest one, counted only for "
        "prompts of 1,024 tokens or more, in 128-token steps from 1,024; ~4 characters a token",
        "modules": table,
        "usd_per_agent_hour": everything["usd_per_agent_hour"],
        "usd_per_agent_hour_small_model": with_small_model(table),
        "controller": controller,
        "controller_calls_model_share": round(
            table.get("cognitive_controller", {}).get("ok", 0)
            / max(
                1,
                table.get("cognitive_controller", {}).get("ok", 0)
                + table.get("cognitive_controller", {}).get("heuristic", 0),
            ),
            4,
        ),
        "skill_outcomes": skills,
        f"village_{EXTRAPOLATE_AGENTS}": {
            "requests_per_minute": round(everything["calls_per_agent_hour"] * per_min, 1),
            "tokens_per_minute": round(everything["tokens_per_agent_hour"] * per_min, 1),
            "usd_per_hour": {
                k: round(x * EXTRAPOLATE_AGENTS, 2)
                for k, x in everything["usd_per_agent_hour"].items()
            },
        },
    }


def _commit() -> str | None:
    """The checkout's commit, when it is a git checkout (which code was measured)."""
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=DEFAULT_CONFIG.parent,
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None


def run(args: argparse.Namespace) -> int:
    if args.render:
        result = json.loads(Path(args.render).read_text())
        sys.stdout.write(render_markdown(result, args.render))
        return 0
    if args.agents < 1 or args.duration <= 0:
        print(json.dumps({"error": "need --agents >= 1, --duration > 0"}))
        return 2
    from agent_runtime import event_loop

    since = Measurement()

    if args.run_dir:
        out = event_loop.run(_bench(args, Path(args.run_dir)))
    else:
        with tempfile.TemporaryDirectory(prefix="piano-bench-cost-") as tmp:
            out = event_loop.run(_bench(args, Path(tmp) / "run"))
    emit(out, args, since)
    return 0
