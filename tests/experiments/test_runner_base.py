"""The shared runner scaffold: the brain per module in the report, and ``verify``."""

from __future__ import annotations

import json
from pathlib import Path

from agent_runtime.config.loader import parse_config
from experiments.runner_base import models_of, protocol_section, verify
from experiments.spec import load_experiment_file
from experiments.specialization.runner import SpecializationProtocol


def test_the_report_names_the_model_of_every_module() -> None:
    base = {"world": {"kind": "none"}, "agents": [{"name": "Ann"}]}
    assert models_of(parse_config(base, "t")) == {}  # heuristic brain: no model
    llm = {"provider": "openai", "model": "gpt-4o", "modules": {"talking": "gpt-4o-mini"}}
    models = models_of(parse_config({**base, "llm": llm}, "t"))
    assert models == {"default": "gpt-4o", "talking": "gpt-4o-mini"}
    text = protocol_section(SpecializationProtocol(), [
        {"condition": "normal", "repeat": 0, "agents": 30, "seed": 11, "brain": "openai:gpt-4o",
         "models": models, "brains_seen": {"llm:gpt-4o": 12}, "time_scale": 1.0}])
    assert "| normal-r0 | 30 | 11 | openai:gpt-4o | default: gpt-4o, talking: gpt-4o-mini |" in text
    assert "| role_window | 5 |" in text


def test_verify_names_every_difference(tmp_path: Path) -> None:
    table = "| a | b |\n|---|---|\n| x | 1.00 |"
    (tmp_path / "metrics.json").write_text(json.dumps({"figures": {"x": {"v": 1.0}}}))
    (tmp_path / "report.md").write_text("# r\n\n" + table + "\n")
    assert verify(tmp_path, {"x": {"v": 1.0 + 1e-12}}, table) == []
    problems = verify(tmp_path, {"x": {"v": 2.0}, "y": 3}, table.replace("1.00", "2.00"))
    assert len(problems) == 3  # x differs, y is missing, the table is not the report's
    assert problems[0].startswith("figure x") and problems[1].startswith("figure y")


def test_an_llm_report_is_not_a_pipeline_check_and_a_heuristic_one_is() -> None:
    """The header names the brain; only a heuristic-brain report is titled a pipeline check,
    and only it lists the paper's figures apart (an LLM report has them in its tables)."""
    from experiments.registry import default_config
    from experiments.report import paper_column, paper_section, report_header
    from experiments.spec import ExperimentOptions

    exp = load_experiment_file(default_config("item_progression"))
    opts = ExperimentOptions(out=Path("unused"), repeats=5)
    llm = report_header("Items", exp, opts, {"llm:gpt-4o": 40}, "openai:gpt-4o")
    assert llm.splitlines()[0] == "# Items" and "pipeline check" not in llm
    assert "configured `openai:gpt-4o`" in llm and "llm:gpt-4o (40)" in llm
    assert "repeats: 5" in llm
    assert paper_section(exp, "openai:gpt-4o") == ""
    assert paper_column(exp, "openai:gpt-4o", "full") == [str(exp.paper["full"])]
    heur = report_header("Items", exp, opts, {"heuristic": 40}, "heuristic")
    assert heur.splitlines()[0] == "# Items - pipeline check (heuristic brain)"
    assert paper_column(exp, "heuristic", "full") == []
    assert str(exp.paper["full"]) in paper_section(exp, "heuristic")
