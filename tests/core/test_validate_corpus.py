"""``piano validate`` on every YAML the repository ships (all pass) and on a corpus of broken
files (``broken_configs/``, one small file a case): each gets every one of its problems at
once, located (``PATH: message``, the lines its ``# expect: PATH :: WORDS`` comments name),
in plain words, exit status 2."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from agent_runtime.app.cli.main import main
from experiments.registry import default_config
from experiments.validation import validate_experiment_file

ROOT = Path(__file__).resolve().parents[2]
CORPUS = Path(__file__).parent / "broken_configs"
_EXPECT = re.compile(r"^# expect: (?P<path>.+?) :: (?P<words>.+)$", re.MULTILINE)


def shipped_yaml() -> list[str]:
    """Every YAML file under version control but the broken corpus."""
    out = subprocess.run(
        ["git", "ls-files", "*.yaml", "*.yml"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    return [f for f in out if not f.startswith("tests/core/broken_configs/")]


def test_the_repository_ships_each_kind_of_yaml() -> None:
    files = shipped_yaml()
    assert "configs/kuberay/raycluster.yaml" in files  # a manifest of two documents
    assert any("/topics/" in f for f in files) and any("/results/" in f for f in files)


@pytest.mark.parametrize("rel", shipped_yaml())
def test_every_shipped_yaml_validates(rel: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(ROOT / rel)]) == 0, capsys.readouterr().err
    assert ": OK — " in capsys.readouterr().out


def _cases() -> list[Path]:
    return sorted(CORPUS.glob("*.yaml"))


@pytest.mark.parametrize("case", _cases(), ids=lambda p: p.stem)
def test_a_broken_file_gets_every_problem_located_and_plain(
    case: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    expected = [(m["path"], m["words"]) for m in _EXPECT.finditer(case.read_text("utf-8"))]
    assert expected, f"{case.name} has no '# expect: PATH :: WORDS' line"
    assert main(["validate", str(case)]) == 2
    err = capsys.readouterr().err
    lines = err.splitlines()
    assert lines[0].startswith(f"{case}: invalid "), err  # the file, first
    for path, words in expected:  # each problem on its own line: its field path, then words
        assert any(line.startswith(f"  {path}: ") and words in line for line in lines[1:]), (
            f"want '  {path}: ...{words}...' in:\n{err}"
        )
    assert len(lines) - 1 == len(expected), err  # all of them, and nothing else
    for raw in ("Input should", "Value error", "Extra inputs", "Traceback", "[type="):
        assert raw not in err, err  # said plainly, not in pydantic's words


def test_the_corpus_covers_what_a_newcomer_gets_wrong() -> None:
    names = {p.stem for p in _cases()}
    assert {
        "unknown_field", "base_url_not_a_url", "model_empty", "priorities_typo",
        "llm_modules_typo", "module_options_all_at_once", "missing_topic_file", "yaml_syntax",
        "experiment_protocol", "experiment_condition", "topic_file", "manifest",
    } <= names  # fmt: skip


def test_an_experiment_answers_its_agents_conditions_and_wall_time() -> None:
    s = validate_experiment_file(default_config("tax"))
    assert s.experiment == "tax" and s.repeats == 4
    assert list(s.agents) == ["full-pro", "full-anti", "frozen-pro", "frozen-anti",
                              "baseline-pro", "baseline-anti"]  # fmt: skip
    assert set(s.agents.values()) == {28}  # the runner's roster, not the placeholder agent
    assert s.run_s == 1200 and s.runs == 24 and s.wall_s == 24 * 1200
    said = str(s)
    assert "28 agents" in said and "6 conditions" in said and "8.0 h" in said
    culture = validate_experiment_file(default_config("culture"))  # its own population
    assert set(culture.agents.values()) == {500} and culture.run_s == 9000


def test_every_model_call_an_experiment_makes_is_a_key_its_file_may_name() -> None:
    # the labels experiments pass to make_policy (directly or through a helper): each is
    # in LLM_CALLS, so `piano validate` accepts llm.modules/priorities keys for it
    from experiments.registry import LLM_CALLS

    declared = {c for calls in LLM_CALLS.values() for c in calls}
    used = {
        m[1]
        for path in (ROOT / "experiments").rglob("*.py")
        for m in re.finditer(
            r"(?:policy\(|brain_of\([^,()]+,)\s*\"([a-z_]+)\"", path.read_text("utf-8")
        )
    }
    assert used and used <= declared, used - declared
