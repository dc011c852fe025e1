"""World shards as actors, without a cluster: :func:`open_server_actor` against a launcher
that stands in for Ray (a handle whose incarnation can be ended and brought back).

Checked here: the settings handed to the actor (ports and token chosen once, world folder
absolute, the token never in ``repr``), the world handle filled from the actor's answer, the
``world_started`` record, and that an incarnation ended and brought back is one
``service_restarted`` record with the shard, the node and ``moved``; the stop stops the actor.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
from pathlib import Path
from typing import Any

import yaml

from agent_runtime.app.launchers.server_actor import ServerSettings
from agent_runtime.app.launchers.world_shards import open_shard_server
from agent_runtime.app.shards import shard_spot
from agent_runtime.app.world_setup import WorldHandle, WorldRun
from agent_runtime.config.loader import load_config
from agent_runtime.config.models import DEFAULT_VERSION
from agent_runtime.run.events import EventLog
from tests.core.helpers import wait_until


class FakeServer:
    """One shard's actor: ``end()`` ends the current incarnation (as a lost node does)."""

    def __init__(self, settings: ServerSettings, node: str) -> None:
        self.settings = settings
        self.info: dict[str, Any] = self._info(node, 1)
        self.stopped = False
        self._ended = asyncio.Event()

    def _info(self, node: str, n: int) -> dict[str, Any]:
        host = self.settings.host or f"10.0.0.{n}"
        return {"shard": self.settings.shard, "host": host, "port": self.settings.options.port,
                "admin_port": self.settings.options.admin_port, "node": node, "started_at": n,
                "places": [{"name": "town_hall", "x": 1, "y": 2, "z": 3}]}  # fmt: skip

    @property
    def address(self) -> str:
        return f"{self.info['host']}:{self.info['port']}"

    @property
    def node(self) -> str | None:
        return str(self.info["node"])

    @property
    def pid(self) -> int | None:
        return None

    def end(self) -> None:
        self._ended.set()

    async def wait(self) -> int | None:
        await self._ended.wait()
        return None

    async def stop(self) -> int | None:
        self.stopped = True
        return 0


class FakeLauncher:
    name = "fake"

    def __init__(self, local: bool) -> None:
        self.local = local
        self.servers: list[FakeServer] = []
        self.entered = 0

    async def __aenter__(self) -> FakeLauncher:
        self.entered += 1
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.entered -= 1

    async def start_server(self, settings: ServerSettings) -> FakeServer:
        self.servers.append(FakeServer(settings, "node-a"))
        return self.servers[-1]

    async def start(self, *args: Any) -> Any:
        raise NotImplementedError

    async def restart(self, handle: Any, backoff: float) -> FakeServer:
        assert isinstance(handle, FakeServer)
        handle._ended = asyncio.Event()
        handle.info = handle._info("node-b", int(handle.info["started_at"]) + 1)
        return handle


def village(tmp_path: Path) -> Any:
    cfg = {
        "run": {"seed": 3}, "world": {"kind": "embedded", "shards": [
            {"name": "west", "region": {"x_min": -100, "x_max": 0, "z_min": -50, "z_max": 50}},
            {"name": "east", "region": {"x_min": 0, "x_max": 100, "z_min": -50, "z_max": 50}},
        ]},
        "llm": {"provider": "heuristic"}, "agent_templates": [{"count": 2}],
    }  # fmt: skip
    path = tmp_path / "village.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return load_config(str(path))


async def open_west(
    tmp_path: Path, launcher: FakeLauncher, events: EventLog, stack: contextlib.AsyncExitStack
) -> WorldHandle:
    cfg = village(tmp_path)
    spot = shard_spot(cfg.world, cfg.world.shards[0])
    return await open_shard_server(WorldRun(stack, cfg, Path("run"), events), spot, launcher)


async def test_a_shard_actor_fills_the_world_and_its_restart_is_an_event(
    tmp_path: Path, monkeypatch: Any
) -> None:
    monkeypatch.chdir(tmp_path)
    records: list[dict[str, Any]] = []
    events = EventLog(None)
    events.add_listener(records.append)
    launcher = FakeLauncher(local=True)
    async with contextlib.AsyncExitStack() as stack:
        world = await open_west(tmp_path, launcher, events, stack)
        (server,) = launcher.servers
        s = server.settings
        o = s.options
        assert s.shard == "west" and s.host == "127.0.0.1" and o.port and o.admin_port
        assert Path(s.world_dir) == tmp_path / "run" / "world-west"
        assert o.version == DEFAULT_VERSION  # world.version reaches the shard server
        assert len(s.admin_token) >= 24 and s.admin_token not in repr(s)
        assert world.port == o.port and world.host == "127.0.0.1"
        assert world.admin_url == f"http://piano:{s.admin_token}@127.0.0.1:{o.admin_port}"
        assert list(world.places) == ["town_hall"] and world.server is server
        assert launcher.entered == 1
        (started,) = [r for r in records if r["type"] == "world_started"]
        assert started["shard"] == "west" and started["node"] == "node-a"
        assert s.admin_token not in str(started)

        server.end()  # lost with its node; the fake brings it back on node-b, same address
        await wait_until(
            lambda: any(r["type"] == "service_restarted" for r in records), 5, "restart event"
        )
        (restarted,) = [r for r in records if r["type"] == "service_restarted"]
        assert restarted["service"] == "minecraft" and restarted["shard"] == "west"
        assert restarted["node"] == "node-b" and restarted["moved"] is False
        assert restarted["address"] == f"127.0.0.1:{o.port}" and restarted["seconds"] >= 0
    assert server.stopped and launcher.entered == 0


async def test_a_shard_on_an_existing_cluster_binds_its_node_and_a_move_is_followed(
    tmp_path: Path, monkeypatch: Any
) -> None:
    monkeypatch.chdir(tmp_path)
    records: list[dict[str, Any]] = []
    events = EventLog(None)
    events.add_listener(records.append)
    launcher = FakeLauncher(local=False)
    async with contextlib.AsyncExitStack() as stack:
        world = await open_west(tmp_path, launcher, events, stack)
        (server,) = launcher.servers
        assert server.settings.host is None  # the actor's node's address
        assert world.host == "10.0.0.1"
        server.end()
        await wait_until(
            lambda: any(r["type"] == "service_restarted" for r in records), 5, "restart event"
        )
        (restarted,) = [r for r in records if r["type"] == "service_restarted"]
        assert restarted["moved"] is True and restarted["address"] == f"10.0.0.2:{world.port}"
        assert world.host == "10.0.0.2"  # the coordinator's handle follows the shard


def test_the_shard_actor_is_a_threaded_actor() -> None:
    """Ray makes an actor with any coroutine method an async actor, running every method on
    one event loop: the blocking ``wait_exit`` would then hold up ``stop`` for ever."""
    from agent_runtime.app.launchers.server_actor import ServerActor

    coroutines = [
        name
        for name, member in inspect.getmembers(ServerActor)
        if inspect.iscoroutinefunction(member)
    ]
    assert coroutines == []
