"""Packets whose shape changed after 1.21.4 (the last version flying-squid 1.12.0 knows), as a
client at 1.21.11 and 26.1 reads them once ``bots/server/plugins/newer_versions.js`` has
adapted flying-squid's writes: each write goes through minecraft-protocol's serializer and
back through the client's deserializer (no server: ``js/newer_packets_check.js``).

Without the plugin the spawn position (1.21.9's RespawnData) and 26.1's time of day threw in
the serializer (the packet lost, the client never told), a velocity reached a vanilla client
8000 times too fast (lpVec3 is blocks per tick, flying-squid writes 1/8000 blocks), the
heightmaps were an empty list, and 26.1's attack packet reached no handler."""

from __future__ import annotations

from typing import Any

import pytest

from tests.server.conftest import run_js

NEWER = ("1.21.11", "26.1")


@pytest.fixture(scope="module", params=NEWER)
def read(request: pytest.FixtureRequest) -> dict[str, Any]:
    out: dict[str, Any] = run_js("newer_packets_check.js", request.param)
    out["version"] = request.param
    return out


def test_without_the_plugin_the_client_misses_or_misreads_them(read: dict[str, Any]) -> None:
    """The check can see the difference: flying-squid's shapes fail or mislead."""
    got = read["without_plugin"]["packets"]
    assert "dimensionName" in got["spawn_position"]["error"]
    assert got["entity_velocity"]["params"]["velocity"]["y"] == pytest.approx(1600, rel=1e-3)
    assert got["map_chunk"]["params"]["heightmaps"] == []
    assert read["without_plugin"]["use_entity"] == []


def test_the_spawn_position_and_velocities_arrive_as_a_vanilla_client_reads_them(
    read: dict[str, Any],
) -> None:
    got = read["with_plugin"]["packets"]
    spawn = got["spawn_position"]["params"]["globalPos"]
    assert spawn["dimensionName"] == "minecraft:overworld"
    assert spawn["location"] == {"x": 1, "y": 64, "z": 2}
    # flying-squid's (800, 1600, -400) in 1/8000 block per tick is (0.1, 0.2, -0.05) blocks
    v = got["entity_velocity"]["params"]["velocity"]
    assert (v["x"], v["y"], v["z"]) == pytest.approx((0.1, 0.2, -0.05), abs=1e-3)
    heightmaps = got["map_chunk"]["params"]["heightmaps"]
    assert [h["type"] for h in heightmaps] == ["motion_blocking"]
    assert len(heightmaps[0]["data"]) == 37  # 256 columns of 9 bits, 7 to a long


def test_the_time_of_day_and_attacks_at_26_1(read: dict[str, Any]) -> None:
    got = read["with_plugin"]["packets"]["update_time"]
    if read["version"] != "26.1":
        assert got["params"]["time"] == [0, 6000]
        assert read["with_plugin"]["use_entity"] == []  # attacks are use_entity's mouse 1 there
        return
    assert "error" in read["without_plugin"]["packets"]["update_time"]
    (clock,) = got["params"]["clockUpdates"]
    assert clock == {"id": 0, "totalTicks": 6000, "partialTick": 0, "rate": 1}
    assert read["with_plugin"]["use_entity"] == [{"target": 42, "mouse": 1, "sneaking": False}]


def test_a_body_reads_a_velocity_in_blocks_per_tick(read: dict[str, Any]) -> None:
    """mineflayer 4.39 divides every velocity by 8000; our body's version_compat.js hands it
    1.21.9+'s blocks per tick in the old units, so it reads what was sent."""
    v = read["body_velocity"]
    assert (v["x"], v["y"], v["z"]) == pytest.approx((0.1, 0.2, -0.05))
