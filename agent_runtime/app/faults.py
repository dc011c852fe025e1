"""The fault suite behind ``piano faults``: break a small village on purpose, one fault after
another, and measure how it recovers.

Faults, in order (each waits for the village to be healthy first):

- ``kill_redis`` / ``kill_broker``: SIGKILL of the embedded service (it is supervised);
- ``kill_minecraft`` (embedded world only): SIGKILL of the Minecraft server (supervised;
  the bodies reconnect);
- ``kick_bot`` (embedded world only): the server kicks one agent's body, which rejoins;
- ``llm_http_429``, ``llm_http_500``, ``llm_timeout``, ``llm_garbage``: the village's LLM
  endpoint misbehaves for a while (:mod:`agent_runtime.app.faults_llm`);
- ``sigkill_run``: SIGKILL of a whole ``piano run`` process, then ``piano run --resume``.

For each: ``recovered`` (the village decides again, for a service the process was restarted,
and the fault's ``data_path`` checks all hold: :mod:`agent_runtime.app.fault_checks`),
``seconds_to_recover`` (from the fault to the first decision after it),
``decisions_in_window`` / ``errors_in_window`` over the recovery window, and for the kills of
Redis and of the run, ``content``: every agent's state sections and memory records before
the fault and after the recovery, by content (:mod:`agent_runtime.app.fault_store`). The
report's ``promise`` is the durability promise with the write-behind lag measured in the
suite's village (:mod:`agent_runtime.app.durability`). At the end, ``orphans`` lists
processes that still reference the suite's folders (must be none).
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import psutil
import yaml

from agent_runtime.app.fault_checks import broadcast_heard, world_skill_after
from agent_runtime.app.fault_kit import AGENTS, FaultResult, checked, inject, until
from agent_runtime.app.fault_store import kill_redis, sigkill_and_resume
from agent_runtime.app.faults_llm import llm_faults
from agent_runtime.app.world_setup import item_counts
from agent_runtime.clock import wall_time
from agent_runtime.config.loader import parse_config
from agent_runtime.config.models import VillageConfig

__all__ = ["run_suite", "suite_config"]


def suite_config(world: str) -> dict[str, Any]:
    """The small village the suite breaks (heuristic brain, fast clock)."""
    return {
        "run": {"seed": 11, "time_scale": 0.3, "progress_every": 1, "embedder": "hashing",
                "duration": None},
        "world": {"kind": world, "port": 0},
        "llm": {"provider": "heuristic"},
        # something to keep: kill_minecraft checks each body gets its inventory back
        "agents": [{"name": n, "traits": ["You are steady and helpful."],
                    "inventory": {"bread": 3, "oak_planks": 6}} for n in AGENTS],
    }  # fmt: skip


async def _kill_service(v: Any, name: str, service: Any, window: float) -> FaultResult:
    before = service.restarts

    async def kill() -> None:
        os.kill(service.pid, signal.SIGKILL)

    def restarted() -> bool:
        return bool(service.restarts > before)

    return await inject(v, name, kill, restarted, window)


async def _in_process_faults(
    cfg: VillageConfig, run_dir: Path, window: float, sabotage: str | None
) -> list[FaultResult]:
    from agent_runtime.app.village import Village, VillageOptions

    results: list[FaultResult] = []
    opts = VillageOptions(run_dir=run_dir, run_id=run_dir.name)
    async with Village(cfg, opts) as v:
        assert v.redis_server is not None and v.broker is not None
        assert v.redis_url is not None and v.mqtt_url is not None
        results.append(await kill_redis(v, window, sabotage))
        kill = await _kill_service(v, "kill_broker", v.broker, window)
        heard = await broadcast_heard(v.mqtt_url, v.run_id, window)
        results.append(checked(kill, {"broadcast_heard": heard}))
        server = getattr(v.world, "server", None)
        if server is not None and v.world is not None:
            results += await _world_faults(v, server, window)
    return results


async def _world_faults(v: Any, server: Any, window: float) -> list[FaultResult]:
    """kill_minecraft and kick_bot, with the world's data path checked after the kill."""
    admin = v.world.admin
    rejoined: set[str] = set()
    records: list[dict[str, Any]] = []
    held_after: dict[str, asyncio.Task[dict[str, int]]] = {}

    async def inventory(name: str) -> dict[str, int]:
        return item_counts(await admin.inventory(name))

    def body_events(record: dict[str, Any]) -> None:
        records.append(record)
        if record.get("type") == "body_event" and record.get("kind") == "reconnected":
            name = str(record.get("agent"))
            rejoined.add(name)
            if name not in held_after:  # what the server gave back, read as the body rejoins
                held_after[name] = asyncio.get_running_loop().create_task(inventory(name))

    v.events.add_listener(body_events)
    before = server.restarts
    held_before: dict[str, dict[str, int]] = {}
    killed_at = 0.0

    async def kill_server() -> None:
        nonlocal held_before, killed_at
        held_before = await _settled_inventories(inventory)
        rejoined.clear()
        held_after.clear()
        killed_at = wall_time()
        os.kill(server.pid, signal.SIGKILL)

    def world_back() -> bool:  # the server is up and every body joined it again
        return bool(server.restarts > before) and rejoined >= set(AGENTS)

    result = await inject(v, "kill_minecraft", kill_server, world_back, window)
    after = {n: await t for n, t in held_after.items()}
    skill = await until(lambda: world_skill_after(records, killed_at), window) is not None
    results = [checked(result, {
        "bodies_rejoined": rejoined >= set(AGENTS),
        "inventories_kept": bool(held_before) and all(after.get(n) == held_before[n] for n in AGENTS),
        "skill_succeeded": skill,
    })]  # fmt: skip
    results[0].detail["inventories"] = {"before": held_before, "after": after}
    victim = AGENTS[0]

    async def kick() -> None:
        rejoined.clear()
        await admin.command(f"/kick {victim}")

    results.append(await inject(v, "kick_bot", kick, lambda: victim in rejoined, window))
    return results


