"""Nothing listens beyond loopback without a key: Redis and the broker on 0.0.0.0 need a
password generated for the run, refuse clients without it, and workers that get it in their
environment (never on their command line) run their agents against them."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import cast

import aiomqtt
import psutil
import pytest
import yaml
from redis.asyncio import Redis
from redis.exceptions import AuthenticationError, ResponseError

from agent_runtime.app.workers import WorkerPool, WorkerSpec
from agent_runtime.bus import MqttBus, parse_mqtt_url, topics
from agent_runtime.bus.messages import Progress
from agent_runtime.services import MosquittoBroker, RedisServer, ServiceError
from agent_runtime.services.credentials import (
    Credentials,
    is_loopback,
    mosquitto_password_line,
    with_redis_password,
)
from modules.memory.persistence import stream_prefix
from tests.core.helpers import wait_until_async
from tests.listeners import listening_addresses

pytestmark = pytest.mark.services

NAMES = ["Ann", "Bob", "Cleo"]


def test_loopback_and_urls() -> None:
    assert is_loopback("127.0.0.1") and is_loopback("localhost") and is_loopback("::1")
    assert not is_loopback("0.0.0.0") and not is_loopback("10.0.0.2") and not is_loopback("alpha")
    assert with_redis_password("redis://h:1/0", "p/w") == "redis://:p%2Fw@h:1/0"
    line = mosquitto_password_line("piano", "secret", salt=b"0123456789ab")
    user, _, rest = line.partition(":")
    assert user == "piano" and rest.startswith("$7$101$") and "secret" not in line
    creds = Credentials.generate()
    assert creds.redis_password not in repr(creds) and creds.mqtt_password not in repr(creds)
    assert Credentials.from_env(creds.env()) == creds and Credentials.from_env({}) is None


def test_no_listener_beyond_loopback_without_a_password(tmp_path: Path) -> None:
    for service in (RedisServer, MosquittoBroker):
        with pytest.raises(ServiceError, match="needs credentials"):
            service(tmp_path / service.binary, host="0.0.0.0")


async def test_redis_beyond_loopback_refuses_a_client_without_the_password(
    tmp_path: Path,
) -> None:
    creds = Credentials.generate()
    async with RedisServer(
        tmp_path / "redis", host="0.0.0.0", password=creds.redis_password
    ) as server:
        assert server.port is not None
        assert listening_addresses(server.port) == {"0.0.0.0"}
        anonymous: Redis = Redis(host="127.0.0.1", port=server.port)
        try:
            with pytest.raises((AuthenticationError, ResponseError)):
                await anonymous.set("k", "v")
        finally:
            await anonymous.aclose()
        assert creds.redis_password not in server.url  # what is shown
        assert creds.redis_password not in (tmp_path / "redis" / "redis.log").read_text()
        keyed: Redis = Redis.from_url(server.secret_url.replace("0.0.0.0", "127.0.0.1"))
        try:
            assert await keyed.ping()
        finally:
            await keyed.aclose()


async def test_broker_beyond_loopback_refuses_a_client_without_the_password(
    tmp_path: Path,
) -> None:
    creds = Credentials.generate()
    async with MosquittoBroker(
        tmp_path / "mqtt", host="0.0.0.0", password=creds.mqtt_password, user=creds.mqtt_user
    ) as broker:
        assert broker.port is not None
        assert listening_addresses(broker.port) == {"0.0.0.0"}
        with pytest.raises(aiomqtt.MqttError):
            async with asyncio.timeout(10), aiomqtt.Client("127.0.0.1", broker.port):
                pass
        with pytest.raises(aiomqtt.MqttError):
            async with (
                asyncio.timeout(10),
                aiomqtt.Client("127.0.0.1", broker.port, username="piano", password="guess"),
            ):
                pass
        async with (
            asyncio.timeout(10),
            aiomqtt.Client(
                "127.0.0.1", broker.port, username=creds.mqtt_user, password=creds.mqtt_password
            ),
        ):
            pass


async def test_workers_get_the_keys_by_environment_and_run(tmp_path: Path, run_id: str) -> None:
    config = tmp_path / "village.yaml"
    config.write_text(yaml.safe_dump({
        "run": {"seed": 3, "time_scale": 0.3, "progress_every": 1, "duration": None,
                "embedder": "hashing"},
        "world": {"kind": "none"},
        "llm": {"provider": "heuristic"},
        "agents": [{"name": n, "traits": ["You are curious."]} for n in NAMES],
    }))  # fmt: skip
    creds = Credentials.generate()
    async with (
        RedisServer(tmp_path / "redis", host="0.0.0.0", password=creds.redis_password) as redis,
        MosquittoBroker(
            tmp_path / "mqtt", host="0.0.0.0", password=creds.mqtt_password, user=creds.mqtt_user
        ) as broker,
    ):
        redis_url = redis.url.replace("0.0.0.0", "127.0.0.1")  # no password in it
        mqtt_url = broker.url.replace("0.0.0.0", "127.0.0.1")
        host, port = parse_mqtt_url(mqtt_url)
        bus = MqttBus(host, port, run_id, username=creds.mqtt_user, password=creds.mqtt_password)
        async with bus:
            reports: dict[int, int] = {}
            sub = bus.subscribe(topics.run(run_id, "progress"))

            def drain() -> None:
                while (msg := sub.get_nowait()) is not None:
                    report = cast(Progress, msg.payload)
                    assert report.shard is not None
                    reports[report.shard[0]] = report.agents

            sub.on_put = drain
            spec = WorkerSpec(
                config=config, run_id=run_id, run_dir=tmp_path / "run", count=2,
                redis_url=redis_url, mqtt_url=mqtt_url, world="none", secrets=creds.env(),
            )  # fmt: skip
            client: Redis = Redis.from_url(with_redis_password(redis_url, creds.redis_password))
            try:
                async with WorkerPool(spec) as pool:
                    for pid in pool.pids():  # the keys are not on any worker's command line
                        assert pid is not None
                        cmdline = " ".join(psutil.Process(pid).cmdline())
                        assert creds.redis_password not in cmdline
                        assert creds.mqtt_password not in cmdline

                    async def all_running() -> bool:
                        counts = [
                            await client.hlen(stream_prefix(run_id, n) + "records") for n in NAMES
                        ]
                        return reports == {0: 2, 1: 1} and all(c > 0 for c in counts)

                    await wait_until_async(all_running, 60, "both workers reporting, memories")
            finally:
                await client.aclose()
        assert pool.workers[0].exits == [] and pool.workers[1].exits == []
        for k in (0, 1):
            log = (tmp_path / "run" / "workers" / str(k) / "worker.log").read_text()
            assert creds.redis_password not in log and creds.mqtt_password not in log


async def test_a_coordinator_beyond_loopback_keys_its_services_for_its_workers(
    tmp_path: Path, run_id: str
) -> None:
    from agent_runtime.app.coordinator import coordinate, village_agents
    from agent_runtime.app.village import VillageOptions
    from agent_runtime.config.loader import load_config

    config = tmp_path / "village.yaml"
    config.write_text(yaml.safe_dump({
        "run": {"seed": 4, "time_scale": 0.3, "progress_every": 1, "duration": None,
                "embedder": "hashing"},
        "world": {"kind": "none"},
        "llm": {"provider": "heuristic"},
        "agents": [{"name": n, "traits": ["You are curious."]} for n in NAMES],
    }))  # fmt: skip
    cfg = load_config(str(config))
    opts = VillageOptions(run_dir=tmp_path / "run", run_id=run_id, services_host="0.0.0.0")
    async with coordinate(cfg, opts, workers=2, config=config) as coord:
        village = coord.village
        assert village.world is not None and village.redis_server is not None
        assert await coord.ready(village_agents(cfg, village.world, None), within=60)
        creds = village.options.credentials
        assert creds is not None  # generated for this run
        for service in (village.redis_server, village.broker):
            assert service is not None and service.port is not None
            assert listening_addresses(service.port) == {"0.0.0.0"}
        redis_port = village.redis_server.port
        assert redis_port is not None
        anonymous: Redis = Redis(host="127.0.0.1", port=redis_port)
        try:
            with pytest.raises((AuthenticationError, ResponseError)):
                await anonymous.get("k")
        finally:
            await anonymous.aclose()
        secrets_ = (creds.redis_password, creds.mqtt_password)
    leaked = [
        str(p)
        for p in (tmp_path / "run").rglob("*")
        if p.is_file() and p.name not in ("auth.conf", "passwd", "appendonly.aof")
        and any(s.encode() in p.read_bytes() for s in secrets_)
    ]  # fmt: skip
    assert not leaked, f"a key in {leaked}"
