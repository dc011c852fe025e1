"""Players on other machines: which hosts reach beyond this machine, what the run says at
start about them (each shard's address), and the run's body key file (mode 0600)."""

from __future__ import annotations

import stat
from pathlib import Path
from types import SimpleNamespace

from agent_runtime.app.exposure import beyond_loopback, exposure_lines, join_addresses
from bots.body_key import ensure_key_file


def test_only_loopback_hosts_stay_on_this_machine() -> None:
    assert not beyond_loopback("127.0.0.1")
    assert not beyond_loopback("localhost")
    assert not beyond_loopback("::1")
    assert beyond_loopback("0.0.0.0")
    assert beyond_loopback("192.168.1.20")


def test_a_wildcard_host_is_joined_at_this_machines_addresses() -> None:
    assert join_addresses("192.168.1.20", 25565) == ["192.168.1.20:25565"]
    every = join_addresses("0.0.0.0", 25565)
    assert every and all(a.endswith(":25565") and not a.startswith("127.") for a in every)


def _world(
    host: str, port: int, shards: list[tuple[str, str, int]] | None = None
) -> SimpleNamespace:
    router = None
    if shards is not None:
        router = SimpleNamespace(
            shards=[
                SimpleNamespace(name=n, world=SimpleNamespace(host=h, port=p)) for n, h, p in shards
            ]
        )
    return SimpleNamespace(kind="embedded", host=host, port=port, router=router)


def test_the_run_says_where_other_computers_join_and_says_nothing_on_loopback() -> None:
    assert exposure_lines(_world("127.0.0.1", 25565)) == []
    lines = exposure_lines(_world("192.168.1.20", 25565))
    assert "192.168.1.20:25565" in lines[0] and "offline mode" in lines[0]
    assert "agent's name" in lines[-1] and "loopback" in lines[-1]
    sharded = _world(
        "127.0.0.1", 0, [("west", "192.168.1.20", 25570), ("east", "127.0.0.1", 25571)]
    )
    lines = exposure_lines(sharded)
    assert any("shard west" in line and "192.168.1.20:25570" in line for line in lines)
    assert not any("shard east" in line for line in lines)  # loopback: not announced


def test_the_body_key_is_made_once_with_mode_0600(tmp_path: Path) -> None:
    key = ensure_key_file(tmp_path / "run" / "body.key")
    first = key.read_text()
    assert len(first) >= 32
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    key.chmod(0o644)
    assert ensure_key_file(key).read_text() == first  # kept: every server of the run shares it
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
