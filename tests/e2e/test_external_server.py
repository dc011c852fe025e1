"""A village on a Minecraft server it did not start (``--world HOST:PORT``).

- ``piano server`` runs as its own process; ``piano run --world 127.0.0.1:PORT`` joins it,
  its bodies act there, and both stop cleanly by process id.
- A server that answers the status ping with another protocol version gets one clear line
  and exit status 2 before any body tries to log in.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import signal
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import psutil
import pytest
import yaml

from tests.jsonl import records

pytestmark = [pytest.mark.services, pytest.mark.minecraft]

PIANO = [sys.executable, "-m", "agent_runtime.app.cli.main"]


def _village(tmp_path: Path) -> Path:
    path = tmp_path / "village.yaml"
    path.write_text(yaml.safe_dump({
        "run": {"seed": 5, "embedder": "hashing"},
        "llm": {"provider": "heuristic"},
        "agents": [{"name": "Ann", "traits": ["You are curious."]},
                   {"name": "Bob", "traits": ["You are calm."]}],
    }))  # fmt: skip
    return path


@contextlib.asynccontextmanager
async def _piano_server(tmp_path: Path, version: str) -> AsyncIterator[int]:
    """``piano server --port 0 --version VERSION`` in its own process group; yields its port."""
    proc = await asyncio.create_subprocess_exec(
        *PIANO, "server", "--port", "0", "--world-dir", str(tmp_path / "world"), "--seed", "3",
        "--version", version,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
        start_new_session=True,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        async with asyncio.timeout(120):
            while True:
                line = (await proc.stdout.readline()).decode()
                assert line, "piano server ended before it was ready"
                m = re.search(r"server ready: join \S+:(\d+)", line)
                if m:
                    break
        drain = asyncio.create_task(proc.stdout.read())  # keep its pipe flowing
        yield int(m.group(1))
    finally:
        with contextlib.suppress(ProcessLookupError):
            proc.send_signal(signal.SIGINT)
        try:
            async with asyncio.timeout(30):
                await proc.wait()
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            await proc.wait()
        with contextlib.suppress(Exception):
            await drain
    assert proc.returncode == 0


def _events(path: Path) -> list[dict[str, Any]]:
    return records(path)


def _acted(events: list[dict[str, Any]]) -> bool:
    """Both bodies started a skill and some world skill (not chat) succeeded."""
    started = {e["agent"] for e in events if e["type"] == "skill_started"}
    done = any(e["type"] == "skill_outcome" and e.get("success") and e["call"]["skill"] != "chat"
               for e in events)  # fmt: skip
    return started >= {"Ann", "Bob"} and done


#: the external server's version: one the bodies' mineflayer speaks, which the village file
#: leaves unset (the bodies take the server's from its status ping)
EXTERNAL_VERSION = "1.21.11"


@pytest.mark.timeout(300)
async def test_a_village_joins_a_server_started_apart(tmp_path: Path) -> None:
    log = tmp_path / "runs" / "ext" / "events.jsonl"
    async with _piano_server(tmp_path, EXTERNAL_VERSION) as port:
        # runs until its bodies have acted on that server, then Ctrl-C (SIGINT), which must end
        # it with status 0 as the duration would; 40 s stays the bound if they never do
        run = await asyncio.create_subprocess_exec(
            *PIANO, "run", str(_village(tmp_path)), "--world", f"127.0.0.1:{port}",
            "--duration", "40", "--no-web", "--quiet", "--workers", "1",
            "--out", str(tmp_path / "runs"), "--run-id", "ext",
            stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        err = asyncio.ensure_future(run.stderr.read()) if run.stderr else None
        try:
            async with asyncio.timeout(240):
                while run.returncode is None and not _acted(_events(log)):
                    with contextlib.suppress(TimeoutError):
                        async with asyncio.timeout(0.5):
                            await run.wait()
                if run.returncode is None:
                    run.send_signal(signal.SIGINT)
                await run.wait()
        finally:
            if run.returncode is None:
                run.kill()
                await run.wait()
        stderr = (await err).decode() if err else ""
        assert run.returncode == 0, stderr[-2000:]
    events = _events(log)
    started = [e for e in events if e["type"] == "skill_started"]
    outcomes = [e for e in events if e["type"] == "skill_outcome"]
    assert {e["agent"] for e in started} == {"Ann", "Bob"}, "every body acted on that server"
    world_done = [e for e in outcomes if e.get("success") and e["call"]["skill"] != "chat"]
    assert world_done, [(e["call"]["skill"], e.get("reason")) for e in outcomes]
    assert not any(e.get("failure") == "not_connected" for e in outcomes)
    resolved = yaml.safe_load((log.parent / "config.resolved.yaml").read_text())
    assert resolved["world"]["version"] == EXTERNAL_VERSION  # the server's, from its ping
    mine = [p for p in psutil.process_iter(["cmdline"]) if str(tmp_path) in " ".join(
        p.info.get("cmdline") or [])]  # fmt: skip
    assert mine == [], "no process of the run or the server is left"


def _varint(n: int) -> bytes:
    out = b""
    while True:
        byte = n & 0x7F
        n >>= 7
        out += bytes([byte | (0x80 if n else 0)])
        if not n:
            return out


async def _read_varint(reader: asyncio.StreamReader) -> int:
    value = shift = 0
    while True:
        b = (await reader.readexactly(1))[0]
        value |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return value


async def test_a_server_of_another_version_is_refused_before_any_login(tmp_path: Path) -> None:
    logins: list[int] = []
    status = json.dumps(
        {
            "version": {"name": "1.12.2", "protocol": 340},
            "players": {"max": 20, "online": 0},
            "description": {"text": "x"},
        }
    )

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await _read_varint(reader)  # handshake length
            await _read_varint(reader)  # packet id 0
            await _read_varint(reader)  # the client's protocol
            await reader.readexactly(await _read_varint(reader))  # address
            await reader.readexactly(2)  # port
            if await _read_varint(reader) == 2:  # next state: login
                logins.append(1)
                return
            await _read_varint(reader)  # status request: length
            await _read_varint(reader)  # ... id 0
            body = b"\x00" + _varint(len(status)) + status.encode()
            writer.write(_varint(len(body)) + body)
            await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    async with server:
        run = await asyncio.create_subprocess_exec(
            *PIANO, "run", str(_village(tmp_path)), "--world", f"127.0.0.1:{port}",
            "--duration", "10", "--no-web", "--quiet", "--out", str(tmp_path / "runs"),
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        async with asyncio.timeout(60):
            _, err = await run.communicate()
    stderr = err.decode()
    assert run.returncode == 2, stderr[-2000:]
    lines = [x for x in stderr.splitlines() if x.startswith("piano run:")]
    # the YAML leaves world.version unset: the bodies would take the server's, which they do
    # not speak (the check before anything starts, agent_runtime/app/cli/world_version.py)
    assert len(lines) == 1 and "1.12.2 (protocol 340)" in lines[0], stderr[-2000:]
    assert "our bodies' code starts at 1.16.5" in lines[0], lines[0]
    assert "world.version" in lines[0] and "1.16.5" in lines[0] and "Traceback" not in stderr
    assert logins == [], "no body tried to log in"
