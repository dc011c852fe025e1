"""``piano run CONFIG``: run a village and write its run folder."""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from pathlib import Path
from typing import Any

from agent_runtime import event_loop
from agent_runtime.app.cli.user_errors import STARTUP_ERRORS, refuse
from agent_runtime.app.cli.world_version import resolve_external_version, version_set_in
from agent_runtime.app.exposure import exposure_lines
from agent_runtime.app.launchers import CLUSTER_HELP, ClusterSpec, parse_cluster
from agent_runtime.app.plan.overload import overload_warning
from agent_runtime.app.run_folder import resume_config
from agent_runtime.app.workers import WORKERS_HELP, worker_count
from agent_runtime.app.world_setup import WorldError
from agent_runtime.config.errors import ConfigError
from agent_runtime.config.loader import load_config, resolve_agents, with_overrides
from agent_runtime.config.models import VillageConfig
from agent_runtime.gc_settings import settle_after_startup


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("run", help="run a village")
    p.add_argument("config", nargs="?", help="path to the village YAML (optional with --resume)")
    p.add_argument(
        "--resume",
        metavar="RUN_DIR",
        help="continue a stopped or killed run from its folder (memories, state, world)",
    )
    p.add_argument(
        "--duration", type=float, help="seconds to run (default: the file's run.duration)"
    )
    p.add_argument(
        "--agents", type=int, help="run this many agents (generated ones are added if needed)"
    )
    p.add_argument("--llm", choices=["heuristic", "openai"], help="override llm.provider")
    p.add_argument(
        "--model",
        help="override llm.model (modules naming their own model keep it); implies --llm openai",
    )
    p.add_argument(
        "--base-url",
        help="override llm.base_url, an OpenAI-compatible endpoint such as "
        "http://127.0.0.1:8080/v1; implies --llm openai",
    )
    p.add_argument("--world", help="embedded | none | HOST:PORT (an external server)")
    p.add_argument("--out", help="parent folder of run folders (default: the file's run.out)")
    p.add_argument("--run-id", help="run id (default: <config name>-<time>)")
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    # web view: the live page, served on loopback by its own process
    p.add_argument("--web-port", type=int, default=0, help="port of the live page (0: a free one)")
    p.add_argument("--no-web", action="store_true", help="do not serve the live page")
    p.add_argument("--workers", default="auto", help=WORKERS_HELP)
    p.add_argument("--cluster", help=f"{CLUSTER_HELP} (default: the file's run.cluster)")
    p.add_argument(
        "--services-host",
        help="with workers: the address the embedded Redis and broker listen on and workers "
        "reach (default 127.0.0.1; any other gets passwords generated for the run, handed to "
        "the workers by environment)",
    )


def apply_cli(cfg: VillageConfig, args: argparse.Namespace, file: str) -> VillageConfig:
    updates: dict[str, Any] = {}
    if args.duration is not None:
        updates["run.duration"] = args.duration
    if args.llm is not None:
        updates["llm.provider"] = args.llm
    updates.update(_model_updates(args))
    if args.out is not None:
        updates["run.out"] = args.out
    if args.world is not None:
        if args.world in ("embedded", "none"):
            updates["world.kind"] = args.world
        else:
            m = re.fullmatch(r"([A-Za-z0-9_.\-]+):(\d{1,5})", args.world)
            if m is None:
                raise ConfigError(file, [_problem("--world", "use embedded, none or HOST:PORT")])
            updates["world.kind"] = "external"
            updates["world.host"] = m.group(1)
            updates["world.port"] = int(m.group(2))
    if args.agents is not None:
        if args.agents < 1:
            raise ConfigError(file, [_problem("--agents", "must be at least 1")])
        have = len(resolve_agents(cfg))
        if args.agents > have:
            extra = {"count": args.agents - have, "random_personality": True, "spawn_spread": 12.0}
            templates = [t.model_dump() for t in cfg.agent_templates] + [extra]
            updates["agent_templates"] = templates
    return with_overrides(cfg, updates, file) if updates else cfg


def _model_updates(args: argparse.Namespace) -> dict[str, Any]:
    """``--model`` and ``--base-url`` (a worker's namespace has neither): the model and its
    endpoint, with the provider switched to ``openai`` unless ``--llm`` says otherwise."""
    updates: dict[str, Any] = {}
    model, base_url = getattr(args, "model", None), getattr(args, "base_url", None)
    if model is not None:
        updates["llm.model"] = model
    if base_url is not None:
        updates["llm.base_url"] = base_url
    if updates and args.llm is None:
        updates["llm.provider"] = "openai"
    return updates


