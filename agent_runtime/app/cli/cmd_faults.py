"""``piano faults``: break a small village on purpose and report how it recovers (JSON).

See :mod:`agent_runtime.app.faults` for the faults and what is measured.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
from pathlib import Path

from agent_runtime.app.bench_output import Measurement, add_json_out, emit
from agent_runtime.app.fault_breaks import BREAKS


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("faults", help="fault suite: kill services, bots and the run; JSON report")
    p.add_argument("--world", choices=["none", "embedded"], default="embedded")
    p.add_argument("--window", type=float, default=60.0, help="seconds allowed to recover")
    p.add_argument("--out", help="keep the suite's folders here (default: a temporary folder)")
    p.add_argument("--fault-seconds", type=float, default=8.0, help="how long each LLM fault lasts")
    p.add_argument("--no-llm", action="store_true", help="skip the LLM endpoint faults")
    p.add_argument(
        "--break",
        dest="sabotage",
        choices=BREAKS,
        help="break the recovery of the Redis kill and the resumed run on purpose (Redis back "
        "empty, one memory deleted, one section rolled back): the suite must say so",
    )
    add_json_out(p)


def run(args: argparse.Namespace) -> int:
    from agent_runtime.app.faults import run_suite

    if args.window <= 0:
        print("--window must be positive")
        return 2
    since = Measurement()
    with tempfile.TemporaryDirectory(prefix="piano-faults-") as tmp:
        root = Path(args.out) if args.out else Path(tmp)
        report = asyncio.run(
            run_suite(
                root,
                world=args.world,
                window=args.window,
                llm=not args.no_llm,
                fault_s=args.fault_seconds,
                sabotage=args.sabotage,
            )
        )
    emit(report, args, since)
    return 0 if report["all_recovered"] and not report["orphans"] else 1
