"""``piano validate`` takes every file the CLI takes: village files and experiment files."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_runtime.app.cli.main import main
from experiments.registry import EXPERIMENTS, default_config

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("name", sorted(EXPERIMENTS))
def test_every_committed_experiment_file_validates(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = default_config(name)
    assert main(["validate", str(path)]) == 0, capsys.readouterr().err
    out = capsys.readouterr().out
    assert f"experiment {name}" in out and "OK" in out


def _tax_file(tmp_path: Path, old: str, new: str) -> Path:
    text = default_config("tax").read_text(encoding="utf-8")
    assert old in text
    f = tmp_path / "tax.yaml"
    f.write_text(text.replace(old, new, 1), encoding="utf-8")
    return f


def test_a_bad_protocol_field_exits_2_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = _tax_file(tmp_path, "season_window_s: 20", "season_window_s: soon")
    assert main(["validate", str(f)]) == 2
    err = capsys.readouterr().err
    assert str(f) in err and "protocol.season_window_s" in err and "Traceback" not in err


def test_a_condition_that_breaks_the_village_exits_2_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = _tax_file(
        tmp_path,
        "params: {influencers: pro, frozen: false}}",
        "params: {influencers: pro, frozen: false}, overrides: {world.kind: moon}}",
    )
    assert main(["validate", str(f)]) == 2
    err = capsys.readouterr().err
    assert "condition full-pro" in err and "world.kind" in err


def test_an_unknown_experiment_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = _tax_file(tmp_path, "experiment: tax", "experiment: taxes")
    assert main(["validate", str(f)]) == 2
    assert "unknown experiment 'taxes'" in capsys.readouterr().err