def progress_line(info: dict[str, Any]) -> str:
    line = (
        f"[{info['elapsed_s']:>7.1f}s] agents {info['agents']}  decisions {info['decisions']}  "
        f"speech {info['speech']}  skills {info['skills']}  errors {info['errors']}  "
        f"unresponsive {info.get('unresponsive', 0)}"
    )
    if info.get("llm_text"):
        line += f"  | {info['llm_text']}"
    return line


def _problem(path: str, msg: str) -> Any:
    from agent_runtime.config.errors import FieldProblem

    return FieldProblem(path, msg)


def run(args: argparse.Namespace) -> int:
    if args.config is None and args.resume is None:
        print("piano run: give a village file, or --resume RUN_DIR", file=sys.stderr)
        return 2
    try:
        if args.resume is not None:
            cfg = resume_config(Path(args.resume), args.config)
            args.config = args.config or str(Path(args.resume) / "config.resolved.yaml")
        else:
            cfg = load_config(args.config)
        version_set = version_set_in(cfg)
        cfg = apply_cli(cfg, args, args.config)
        cfg = resolve_external_version(cfg, args.config, version_set=version_set)
    except (ConfigError, WorldError) as err:  # WorldError: world.version and the server's differ
        return refuse(err, "piano run")
    if args.resume is not None:
        run_dir = Path(args.resume)
        run_id = run_dir.name
    else:
        run_id = args.run_id or f"{Path(args.config).stem}-{time.strftime('%Y%m%d-%H%M%S')}"
        run_dir = Path(cfg.run.out) / run_id
    if not re.fullmatch(r"[A-Za-z0-9_.-]{1,64}", run_id):
        print(f"run id {run_id!r}: use letters, digits, '.', '_' or '-'", file=sys.stderr)
        return 2
    agents = len(resolve_agents(cfg))
    if args.agents is not None:
        agents = min(agents, args.agents)
    try:
        workers = worker_count(args.workers, agents)
    except ValueError:
        print(f"--workers {args.workers!r}: use a positive number or auto", file=sys.stderr)
        return 2
    cluster_text = getattr(args, "cluster", None) or cfg.run.cluster
    cluster: ClusterSpec | None = None
    if cluster_text is not None:
        try:
            cluster = parse_cluster(cluster_text)
        except ValueError as err:
            return refuse(err, "piano run")
        if args.workers == "auto":  # on a cluster, one worker per core of this machine
            workers = max(2, workers)  # at least two: a cluster of one actor is no cluster
    if cluster is None:  # a cluster's cores are not this machine's
        embodied = cfg.world.kind != "none"
        warning = overload_warning(agents, embodied=embodied, cores=float(os.cpu_count() or 1))
        if warning is not None:
            print(warning, file=sys.stderr, flush=True)
    try:
        if workers > 1 or cluster is not None:
            from agent_runtime.app.cli.run_workers import run_workers

            def progress(info: dict[str, Any]) -> None:
                if not args.quiet:
                    print(progress_line(info), flush=True)

            return event_loop.run(
                run_workers(cfg, run_id, run_dir, args, workers, progress, cluster)
            )
        return event_loop.run(_run(cfg, run_id, run_dir, args))
    except STARTUP_ERRORS as err:
        return refuse(err, "piano run")


async def _run(cfg: VillageConfig, run_id: str, run_dir: Path, args: argparse.Namespace) -> int:
    from agent_runtime.app.progress import ProgressBar
    from agent_runtime.app.village import Village, VillageOptions

    bar = ProgressBar(f"run {run_id}", cfg.run.duration)  # a bar on a terminal, else lines

    def progress(info: dict[str, Any]) -> None:
        if args.quiet:
            return
        if bar.tty:
            bar.update(info)
        else:
            print(progress_line(info), flush=True)

    limit = args.agents if args.agents is not None else None
    opts = VillageOptions(run_dir=run_dir, run_id=run_id, agent_limit=limit, progress=progress)
    opts.web_port = None if getattr(args, "no_web", True) else args.web_port
    print(f"run {run_id}: starting {cfg.world.kind} world, run folder {run_dir}", flush=True)
    async with Village(cfg, opts) as village:
        settle_after_startup()  # one village for the life of this process
        if village.world is not None and village.world.join_address:
            print(
                f"Minecraft {cfg.world.version} server: join at {village.world.join_address} "
                "(offline mode)",
                flush=True,
            )
        for line in exposure_lines(village.world):  # a world other computers can join
            print(line, flush=True)
        if village.web is not None:
            print(f"live view: {village.web.url or village.web.error}", flush=True)
        print(f"{len(village.agents)} agents running; Ctrl-C stops cleanly", flush=True)
        reason = await village.run(cfg.run.duration)
        bar.close()
        llm = village.services.llm if village.services is not None else None
        for line in llm.report() if llm is not None else []:
            print(line, flush=True)  # per module: calls, parsed, repaired, shed, failed
    print(f"run {run_id} stopped ({reason}); results in {run_dir}", flush=True)
    return 0
