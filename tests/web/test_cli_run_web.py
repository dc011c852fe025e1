"""``piano run --world none --web-port P``: the address is printed, the page's process follows
the village through Redis and MQTT, progress goes out as plain lines when stdout is a pipe."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from agent_runtime.app.cli.main import build_parser
from agent_runtime.services.ports import free_port

pytestmark = [pytest.mark.services]

ROOT = Path(__file__).resolve().parents[2]


def test_flags_parse() -> None:
    args = build_parser().parse_args(["run", "x.yaml", "--no-web"])
    assert args.no_web and args.web_port == 0
    args = build_parser().parse_args(["run", "x.yaml", "--web-port", "8123"])
    assert not args.no_web and args.web_port == 8123
    assert build_parser().parse_args(["replay", "runs/x"]).run_dir == "runs/x"


async def test_piano_run_serves_the_live_page(tmp_path: Path) -> None:
    port = free_port()
    argv = [sys.executable, "-m", "agent_runtime.app.cli.main", "run"]
    argv += [str(ROOT / "configs" / "village_small.yaml"), "--world", "none", "--duration", "14"]
    argv += ["--out", str(tmp_path), "--run-id", "webrun", "--web-port", str(port)]
    proc = await asyncio.create_subprocess_exec(
        *argv, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT, cwd=ROOT
    )
    assert proc.stdout is not None
    lines: list[str] = []
    try:
        async with asyncio.timeout(90):
            while not any(line.startswith("live view:") for line in lines):
                raw = await proc.stdout.readline()
                assert raw, "piano run ended early:\n" + "".join(lines)
                lines.append(raw.decode())
        assert f"live view: http://127.0.0.1:{port}/" in "".join(lines)

        scene: dict[str, Any] = {}
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as client:

            def ready() -> bool:
                # every agent placed and decided, and Ann's plan made (planning steps on its
                # own cadence: on a loaded machine after the first decisions; CI of 43555d1)
                agents = scene.get("agents") or []
                placed = len(agents) == 5 and all(a["pos"] and a["intent"] for a in agents)
                return placed and bool((scene.get("detail") or {}).get("plan"))

            async with asyncio.timeout(60):
                while not ready():
                    scene = (await client.get("/api/scene", params={"agent": "Ann"})).json()
                    await asyncio.sleep(0.2)
        assert scene["mode"] == "live" and scene["detail"]["name"] == "Ann"
        assert scene["detail"]["plan"] and scene["detail"]["decision"]["brain"] == "heuristic"

        async with asyncio.timeout(90):
            rest = await proc.stdout.read()
            await proc.wait()
        lines.append(rest.decode())
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    out = "".join(lines)
    assert proc.returncode == 0, out
    assert "agents 5  decisions" in out and "\r" not in out  # plain lines, not a bar
    events = [
        json.loads(x) for x in (tmp_path / "webrun" / "events.jsonl").read_text().splitlines()
    ]
    progress = [e for e in events if e["type"] == "progress"]
    assert progress and set(progress[-1]["positions"]) == {"Ann", "Bob", "Cleo", "Dario", "Edda"}
    assert "lag_ms_p95" in progress[-1]
