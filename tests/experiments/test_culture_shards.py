"""Culture over several Minecraft servers, fast: the parts of the area (``--shards K``), the
village file they make, and the experiment options' checks (no services)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
import yaml

from agent_runtime.config.loader import parse_config
from agent_runtime.config.shards import Region
from experiments.common import admin_apis
from experiments.culture.population import Population, Resident, populate, scaled
from experiments.culture.shards import Box, cut, shard_of, shard_settings, split
from experiments.registry import default_config, run
from experiments.spec import ExperimentOptions, load_experiment_file


def _population(scale: float) -> Population:
    data = yaml.safe_load(default_config("culture").read_text())
    return scaled(Population.model_validate(data["protocol"]["population"]), scale)


def _resident(x: float, z: float = 0.0) -> Resident:
    return Resident(f"R{x},{z}", "rural", False, x, z, (), {})


def test_a_cut_splits_the_agents_in_its_share_and_moves_out_of_town_discs() -> None:
    xs = [float(x) for x in range(0, 100, 10)]  # 0, 10, ..., 90
    assert cut(xs, [], 0.5, -5, 95) == 45.0  # between the 5th and the 6th agent
    assert cut(xs, [], 0.3, -5, 95) == 25.0
    # a town centred on the even split: the cut moves to the nearer edge of its disc
    assert cut(xs, [(47.0, 6.0)], 0.5, -5, 95) == 40.0
    # ... but not so far that one side loses more than a quarter of its share
    assert cut(xs, [(45.0, 30.0)], 0.5, -5, 95) == 45.0


def test_split_cuts_across_the_longer_side_until_there_are_k_parts() -> None:
    people = [_resident(x, z) for x in range(0, 100, 10) for z in range(0, 40, 10)]
    parts = split(people, [], 2, Box(-5, 95, -5, 35))  # wider than deep: cut along x
    assert parts == [Box(-5, 45.0, -5, 35), Box(45.0, 95, -5, 35)]
    three = split(people, [], 3, Box(-5, 95, -5, 35))
    assert len(three) == 3 and three[0].x1 == three[1].x0  # 1 part left, 2 parts right
    assert sum(1 for r in people if three[0].holds(r.x, r.z)) in (12, 16)
    assert split(people, [], 1, Box(0, 1, 0, 1)) == [Box(0, 1, 0, 1)]
    with pytest.raises(ValueError):
        split(people, [], 0, Box(0, 1, 0, 1))


@pytest.mark.parametrize("scale,k", [(0.1, 2), (0.1, 3), (0.1, 4), (1.0, 4), (0.012, 2)])
def test_the_parts_tile_the_plane_and_keep_every_town_whole(scale: float, k: int) -> None:
    pop = _population(scale)
    towns, people = populate(pop, seed=23)
    shards = shard_settings(pop, towns, people, k, {"ground_level": 64})
    assert [s["name"] for s in shards] == [f"shard{i}" for i in range(k)]
    regions = [Region.model_validate(s["region"]) for s in shards]
    for i, a in enumerate(regions):
        assert not [b for b in regions[i + 1:] if a.overlaps(b)]
    # the parts tile the area and beyond: every point of a wide grid is in exactly one
    (cx, cz), (w, h) = pop.centre, pop.area
    for fx in (-3, -0.5, -0.2, 0, 0.3, 0.49, 2):
        for fz in (-3, -0.5, -0.1, 0.2, 0.49, 2):
            x, z = cx + fx * w, cz + fz * h
            assert sum(1 for r in regions if r.contains(x, z)) == 1, (x, z)
    for t in towns:  # each town's residents start on one server: the one holding its centre
        assert {shard_of(r.x, r.z, shards) for r in people if r.home == t.name} == {
            shard_of(t.x, t.z, shards)}, t.name
    spawned = [sum(1 for r in people if shard_of(r.x, r.z, shards) == s["name"])
               for s in shards]
    even = pop.agents / k
    assert all(abs(n - even) <= max(2, 0.4 * even) for n in spawned), spawned
    for s, n, region in zip(shards, spawned, regions, strict=True):
        assert s["max_bots"] >= math.ceil(1.5 * n)  # room for visitors
        lay = s["layout"]  # each server's generated village in its part, as configured
        assert region.contains(lay["centre_x"], lay["centre_z"]) and lay["ground_level"] == 64


def test_the_parts_make_a_valid_village_file() -> None:
    # as the runner gets it: the experiment's topic files named by absolute paths
    data = load_experiment_file(default_config("culture")).model_dump()
    pop = _population(0.1)
    towns, people = populate(pop, seed=5)
    village: dict[str, Any] = data["village"]
    village["world"]["shards"] = shard_settings(pop, towns, people, 2)
    village["agents"] = [{"name": r.name} for r in people]
    village.pop("agent_templates")
    cfg = parse_config(village, "culture (2 shards)")
    assert [s.name for s in cfg.world.shards] == ["shard0", "shard1"]


def test_admin_apis_name_every_server_of_the_world() -> None:
    class World:
        def __init__(self, url: str | None, router: Any = None) -> None:
            self.admin_url, self.router = url, router

    class Shard:
        def __init__(self, name: str, url: str | None) -> None:
            self.name, self.world = name, World(url)

    class Router:
        shards = [Shard("shard0", "http://a"), Shard("shard1", "http://b")]

    assert admin_apis(World("http://only")) == [("", "http://only")]
    assert admin_apis(World(None)) == []
    assert admin_apis(World("http://a", Router())) == [("shard0", "http://a"),
                                                        ("shard1", "http://b")]


async def test_workers_refuse_objects_they_cannot_receive(tmp_path: Path) -> None:
    """A model or encoder object lives in this process; workers name theirs in the file."""
    opts = ExperimentOptions(out=tmp_path, world="none", scale=0.012, time_scale=0.05,
                             workers=2, embedder=object())
    with pytest.raises(ValueError, match="cannot be handed to worker processes"):
        await run("culture", None, opts)
