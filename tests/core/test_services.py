"""Embedded services: started on free loopback ports, answering, stopped by pid, no orphans."""

from __future__ import annotations

from pathlib import Path

import psutil
import pytest
from redis.asyncio import Redis

from agent_runtime.services import MosquittoBroker, RedisServer
from agent_runtime.services.ports import wait_for_port

pytestmark = pytest.mark.services


async def test_redis_starts_answers_and_stops(tmp_path: Path) -> None:
    async with RedisServer(tmp_path / "r") as server:
        pid = server.pid
        assert pid is not None and server.url.startswith("redis://127.0.0.1:")
        r = Redis.from_url(server.url)
        assert await r.ping()
        assert (await r.config_get("bind"))["bind"] == "127.0.0.1"
        await r.aclose()
    assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    assert (tmp_path / "r" / "redis.log").exists()


async def test_mosquitto_starts_and_stops(tmp_path: Path) -> None:
    async with MosquittoBroker(tmp_path / "m") as broker:
        pid = broker.pid
        assert pid is not None and broker.port is not None
        await wait_for_port("127.0.0.1", broker.port, 5)
        conf = (tmp_path / "m" / "mosquitto.conf").read_text()
        assert f"listener {broker.port} 127.0.0.1" in conf
    assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
