"""The shipped experiment files follow the paper's protocols; the CLI runs and rejects bad input."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from agent_runtime.app.cli.main import main
from agent_runtime.config.errors import ConfigError
from agent_runtime.config.loader import load_config, resolve_agents
from experiments.chef.runner import ChefProtocol
from experiments.culture.runner import CultureProtocol
from experiments.item_progression.runner import ItemProtocol, spawn_ring
from experiments.registry import EXPERIMENTS, default_config
from experiments.runner_base import read_runs
from experiments.social_perception.runner import PerceptionProtocol
from experiments.spec import ExperimentOptions, load_experiment_file, parse_protocol, plan_runs
from experiments.specialization.runner import SpecializationProtocol
from experiments.tax.runner import TaxProtocol, make_config, members_of

ROOT = Path(__file__).resolve().parents[2]


def test_every_experiment_file_validates() -> None:
    models = {"specialization": SpecializationProtocol, "tax": TaxProtocol,
              "item_progression": ItemProtocol, "social_perception": PerceptionProtocol,
              "culture": CultureProtocol, "chef": ChefProtocol}
    for name in EXPERIMENTS:
        exp = load_experiment_file(default_config(name))
        assert exp.experiment == name and exp.paper
        parse_protocol(exp, models[name], name)


def test_protocols_follow_the_paper() -> None:
    spec = load_experiment_file(default_config("specialization"))
    p = parse_protocol(spec, SpecializationProtocol, "s")
    assert p.duration_s == 1200 and p.role_window == 5
    assert [c.name for c in spec.conditions] == [
        "normal", "martial", "art", "no_social", "martial-no_social", "art-no_social"]
    assert spec.village["agent_templates"][0]["count"] == 30 and spec.repeats == 3
    goals = {c.name: c.community_goal for c in spec.conditions}
    for goal in ("normal", "martial", "art"):  # each ablation differs only by its modules
        ablated = "no_social" if goal == "normal" else f"{goal}-no_social"
        assert goals[ablated] == goals[goal]
    tax = load_experiment_file(default_config("tax"))
    t = parse_protocol(tax, TaxProtocol, "t")
    assert (t.duration_s, t.initial_tax_rate, t.season_period_s, t.season_window_s) == (
        1200, 0.2, 120, 20)
    assert (t.feedback_at_s, t.amendments_at_s, t.votes_at_s, t.tally_by_s,
            t.distribute_at_s) == (300, 360, 420, 480, 600)
    opens = [t.first_season_at_s + k * t.season_period_s for k in range(t.seasons)]
    assert sum(o < t.distribute_at_s for o in opens) == 5 and len(opens) == 10
    assert opens[-1] + t.season_window_s <= t.duration_s
    assert (t.constituents, t.influencers) == (25, 3) and tax.repeats == 4
    assert len(tax.conditions) == 6
    items = parse_protocol(load_experiment_file(default_config("item_progression")),
                           ItemProtocol, "i")
    items_exp = load_experiment_file(default_config("item_progression"))
    assert (items.agents, items.duration_s, items_exp.repeats) == (25, 1800, 5)
    assert items.spread_spawns and items.spawn_spacing >= 100  # far apart: no interaction
    social = load_experiment_file(default_config("social_perception"))
    (a, b) = social.village["agent_templates"][0]["spawn_area"]
    assert abs(a["x"] - b["x"]) >= 100 and abs(a["z"] - b["z"]) >= 100  # spread over a map


def test_tax_roster_and_village() -> None:
    exp = load_experiment_file(default_config("tax"))
    p = parse_protocol(exp, TaxProtocol, "t")
    members = members_of(p, "anti", seed=3, voters=None)
    assert len(members) == 28 and [m.role for m in members[:3]] == ["influencer"] * 3
    assert members[0].traits == p.influencer_traits["anti"]
    assert len({m.occupation for m in members[3:]}) == len(p.occupations)
    opts = ExperimentOptions(out=Path("unused"), world="none", conditions=("full-pro",),
                             repeats=1)
    rosters: dict[tuple[str, int], list[Any]] = {}
    runs = list(plan_runs(exp, opts, Path("/tmp/unused"), make_config(p, opts, rosters)))
    cfg = runs[0].config
    assert len(cfg.agents) == 28 and cfg.world.kind == "none"
    assert rosters[("full-pro", runs[0].seed)][0].role == "influencer"
    # an agent's config is its own: name, traits, inventory, where the chests are; no role
    assert all(a.role is None for a in cfg.agents) and cfg.agents[3].inventory
    assert all(a.location_memories == (
        "The village's community chests are in the town hall at (-5, 65, -21), (-3, 65, -21), "
        "(-1, 65, -21) and (1, 65, -21).",) for a in cfg.agents)
    small = members_of(p, "pro", seed=3, voters=5)
    assert [m.role for m in small].count("influencer") == 1 and len(small) == 5


def test_spawn_ring_spacing() -> None:
    pts = spawn_ring(25, 200.0, 0.0, 0.0, 80.0)
    d = ((pts[0]["x"] - pts[1]["x"]) ** 2 + (pts[0]["z"] - pts[1]["z"]) ** 2) ** 0.5
    assert len(pts) == 25 and d == pytest.approx(200.0, abs=0.5)


def test_village_50_config() -> None:
    cfg = load_config(ROOT / "configs" / "village_50.yaml")
    agents = resolve_agents(cfg)
    assert len(agents) == 50 and len({a.name for a in agents}) == 50
    assert len({a.traits for a in agents}) == 50  # distinct personalities
    assert cfg.world.kind == "embedded" and cfg.include_place_memories and cfg.community_goal


def test_bad_experiment_files(tmp_path: Path, small_config: Callable[..., Path]) -> None:
    bad = small_config("tax", {"season_window_s": -1})
    exp = load_experiment_file(bad)
    with pytest.raises(ConfigError) as err:
        parse_protocol(exp, TaxProtocol, bad)
    assert "protocol.season_window_s" in err.value.render()
    unknown = small_config("specialization", {"no_such_knob": 1})
    with pytest.raises(ConfigError):
        parse_protocol(load_experiment_file(unknown), SpecializationProtocol, unknown)


def test_cli_rejects_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["experiment", "tax", "--time-scale", "0", "--out", str(tmp_path)]) == 2
    missing = str(tmp_path / "missing.yaml")
    assert main(["experiment", "tax", missing, "--out", str(tmp_path)]) == 2
    assert "file not found" in capsys.readouterr().err
    wrong = str(default_config("specialization"))
    assert main(["experiment", "tax", wrong, "--out", str(tmp_path)]) == 2
    assert main(["experiment", "tax", "--conditions", "nope", "--world", "none",
                 "--out", str(tmp_path)]) == 2


@pytest.mark.services
def test_cli_runs_an_experiment(
    tmp_path: Path, small_config: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    cfg = small_config("specialization", {"duration_s": 120, "role_every_s": 30})
    code = main(["experiment", "specialization", str(cfg), "--world", "none", "--agents", "2",
                 "--time-scale", "0.02", "--conditions", "normal", "--out", str(tmp_path),
                 "--quiet"])
    assert code == 0
    out = capsys.readouterr().out
    (folder,) = [p for p in tmp_path.iterdir() if p.name.startswith("specialization-")]
    assert f"results in {folder}" in out, out
    # the runs asked for: the file's repeats of condition normal, each with 2 agents at time
    # scale 0.02 and its own seed, each of which decided
    repeats = int(yaml.safe_load(cfg.read_text())["repeats"])
    metrics = json.loads((folder / "metrics.json").read_text())
    assert (metrics["experiment"], metrics["runs"], metrics["time_scale"]) == (
        "specialization", repeats, 0.02)
    runs = read_runs(folder)
    assert [r["repeat"] for r in runs] == list(range(repeats)), runs
    assert len({r["seed"] for r in runs}) == repeats, runs
    for one in runs:
        assert (one["condition"], one["agents"], one["time_scale"]) == ("normal", 2, 0.02), one
        assert sum(one["brains_seen"].values()) > 0, one  # decisions were made, and by whom
    assert "normal" in (folder / "report.md").read_text()


def _protocol_table(name: str) -> dict[str, tuple[str, str]]:
    """The rows of ``experiments/<name>/README.md``'s "Paper protocol vs ours" table."""
    text = (ROOT / "experiments" / name / "README.md").read_text()
    assert "## Paper protocol vs ours" in text, name
    section = text.split("## Paper protocol vs ours", 1)[1].strip().splitlines()
    assert section[0] == "| | paper | ours |" and section[1] == "|---|---|---|", name
    rows: dict[str, tuple[str, str]] = {}
    for line in section[2:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        assert len(cells) == 3 and all(cells), (name, line)  # every row: paper and ours
        assert cells[0] not in rows, (name, cells[0])
        rows[cells[0]] = (cells[1], cells[2])
    return rows


def test_every_readme_compares_the_papers_protocol_with_the_shipped_file() -> None:
    """Each experiment's README has the table, with the rows every report states (the
    population, duration, repeats, brain), and its numbers are the shipped file's."""
    for name in EXPERIMENTS:
        rows = _protocol_table(name)
        assert {"duration", "repeats", "brain"} <= set(rows), (name, sorted(rows))
        assert {"agents", "population"} & set(rows), name
        exp = load_experiment_file(default_config(name))
        ours_repeats = rows["repeats"][1]
        assert ours_repeats.startswith(f"{exp.repeats} (`repeats`"), (name, ours_repeats)
        duration = float(exp.protocol["duration_s"])
        assert f"{duration:g} s" in rows["duration"][1], (name, rows["duration"])
        # a heuristic brain's figures are never in a table with the paper's
        assert "pipeline check" in rows["brain"][1], name
