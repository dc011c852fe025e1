"""``world.shards``: validation with field paths, defaults, routing of points and agents."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent_runtime.app.shards import (
    Shard,
    ShardRouter,
    attach_shards,
    shard_addresses,
    shard_spot,
)
from agent_runtime.app.world_setup import WorldError, WorldHandle
from agent_runtime.config.errors import ConfigError
from agent_runtime.config.loader import load_config, parse_config, resolve_agents
from agent_runtime.config.shards import Region
from agent_runtime.run.events import EventLog


def shard(name: str, x_min: float, x_max: float, **more: Any) -> dict[str, Any]:
    return {
        "name": name,
        "region": {"x_min": x_min, "x_max": x_max, "z_min": -50, "z_max": 50},
        **more,
    }


def village(shards: list[dict[str, Any]], kind: str = "embedded", **more: Any) -> dict[str, Any]:
    return {"world": {"kind": kind, "shards": shards}, "agents": [{"name": "Ann"}], **more}


def problems(data: dict[str, Any]) -> list[tuple[str, str]]:
    with pytest.raises(ConfigError) as info:
        parse_config(data, "v.yaml")
    return [(p.path, p.message) for p in info.value.problems]


def test_a_single_world_file_is_unchanged() -> None:
    cfg = parse_config({"world": {"kind": "embedded", "port": 0}, "agents": [{"name": "Ann"}]})
    assert cfg.world.shards == () and cfg.world.kind == "embedded"


def test_two_shards_take_the_world_defaults() -> None:
    cfg = parse_config(village([shard("west", -100, 0), shard("east", 0, 100, port=25570)]))
    west, east = cfg.world.shards
    spot = shard_spot(cfg.world, west)
    assert (spot.kind, spot.host, spot.port, spot.shard) == ("embedded", "127.0.0.1", 0, "west")
    assert (spot.layout.centre_x, spot.layout.centre_z) == (-50, 0)  # the middle of its region
    assert shard_spot(cfg.world, east).port == 25570


def test_an_external_shard_spot_carries_its_admin_url_and_hides_its_token() -> None:
    url = "http://piano:s3cret@127.0.0.1:9"
    east = shard("east", 0, 100, kind="external", port=25570, admin_url=url)
    cfg = parse_config(village([shard("west", -100, 0), east]))
    west_spot, east_spot = (shard_spot(cfg.world, s) for s in cfg.world.shards)
    assert (west_spot.admin_url, east_spot.admin_url) == (None, url)
    assert "s3cret" not in repr(east_spot)


@pytest.mark.parametrize(
    ("shards", "kind", "path", "needle"),
    [
        ([shard("west", -100, 10), shard("east", 0, 100)], "embedded", "world.shards", "overlap"),
        ([shard("west", 0, 0)], "embedded", "world.shards[0].region", "x_min"),
        ([shard("a", -1, 0), shard("a", 0, 1)], "embedded", "world.shards", "unique"),
        ([shard("West", 0, 10)], "embedded", "world.shards[0].name", "must match"),
        ([shard("west", 0, 10)], "none", "world.shards", "none"),
        ([shard("west", 0, 10)], "external", "world.shards", "port"),
        ([shard("west", 0, 10, max_bots=0)], "embedded", "world.shards[0].max_bots", "1"),
        ([shard("west", 0, 10, colour=1)], "embedded", "world.shards[0].colour", "unknown"),
        (
            [shard("west", 0, 10, layout={"centre_x": 50})],
            "embedded",
            "world.shards",
            "layout centre",
        ),
    ],
)
def test_bad_shards_name_the_field(
    shards: list[dict[str, Any]], kind: str, path: str, needle: str
) -> None:
    found = problems(village(shards, kind))
    assert any(p == path and needle in m for p, m in found), found


def test_more_agents_than_the_budget_is_refused() -> None:
    data = village([shard("west", -100, 0, max_bots=1), shard("east", 0, 100, max_bots=1)])
    data["agent_templates"] = [{"count": 2}]
    assert any("bot budget" in m for _, m in problems(data))


def test_the_cli_loader_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "v.yaml"
    path.write_text(
        "world:\n  kind: embedded\n  shards:\n    - {name: west, region: {x_min: 5, x_max: 1, "
        "z_min: 0, z_max: 9}}\nagents: [{name: Ann}]\n"
    )
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert str(path) in str(info.value) and "world.shards[0].region" in str(info.value)


def test_regions_contain_clamp_and_measure() -> None:
    r = Region(x_min=0, x_max=10, z_min=0, z_max=10)
    assert r.contains(0, 0) and not r.contains(10, 5)  # the upper edge is the next region's
    assert r.clamp(30, 5, margin=1.5) == (8.5, 5)
    assert r.distance(13, 14) == 5.0 and r.distance(5, 5) == 0.0


def test_the_router_routes_points_and_agents_within_budgets(tmp_path: Path) -> None:
    data = village(
        [shard("west", -100, 0, max_bots=2), shard("east", 0, 100, max_bots=2)],
        agent_templates=[{"count": 3}],
    )
    data["agents"] = [{"name": "Ann", "spawn_location": {"x": 50, "y": 70, "z": 0}}]
    cfg = parse_config(data)
    shards = [Shard(s, WorldHandle(kind="embedded")) for s in cfg.world.shards]
    router = ShardRouter(shards, EventLog(tmp_path / "events.jsonl"))
    west, east = shards
    assert router.holding(-5, 0) is west and router.holding(5, 0) is east
    assert router.holding(500, 0) is east and router.holding(-500, 80) is west  # nearest
    placed = []
    for agent in resolve_agents(cfg):
        home = router.first_shard(agent)
        home.bots.add(agent.name)
        placed.append(home.name)
    assert placed[0] == "east"  # Ann's spawn location is in the east
    assert sorted(placed) == ["east", "east", "west", "west"]
    extra = resolve_agents(cfg)[0].model_copy(update={"name": "Zed"})
    with pytest.raises(WorldError, match="full"):
        router.first_shard(extra)


def test_workers_reach_the_coordinators_shards(tmp_path: Path) -> None:
    cfg = parse_config(village([shard("west", -100, 0), shard("east", 0, 100, max_bots=7)]))
    worlds = {
        "west": WorldHandle(kind="embedded", port=4001, admin_url="http://piano:a@127.0.0.1:1"),
        "east": WorldHandle(kind="embedded", port=4002, admin_url="http://piano:b@127.0.0.1:2"),
    }
    handle = WorldHandle(kind="embedded")
    shards = [Shard(s, worlds[s.name]) for s in cfg.world.shards]
    handle.router = ShardRouter(shards, EventLog(tmp_path / "events.jsonl"))
    text = shard_addresses(handle)
    assert text is not None and shard_addresses(WorldHandle(kind="embedded")) is None
    worker = attach_shards(cfg, text, "v.yaml")
    west, east = worker.world.shards
    assert (west.kind, west.port, west.admin_url) == ("external", 4001, worlds["west"].admin_url)
    assert (east.port, east.max_bots, east.region) == (4002, 7, cfg.world.shards[1].region)
    with pytest.raises(ConfigError, match="east"):
        attach_shards(cfg, text.replace('"east"', '"north"'), "v.yaml")


def test_a_worker_takes_the_shards_from_its_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import argparse

    from agent_runtime.app.cli.cmd_worker import worker_config
    from agent_runtime.app.shards import SHARDS_ENV

    path = tmp_path / "v.yaml"
    path.write_text(
        "world:\n  kind: embedded\n  shards:\n"
        "    - {name: west, region: {x_min: -9, x_max: 0, z_min: 0, z_max: 9}}\n"
        "    - {name: east, region: {x_min: 0, x_max: 9, z_min: 0, z_max: 9}}\n"
        "agents: [{name: Ann}]\n"
    )
    running = [
        {"name": "west", "host": "127.0.0.1", "port": 4001, "admin_url": None},
        {"name": "east", "host": "127.0.0.1", "port": 4002, "admin_url": None},
    ]
    monkeypatch.setenv(SHARDS_ENV, json.dumps(running))
    args = argparse.Namespace(
        config=str(path),
        llm=None,
        world="127.0.0.1:4001",  # what the coordinator passes: the first shard
        agents=None,
        redis="redis://127.0.0.1:1/0",
        mqtt="mqtt://127.0.0.1:2",
        duration=None,
    )
    cfg = worker_config(args)
    assert cfg.world.kind == "external"
    assert [(s.kind, s.port) for s in cfg.world.shards] == [("external", 4001), ("external", 4002)]
