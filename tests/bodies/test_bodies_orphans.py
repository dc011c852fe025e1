"""No orphans: SIGKILL the Python process and every Node process of its bodies must exit."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
from asyncio.subprocess import Process
from collections.abc import AsyncIterator
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


@contextlib.asynccontextmanager
async def orphan_child(*args: object) -> AsyncIterator[tuple[Process, set[int]]]:
    """``orphan_child.py args...`` and the Node pids it reports; whatever the test does, no
    Node process and no child outlives the block."""
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        str(CHILD),
        *(str(a) for a in args),
        stdout=asyncio.subprocess.PIPE,
        env=dict(os.environ, PYTHONPATH=str(REPO)),
        cwd=str(REPO),
    )
    node_pids: set[int] = set()
    try:
        assert child.stdout is not None
        async with asyncio.timeout(45):
            line = await child.stdout.readline()
        assert line, "the child exited before reporting its Node processes"
        reported = json.loads(line)
        node_pids.update({reported["bridge"], *reported["workers"]})
        yield child, node_pids
    finally:
        for pid in node_pids:  # never leave survivors behind, even when the test fails
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
        if child.returncode is None:
            child.kill()
            await child.wait()


@pytest.mark.parametrize(
    ("kind", "per_process"),
    [("jspybridge", 0), ("jspybridge", 1), ("stdio", 0), ("stdio", 1)],
    ids=["jspybridge-in-bridge", "jspybridge-workers", "stdio-in-sidecar", "stdio-workers"],
)
async def test_sigkill_python_leaves_no_node_process(
    server: EmbeddedServer, kind: str, per_process: int
) -> None:
    name = f"orph{kind[0]}{per_process}x"
    async with orphan_child(server.port, per_process, name, "wait", kind) as (child, node_pids):
        node_pids.update(p.pid for p in psutil.Process(child.pid).children(recursive=True))
        assert len(node_pids) == 1 + (2 if per_process else 0)
        assert all(_alive(pid) for pid in node_pids)

        os.kill(child.pid, signal.SIGKILL)
        await child.wait()

        await wait_until(
            lambda: not any(_alive(pid) for pid in node_pids),
            8,
            "the Node processes to exit after their Python parent was killed",
        )


async def test_python_exit_with_live_bodies_does_not_hang(server: EmbeddedServer) -> None:
    async with orphan_child(server.port, 1, "leaver", "leave") as (child, node_pids):
        async with asyncio.timeout(10):
            code = await child.wait()
        assert code == 0
        await wait_until(
            lambda: not any(_alive(pid) for pid in node_pids),
            5,
            "the Node processes to exit with the Python process",
        )
