"""Figures the docs read from the code (``settings``, ``experiment-defaults``): they show what
the code says, and a page disagrees as soon as the code changes."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_runtime.app.cli import docs_code
from agent_runtime.app.cli.cmd_docs import RENDERERS, ROOT
from agent_runtime.app.doc_figures import render_docs
from agent_runtime.config import models
from experiments.registry import default_config
from experiments.spec import load_experiment_file
from experiments.validation import validate_experiment_file

MODELS = ROOT / "agent_runtime/config/models.py"


def test_a_setting_shows_its_default_and_a_constant_its_value() -> None:
    opts = {"model": "WorldSettings", "section": "world", "fields": "hearing_radius,host"}
    table = docs_code.render_settings(MODELS, opts)
    assert f"| `world.hearing_radius` | `{models.HEARING_RADIUS:g}` |" in table
    assert "| `world.host` | `127.0.0.1` |" in table
    versions = docs_code.render_settings(MODELS, {"constants": "SUPPORTED_VERSIONS"})
    assert ", ".join(f"`{v}`" for v in models.SUPPORTED_VERSIONS) in versions
    with pytest.raises(KeyError, match="no field 'hearing'"):
        docs_code.render_settings(MODELS, {"model": "WorldSettings", "fields": "hearing"})


def test_the_docs_disagree_when_a_default_in_the_code_changes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def join_md() -> list[str]:
        _, problems = render_docs(ROOT / "docs", RENDERERS, write=False)
        return [p.reason for p in problems if p.doc.name == "join.md"]

    assert join_md() == []
    monkeypatch.setattr(models, "SUPPORTED_VERSIONS", ("1.21.4", "1.99.9"))
    problems = join_md()
    assert len(problems) == 1 and "1.99.9" in problems[0]


def test_an_experiments_defaults_follow_its_file() -> None:
    tax = validate_experiment_file(default_config("tax"))
    exp = load_experiment_file(default_config("tax"))
    p = exp.protocol
    assert set(tax.agents.values()) == {p["constituents"] + p["influencers"]}
    assert tuple(tax.agents) == tuple(c.name for c in exp.conditions)
    assert tax.wall_s == len(exp.conditions) * exp.repeats * p["duration_s"]
    row = next(r for r in docs_code.render_experiment_defaults(
        ROOT / "experiments/registry.py", {}).splitlines() if r.startswith("| `tax`"))  # fmt: skip
    assert row.startswith(f"| `tax` | {p['constituents'] + p['influencers']} | 6: full-pro,")
    one, every = docs_code._duration(p["duration_s"]), docs_code._duration(tax.wall_s)
    assert row.endswith(f"| {exp.repeats} | {tax.runs} | {one} | {every} |")


def test_an_edited_file_changes_the_defaults(tmp_path: Path) -> None:
    text = default_config("chef").read_text()
    assert "repeats: 2\n" in text and "duration_s: 600 " in text
    edited = tmp_path / "config.yaml"
    edited.write_text(text.replace("repeats: 2\n", "repeats: 5\n").replace(
        "duration_s: 600 ", "duration_s: 60 "))  # fmt: skip
    chef = validate_experiment_file(edited)
    assert (chef.repeats, chef.run_s, chef.runs) == (5, 60.0, 5 * len(chef.agents))
