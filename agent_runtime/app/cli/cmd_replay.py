"""``piano replay RUN_DIR``: the village page over a finished run folder.

Serves the same page as a live run (map, agent panels, chat, social graph, figures)
with a timeline slider, play/pause and speed, from the folder's ``events.jsonl`` (and
``metrics.json`` for the final social graph). Ctrl-C stops it.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
from pathlib import Path


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("replay", help="replay a run folder in the browser")
    p.add_argument("run_dir", help="a run folder (with events.jsonl)")
    p.add_argument("--port", type=int, default=8765, help="port on 127.0.0.1 (0: a free one)")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default: loopback)")


def run(args: argparse.Namespace) -> int:
    from agent_runtime.app.web.replay import ReplayError, ReplaySource
    from agent_runtime.app.web.serve import serve_source
    from agent_runtime.services.ports import free_port

    run_dir = Path(args.run_dir)
    try:
        source = ReplaySource(run_dir)
    except ReplayError as err:
        print(f"piano replay: {err}", file=sys.stderr)
        return 2
    port = args.port or free_port(args.host)
    span = source.t1 - source.t0
    print(
        f"replay of {source.run_id}: {len(source.events)} events over {span:.0f}s; "
        f"open http://{args.host}:{port}/ (Ctrl-C stops)",
        flush=True,
    )
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve_source(source, host=args.host, port=port))
    return 0
