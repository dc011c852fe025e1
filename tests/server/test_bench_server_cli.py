"""`piano bench server` end to end, small: its walker (a Node child process through
ChildProcess) connects N bots to a fresh embedded server, the JSON says they all spawned and
none was kicked, and no walker is left once the command ends. (The walker's path broke when
the CLI moved under agent_runtime/app/, and nothing noticed.)"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import psutil
import pytest

pytestmark = pytest.mark.minecraft


def _walkers(marker: str) -> list[int]:
    return [
        p.pid
        for p in psutil.process_iter(["cmdline"])
        if any("walker.js" in a for a in p.info.get("cmdline") or [])
        and marker in " ".join(p.info.get("cmdline") or [])
    ]


@pytest.mark.timeout(150)
async def test_bench_server_walks_bots_and_leaves_no_walker(tmp_path: Path) -> None:
    out = tmp_path / "server.json"
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "agent_runtime.app.cli.main", "bench", "server",
        "--bots", "2", "--duration", "2", "--json-out", str(out),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    async with asyncio.timeout(140):
        stdout, stderr = await proc.communicate()
    assert proc.returncode == 0, stderr.decode()[-3000:]
    result = json.loads(out.read_text())
    assert json.loads(stdout) == result
    assert result["bots"] == 2 and result["spawned"] == 2, result
    assert result["connect_all_seconds"] is not None
    assert result["kicks"] == 0 and result["disconnects"] <= 2
    assert result["server_cpu_percent"]["mean"] is not None
    assert _walkers('"prefix": "walker"') == []