async def _settled_inventories(
    read: Callable[[str], Awaitable[dict[str, int]]], tries: int = 20
) -> dict[str, dict[str, int]]:
    """Every agent's inventory on the server, read twice a second apart until it holds still
    (the server writes a player's file 200 ms after a change: what is read then is on disk)."""
    last = {n: await read(n) for n in AGENTS}
    for _ in range(tries):
        await asyncio.sleep(1.0)
        now = {n: await read(n) for n in AGENTS}
        if now == last:
            return now
        last = now
    return last


def _orphans(root: Path) -> list[dict[str, Any]]:
    """Processes other than this one and its ancestors that still name the suite's folder."""
    mark = str(root)
    me = psutil.Process()
    mine = {me.pid, *(p.pid for p in me.parents())}
    out = []
    for p in psutil.process_iter(["pid", "cmdline"]):
        cmd = " ".join(p.info.get("cmdline") or [])
        if mark in cmd and p.pid not in mine:
            out.append({"pid": p.pid, "cmdline": cmd[:200]})
    return out


def _write_config(root: Path, data: dict[str, Any]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    config_file = root / "village.yaml"
    config_file.write_text(yaml.safe_dump(data, sort_keys=False))
    return config_file


async def run_suite(
    root: Path,
    *,
    world: str = "none",
    window: float = 60.0,
    llm: bool = True,
    fault_s: float = 8.0,
    resume_s: float | None = None,
    sabotage: str | None = None,
) -> dict[str, Any]:
    """Run every fault against fresh villages under ``root``; the JSON report. The resumed
    run of ``sigkill_run`` lasts ``resume_s`` (default half the window; the tests pass less:
    its first decision comes within seconds). ``sabotage`` breaks the recovery of the Redis
    kill and of the resumed run on purpose (:mod:`agent_runtime.app.fault_breaks`)."""
    data = suite_config(world)
    config_file = _write_config(root, data)
    cfg = parse_config(data, str(config_file))
    t0 = time.monotonic()
    results = await _in_process_faults(cfg, root / "runs" / "faults", window, sabotage)
    if llm:
        results += await llm_faults(root / "runs" / "llm", fault_s=fault_s, window=window)
    resume = window / 2 if resume_s is None else resume_s
    results.append(await sigkill_and_resume(config_file, root, window, resume, sabotage))
    orphans = _orphans(root)
    return {
        "world": world,
        "promise": results[0].detail.get("promise"),
        "faults": [r.as_dict() for r in results],
        "all_recovered": all(r.recovered for r in results),
        "orphans": orphans,
        "seconds": round(time.monotonic() - t0, 1),
    }
