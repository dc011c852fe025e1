"""Transport, body and name checks that need Node but no Minecraft server."""

from __future__ import annotations

import asyncio
import json
import re
import socket
import subprocess
import sys

import psutil
import pytest

from agent_runtime.interfaces import BotSpec
from agent_runtime.world import SkillCall
from bots.names import validate_minecraft_name
from bots.transport import BodyConnectError, JSPyBridgeTransport, MineflayerBody


@pytest.mark.parametrize("name", ["abc", "Alice_01", "x" * 16, "___"])
def test_valid_minecraft_names(name: str) -> None:
    assert validate_minecraft_name(name) == name


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("ab", "must be 3-16 characters long (got 2)"),
        ("x" * 17, "must be 3-16 characters long (got 17)"),
        ("bad name", "found ' '"),
        ("émile", "found 'é'"),
        ("a-b-c", "found '-'"),
    ],
)
def test_invalid_minecraft_names(name: str, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        validate_minecraft_name(name)


def test_importing_the_transport_starts_nothing() -> None:
    code = "import sys, bots.transport; print('javascript' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


@pytest.mark.parametrize(
    "kwargs",
    [
        {"bots_per_process": -1},
        {"call_timeout": 0},
        {"event_queue_size": 0},
        {"reconnect_base": 5.0, "reconnect_max": 1.0},
    ],
)
def test_transport_rejects_bad_options(kwargs: dict[str, float]) -> None:
    with pytest.raises(ValueError):
        JSPyBridgeTransport(**kwargs)  # type: ignore[arg-type]


def _event(bot: str, n: int) -> dict[str, object]:
    return {
        "type": "event",
        "bot": bot,
        "kind": "chat",
        "at": 1.0,
        "data": {"sender": "x", "message": str(n)},
    }


async def test_events_go_to_a_bounded_queue_that_drops_the_oldest() -> None:
    transport = JSPyBridgeTransport(event_queue_size=2)
    body = MineflayerBody(transport, BotSpec("Queued"), event_queue_size=2)
    transport._bodies[body.name] = body
    transport._dispatch(json.dumps([_event("Queued", i) for i in range(5)] + [_event("Other", 9)]))
    assert body.dropped_events == 3
    got = [body.next_event_nowait(), body.next_event_nowait(), body.next_event_nowait()]
    assert [e.data["message"] if e else None for e in got] == ["3", "4", None]


async def test_events_cross_from_a_foreign_thread_into_the_loop() -> None:
    transport = JSPyBridgeTransport()
    body = MineflayerBody(transport, BotSpec("Threaded"), event_queue_size=8)
    transport._bodies[body.name] = body
    transport._loop = asyncio.get_running_loop()
    await asyncio.to_thread(transport._on_batch, json.dumps([_event("Threaded", 1)]))
    async with asyncio.timeout(2):
        event = await anext(aiter(body.events()))
    assert event.kind == "chat" and event.bot == "Threaded"


async def test_bad_skill_arguments_fail_without_a_bridge_call() -> None:
    body = MineflayerBody(JSPyBridgeTransport(), BotSpec("Offline"), event_queue_size=4)
    outcome = await body.run_skill(SkillCall(skill="craft", args={"item": "stick", "count": 0}))
    assert not outcome.success
    assert outcome.reason.startswith("bad arguments for craft: count: ")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


async def test_bridge_starts_and_stops_cleanly_twice() -> None:
    pids = []
    for _ in range(2):
        async with JSPyBridgeTransport() as transport:
            info = await transport.info()
            assert info["pid"] == transport.bridge_pid and info["bots"] == 0
            pids.append(info["pid"])
        assert not psutil.pid_exists(pids[-1]) or psutil.Process(pids[-1]).status() == "zombie"
    assert pids[0] != pids[1]


async def test_connect_to_nothing_raises_after_the_spawn_timeout() -> None:
    async with JSPyBridgeTransport(spawn_timeout=2.0) as transport:
        with pytest.raises(BodyConnectError, match="did not spawn"):
            await transport.connect(BotSpec("Lonely", port=_free_port()))
        assert transport.bodies == {}
        with pytest.raises(ValueError, match="3-16 characters"):
            await transport.connect(BotSpec("no"))
