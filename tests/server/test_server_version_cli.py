"""``piano server --version 1.21.4`` (a real process): the embedded world answers the status
ping as 1.21.4, a village whose file sets another ``world.version`` is refused in one line
before any body joins, ``piano join``'s version is the server's, and a plain mineflayer client
joins at the version read from the ping (issue 34)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import signal
import sys
from pathlib import Path

import pytest

from agent_runtime.app.cli.cmd_join import join_version
from agent_runtime.app.cli.cmd_run import apply_cli
from agent_runtime.app.cli.world_version import (
    resolve_external_version,
    server_version,
    version_set_in,
)
from agent_runtime.app.world_setup import WorldError
from agent_runtime.config.loader import load_config
from agent_runtime.services.ports import free_port

from .conftest import JsBot

pytestmark = pytest.mark.minecraft

VERSION = "1.21.4"


async def _line_with(proc: asyncio.subprocess.Process, text: str, within: float) -> str:
    assert proc.stdout is not None
    async with asyncio.timeout(within):
        while True:
            line = (await proc.stdout.readline()).decode(errors="replace")
            if not line:
                raise AssertionError(f"piano server ended before printing {text!r}")
            if text in line:
                return line


@pytest.mark.timeout(120)
async def test_piano_server_serves_the_version_asked_and_a_village_reads_it(
    tmp_path: Path,
) -> None:
    port = free_port("127.0.0.1")
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "agent_runtime.app.cli.main", "server", "--version", VERSION,
        "--port", str(port), "--world-dir", str(tmp_path / "world"), "--no-admin",
        "--view-distance", "2",
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
        start_new_session=True,
    )  # fmt: skip
    try:
        ready = await _line_with(proc, "server ready", within=90)
        assert ready.startswith(f"Minecraft {VERSION} server ready: join localhost:{port}"), ready

        served = await server_version("127.0.0.1", port)
        assert (served.version, served.protocol) == (VERSION, 769)
        assert await join_version("127.0.0.1", port, None) == VERSION

        path = tmp_path / "village.yaml"
        path.write_text("world: {kind: external, version: 1.16.5}\nagents: [{name: Ann}]\n")
        cfg = load_config(path)
        external = argparse.Namespace(
            duration=None, llm=None, out=None, world=f"127.0.0.1:{port}", agents=None
        )
        world = apply_cli(cfg, external, str(path))
        with pytest.raises(WorldError) as err:
            # as piano run calls it, before its event loop: here from a thread of its own
            await asyncio.to_thread(
                resolve_external_version, world, path, version_set=version_set_in(cfg)
            )
        assert str(err.value).startswith(f"{path}: world.version is 1.16.5 but the Minecraft")
        assert f"runs Minecraft {VERSION} (protocol 769)" in str(err.value)

        bot = await JsBot(port, "reader", version=VERSION).start(within=60)
        try:
            assert bot.spawn_info, bot.events[-5:]
        finally:
            await bot.close()
    finally:
        if proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGINT)
        with contextlib.suppress(AssertionError, TimeoutError):
            await _line_with(proc, "stopped", within=30)
        async with asyncio.timeout(30):
            await proc.wait()
    assert proc.returncode == 0
