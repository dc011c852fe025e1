"""Fixtures for the body tests: the embedded server, its admin API and a transport.

The server is module-scoped (starting it per test would dominate the run
time); tests that restart it have a module of their own. Every wait is bounded.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import TypeVar

import pytest
import pytest_asyncio

from agent_runtime.interfaces import BotSpec
from agent_runtime.world import BodyEvent, Observation, SkillCall, SkillOutcome
from bots.admin import AdminClient
from bots.server_host import EmbeddedServer
from bots.server_options import ServerOptions
from bots.transport import HostTransport, JSPyBridgeTransport, MineflayerBody

T = TypeVar("T")

_names = itertools.count(1)


def unique_name(prefix: str) -> str:
    """A fresh Minecraft name per call (servers dislike two logins with one name)."""
    return f"{prefix[:10]}{next(_names)}"


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def server(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[EmbeddedServer]:
    run = tmp_path_factory.mktemp("bodies")
    options = ServerOptions(furnace_cook_ticks=10)
    async with EmbeddedServer(run / "world", options, log_path=run / "server.log") as srv:
        yield srv


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def admin(server: EmbeddedServer) -> AsyncIterator[AdminClient]:
    assert server.admin_url is not None
    async with AdminClient(server.admin_url) as client:
        yield client


@pytest_asyncio.fixture(loop_scope="module")
async def transport() -> AsyncIterator[JSPyBridgeTransport]:
    async with JSPyBridgeTransport() as t:
        yield t


async def connect(transport: HostTransport, server: EmbeddedServer, prefix: str) -> MineflayerBody:
    return await transport.connect(BotSpec(unique_name(prefix), port=server.port))


async def wait_until(
    probe: Callable[[], Awaitable[T | None]], *, within: float = 10.0, what: str = "condition"
) -> T:
    """Poll ``probe`` until it returns something truthy; fail after ``within`` seconds."""
    deadline = time.monotonic() + within
    while True:
        value = await probe()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {within} s waiting for {what}")
        await asyncio.sleep(0.1)


async def next_event(
    body: MineflayerBody,
    kind: str,
    *,
    within: float = 10.0,
    where: Callable[[BodyEvent], bool] | None = None,
) -> BodyEvent:
    """The next event of ``kind`` (matching ``where``) from the body's queue."""
    async with asyncio.timeout(within):
        async for event in body.events():
            if event.kind == kind and (where is None or where(event)):
                return event
    raise AssertionError(f"{body.name}: event stream ended before a {kind!r} event")


async def give(admin: AdminClient, body: MineflayerBody, item: str, count: int) -> Observation:
    """Give items through the admin API and wait until the body's inventory shows them."""
    before = (await body.observe()).inventory.get(item, 0)
    await admin.command(f"/give {body.name} {item} {count}")

    async def arrived() -> Observation | None:
        obs = await body.observe()
        return obs if obs.inventory.get(item, 0) >= before + count else None

    return await wait_until(arrived, what=f"{count} {item} in {body.name}'s inventory")


async def run(
    body: MineflayerBody, skill: str, limit: float | None = None, **args: object
) -> SkillOutcome:
    """Run ``skill`` with keyword arguments; ``limit`` overrides the skill's timeout."""
    call = SkillCall(skill=skill, args=dict(args), timeout=limit)  # type: ignore[arg-type,unused-ignore]
    return await body.run_skill(call)


def place_xyz(server: EmbeddedServer, name: str) -> dict[str, float]:
    p = server.places[name]
    return {"x": float(p.x), "y": float(p.y), "z": float(p.z)}


def world_dir(server: EmbeddedServer) -> Path:
    return server.world_dir


async def walk_to(body: MineflayerBody, server: EmbeddedServer, place: str, **extra: float) -> None:
    target = place_xyz(server, place)
    target.update(extra)
    outcome = await run(body, "go_to", range=2.0, **target)
    assert outcome.success, outcome.reason
