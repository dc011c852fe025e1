"""``python -m agent_runtime.app.web live|replay ...``: the page's own process.

``live`` is what a village starts beside itself (``WebView``): it follows the run over
MQTT, Redis and ``events.jsonl`` and serves the page; ``replay`` serves a finished run
folder (``piano replay`` runs the same code in its own process).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from agent_runtime.app.web.serve import serve_live, serve_replay
from agent_runtime.app.workers import ADMIN_URL_ENV


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m agent_runtime.app.web")
    sub = p.add_subparsers(dest="mode", required=True)
    live = sub.add_parser("live", help="follow a running village")
    live.add_argument("--run-id", required=True)
    live.add_argument("--redis", required=True, help="redis:// URL of the run's Redis")
    live.add_argument("--mqtt", required=True, help="mqtt:// URL of the run's broker")
    live.add_argument("--run-dir", help="the run folder (progress records, places)")
    live.add_argument(
        "--admin-url",
        default=os.environ.get(ADMIN_URL_ENV),
        help=f"the embedded server's admin API with its token (default: ${ADMIN_URL_ENV})",
    )
    replay = sub.add_parser("replay", help="serve a finished run folder")
    replay.add_argument("run_dir")
    for q in (live, replay):
        q.add_argument("--host", default="127.0.0.1")
        q.add_argument("--port", type=int, default=8765)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    logging.basicConfig(
        level=logging.WARNING, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    with contextlib.suppress(KeyboardInterrupt):
        if args.mode == "live":
            asyncio.run(
                serve_live(
                    run_id=args.run_id,
                    redis_url=args.redis,
                    mqtt_url=args.mqtt,
                    run_dir=Path(args.run_dir) if args.run_dir else None,
                    admin_url=args.admin_url,
                    host=args.host,
                    port=args.port,
                )
            )
        else:
            asyncio.run(serve_replay(Path(args.run_dir), host=args.host, port=args.port))
    return 0


if __name__ == "__main__":
    sys.exit(main())
