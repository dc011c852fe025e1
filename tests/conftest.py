"""Shared fixtures: real redis-server and mosquitto on free loopback ports (stopped by pid)."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from agent_runtime.services import MosquittoBroker, RedisServer
from tests.timeline import record as pytest_runtest_protocol  # noqa: F401 (a hook)


@pytest.fixture
async def redis_server(tmp_path: Path) -> AsyncIterator[RedisServer]:
    async with RedisServer(tmp_path / "redis") as server:
        yield server


@pytest.fixture
async def mqtt_broker(tmp_path: Path) -> AsyncIterator[MosquittoBroker]:
    async with MosquittoBroker(tmp_path / "mqtt") as broker:
        yield broker


@pytest.fixture
def run_id() -> str:
    return f"t{uuid.uuid4().hex[:10]}"


def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object:
    """Under ``pytest -n N --dist loadfile``: whole files, the slow ones first
    (:mod:`tests.xdist_order`)."""
    if config.getoption("dist") != "loadfile":
        return None
    from tests.xdist_order import slow_first_scheduler

    return slow_first_scheduler(config, log)
