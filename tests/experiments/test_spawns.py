"""Spawns as each protocol says (issue 12): item-progression explorers far apart, in other
places each repeat; social-perception agents over a random map, not within a few blocks."""

from __future__ import annotations

import itertools
import math
import random
from pathlib import Path

from agent_runtime.config.loader import parse_config, resolve_agents
from agent_runtime.config.models import VillageConfig
from experiments.item_progression.runner import ItemProtocol, make_config
from experiments.registry import default_config
from experiments.spec import ExperimentOptions, load_experiment_file, parse_protocol, plan_runs


def _spawns(cfg: VillageConfig) -> list[tuple[float, float]]:
    return [(a.spawn_location.x, a.spawn_location.z) for a in cfg.agents if a.spawn_location]


def test_item_progression_spawns_far_apart_and_elsewhere_each_repeat(tmp_path: Path) -> None:
    exp = load_experiment_file(default_config("item_progression"))
    p = parse_protocol(exp, ItemProtocol, "i")
    opts = ExperimentOptions(out=tmp_path, repeats=2, conditions=("full",))
    runs = list(plan_runs(exp, opts, tmp_path, make_config(p, opts)))
    first, second = (_spawns(r.config) for r in runs)
    assert len(first) == 25
    gaps = [math.dist(a, b) for a, b in itertools.combinations(first, 2)]
    assert min(gaps) >= p.spawn_spacing - 1  # nobody within reach of anybody
    # the next repeat's ring is turned (and its map is another: the world seed is the run's)
    assert runs[0].config.world.seed != runs[1].config.world.seed or (
        runs[0].config.run.seed != runs[1].config.run.seed)
    assert min(math.dist(a, b) for a, b in zip(first, second, strict=True)) > 20


def test_social_perception_spreads_agents_over_the_map() -> None:
    exp = load_experiment_file(default_config("social_perception"))
    cfg = parse_config(exp.village, "social_perception")
    agents = resolve_agents(cfg, rng=random.Random(1))
    pts = [(a.spawn_location.x, a.spawn_location.z) for a in agents if a.spawn_location]
    assert len(pts) == 50
    xs, zs = [x for x, _ in pts], [z for _, z in pts]
    assert max(xs) - min(xs) > 120 and max(zs) - min(zs) > 120
    hearing = cfg.world.hearing_radius or math.inf
    near = [sum(math.dist(a, b) <= hearing for b in pts if b is not a) for a in pts]
    assert sum(near) / len(near) < 10  # each hears a few others at the start, not all 49
