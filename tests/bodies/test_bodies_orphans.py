"""No orphans: SIGKILL the Python process and every Node process of its bodies must exit."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from pathlib import Path

import psutil
import pytest

from bots.server_host import EmbeddedServer
from tests.core.helpers import wait_until

pytestmark = [pytest.mark.minecraft, pytest.mark.asyncio(loop_scope="module")]

CHILD = Path(__file__).with_name("orphan_child.py")
REPO = Path(__file__).resolve().parents[2]


def _alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


@pytest.mark.parametrize(
    ("kind", "per_process"),
    [("jspybridge", 0), ("jspybridge", 1), ("stdio", 0), ("stdio", 1)],
    ids=["jspybridge-in-bridge", "jspybridge-workers", "stdio-in-sidecar", "stdio-workers"],
)
async def test_sigkill_python_leaves_no_node_process(
    server: EmbeddedServer, kind: str, per_process: int
) -> None:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        str(CHILD),
        str(server.port),
        str(per_process),
        f"orph{kind[0]}{per_process}x",
        "wait",
        kind,
        stdout=asyncio.subprocess.PIPE,
        env=env,
        cwd=str(REPO),
    )
    node_pids: set[int] = set()
    try:
        assert child.stdout is not None
        async with asyncio.timeout(45):
            line = await child.stdout.readline()
        assert line, "the child exited before reporting its Node processes"
        reported = json.loads(line)
        node_pids = {reported["bridge"], *reported["workers"]}
        node_pids |= {p.pid for p in psutil.Process(child.pid).children(recursive=True)}
        assert len(node_pids) == 1 + (2 if per_process else 0)
        assert all(_alive(pid) for pid in node_pids)

        os.kill(child.pid, signal.SIGKILL)
        await child.wait()

        await wait_until(
            lambda: not any(_alive(pid) for pid in node_pids),
            8,
            "the Node processes to exit after their Python parent was killed",
        )
    finally:
        for pid in node_pids:  # never leave survivors behind, even when the test fails
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
        if child.returncode is None:
            child.kill()
            await child.wait()


async def test_python_exit_with_live_bodies_does_not_hang(server: EmbeddedServer) -> None:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        str(CHILD),
        str(server.port),
        "1",
        "leaver",
        "leave",
        stdout=asyncio.subprocess.PIPE,
        env=env,
        cwd=str(REPO),
    )
    node_pids: set[int] = set()
    try:
        assert child.stdout is not None
        async with asyncio.timeout(45):
            line = await child.stdout.readline()
        reported = json.loads(line)
        node_pids = {reported["bridge"], *reported["workers"]}
        async with asyncio.timeout(10):
            code = await child.wait()
        assert code == 0
        await wait_until(
            lambda: not any(_alive(pid) for pid in node_pids),
            5,
            "the Node processes to exit with the Python process",
        )
    finally:
        for pid in node_pids:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
        if child.returncode is None:
            child.kill()
            await child.wait()
