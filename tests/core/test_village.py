"""A small village end to end with real redis-server and mosquitto, world none, heuristic brain."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import psutil
import pytest
from redis.asyncio import Redis

from agent_runtime.app.village import Village, VillageOptions
from agent_runtime.config.loader import parse_config
from agent_runtime.config.models import VillageConfig
from agent_runtime.state.sections import Decision, Goals
from modules.memory.encoder import HashingEncoder
from tests.core.helpers import wait_until

pytestmark = pytest.mark.services

ROOT = Path(__file__).resolve().parents[2]


def small_config(preset: str = "full") -> VillageConfig:
    return parse_config(
        {
            "run": {"seed": 3, "time_scale": 0.2, "progress_every": 1},
            "world": {"kind": "none"},
            "modules": {"preset": preset},
            "agent_templates": [{"count": 3, "random_personality": True}],
        }
    )


@pytest.mark.parametrize("preset", ["full", "baseline", "no_action_awareness", "no_social"])
async def test_village_runs_and_writes_run_folder(tmp_path: Path, run_id: str, preset: str) -> None:
    cfg = small_config(preset)
    opts = VillageOptions(run_dir=tmp_path / "run", run_id=run_id, embedder=HashingEncoder())
    async with Village(cfg, opts) as v:
        assert len(v.agents) == 3
        await wait_until(lambda: v.events.counts["decision"] >= 6, 30, "decisions")
        names = list(v.agents)
        assert v.store is not None
        brains = {v.store.agent(n).get("decision", Decision).brain for n in names}
        assert "heuristic" in brains and brains <= {"heuristic", ""}
        redis_url = v.redis_server.url if v.redis_server else ""
        enabled = {m.name for m in v.agents[names[0]].modules}
    run = tmp_path / "run"
    events = [json.loads(line) for line in (run / "events.jsonl").read_text().splitlines()]
    kinds = {e["type"] for e in events}
    assert {"run_started", "decision", "skill_started", "skill_outcome", "run_stopped"} <= kinds
    assert all(e["brain"] == "heuristic" for e in events if e["type"] == "decision")
    metrics = json.loads((run / "metrics.json").read_text())
    assert metrics["agents"] == 3 and metrics["module_errors"] == 0
    assert set(metrics["modules"]) == enabled
    if preset == "baseline":
        assert enabled == {"perception", "memory", "skill_execution", "cognitive_controller"}
    if preset == "no_action_awareness":
        assert "action_awareness" not in enabled and "discrepancy" not in kinds
    if preset == "full":
        assert "discrepancy" in kinds  # no-op body: expected gains never happen
    assert (run / "config.resolved.yaml").exists()
    assert (run / "redis" / "appendonly.aof").exists() or (run / "redis" / "appendonlydir").exists()
    assert redis_url  # the embedded server was used (and is stopped now)


async def test_restart_reloads_state_from_redis(
    tmp_path: Path, run_id: str, redis_server: object
) -> None:
    url = redis_server.url  # type: ignore[attr-defined]
    cfg = parse_config(
        {
            "run": {"seed": 3, "time_scale": 0.2},
            "services": {"redis": url},
            "world": {"kind": "none"},
            "agents": [{"name": "Ann"}],
        }
    )
    opts = VillageOptions(run_dir=tmp_path / "a", run_id=run_id, embedder=HashingEncoder())
    async with Village(cfg, opts) as v:
        assert v.store is not None
        st = v.store.agent("Ann")
        await wait_until(lambda: bool(st.get("goals", Goals).current), 30, "a goal")
        goal = st.get("goals", Goals)
    r = Redis.from_url(url)
    try:
        raw = await r.hget(f"piano:{run_id}:agent:Ann:state", "goals")
        assert raw is not None and json.loads(raw)["current"] == goal.current
        assert int(await r.hlen(f"piano:{run_id}:agent:Ann:mem:records")) > 0
    finally:
        await r.aclose()
    opts2 = VillageOptions(run_dir=tmp_path / "b", run_id=run_id, embedder=HashingEncoder())
    async with Village(cfg, opts2) as v2:
        assert v2.store is not None
        again = v2.store.agent("Ann").get("goals", Goals)
        assert again.current == goal.current and len(again.history) >= len(goal.history)


def test_cli_run_stops_cleanly_on_sigint(tmp_path: Path) -> None:
    """`piano run --world none` answers SIGINT by shutting down: exit 0, no orphans, files written."""
    cfg = tmp_path / "v.yaml"
    cfg.write_text(
        "run: {seed: 1, time_scale: 0.2, progress_every: 0.5}\nworld: {kind: none}\n"
        "agents:\n  - name: Ann\n  - name: Bob\n"
    )
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "agent_runtime.app.cli.main",
            "run",
            str(cfg),
            "--out",
            str(tmp_path / "runs"),
            "--run-id",
            "sig",
            "--duration",
            "120",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
        cwd=ROOT,
    )
    assert proc.stdout is not None
    lines = []
    for line in proc.stdout:  # synchronise on the runtime's own progress output
        lines.append(line)
        if line.startswith("[") and "decisions" in line:
            break
    else:
        pytest.fail("no progress line: " + "".join(lines))
    children = psutil.Process(proc.pid).children(recursive=True)
    assert {c.name() for c in children} >= {"redis-server", "mosquitto"}
    proc.send_signal(signal.SIGINT)
    rest, _ = proc.communicate(timeout=30)
    assert proc.returncode == 0, "".join(lines) + rest
    assert "stopped (signal SIGINT)" in rest
    _gone, alive = psutil.wait_procs(children, timeout=10)
    assert not alive, alive
    run = tmp_path / "runs" / "sig"
    assert json.loads((run / "metrics.json").read_text())["stop_reason"] == "signal SIGINT"
    assert (run / "events.jsonl").read_text().count('"run_stopped"') == 1


def test_cli_run_rejects_bad_config(tmp_path: Path) -> None:
    cfg = tmp_path / "bad.yaml"
    cfg.write_text("world: {kind: moon}\nagents:\n  - name: Ann\n")
    out = subprocess.run(
        [sys.executable, "-m", "agent_runtime.app.cli.main", "run", str(cfg)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert out.returncode == 2
    assert str(cfg) in out.stderr and "world.kind" in out.stderr and "Traceback" not in out.stderr
