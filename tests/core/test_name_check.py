"""Block and item names in config files are checked at the file's Minecraft version (issue 34):
a name the version does not know exits 2 naming the file, the field and the name, with a close
match; every committed file validates at every supported version."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from agent_runtime.app.cli.main import main
from agent_runtime.config.errors import ConfigError
from agent_runtime.config.loader import parse_config, read_yaml
from agent_runtime.config.models import SUPPORTED_VERSIONS
from experiments.registry import default_config

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = sorted((ROOT / "configs").glob("*.yaml")) + sorted(
    (ROOT / "experiments").glob("*/config.yaml")
)


def _village(tmp_path: Path, version: str, item: str) -> Path:
    f = tmp_path / "village.yaml"
    f.write_text(
        f"world: {{version: '{version}'}}\n"
        f"agents:\n  - name: Ann\n    inventory: {{bread: 1, {item}: 2}}\n",
        encoding="utf-8",
    )
    return f


def test_a_name_the_version_does_not_know_exits_2_naming_file_field_and_match(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = _village(tmp_path, "1.21.4", "grass")  # short_grass since 1.20.3
    assert main(["validate", str(f)]) == 2
    err = capsys.readouterr().err
    assert str(f) in err and "agents[0].inventory.grass" in err, err
    assert "'grass' is not a block or item at Minecraft 1.21.4" in err, err
    assert "did you mean 'short_grass'?" in err and "Traceback" not in err, err
    assert main(["run", str(f), "--world", "none"]) == 2  # refused before anything starts
    assert "agents[0].inventory.grass" in capsys.readouterr().err


def test_the_same_name_validates_at_a_version_that_has_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["validate", str(_village(tmp_path, "1.16.5", "grass"))]) == 0
    assert "OK" in capsys.readouterr().out


def test_a_misspelt_name_gets_the_nearest_spelling() -> None:
    template = {"count": 2, "inventory": {"oak_plank": 4}}
    data = {"agents": [{"name": "Ann"}], "agent_templates": [template]}
    with pytest.raises(ConfigError) as err:
        parse_config(data, "v.yaml")
    (problem,) = err.value.problems
    assert problem.path == "agent_templates[0].inventory.oak_plank"
    assert problem.message.endswith("did you mean 'oak_planks'?")


def test_an_experiment_protocol_is_checked_at_each_version_its_runs_use(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = default_config("chef").read_text(encoding="utf-8")
    assert "inventory: {bread: 4}" in text and "  - {name: full, preset: full}" in text
    text = text.replace("inventory: {bread: 4}", "inventory: {bread: 4, grass: 1}")
    pinned = "world: {kind: embedded, port: 0, version: '1.16.5'}"
    text = text.replace("world: {kind: embedded, port: 0}", pinned)  # not the default
    f = tmp_path / "chef.yaml"
    f.write_text(text, encoding="utf-8")
    assert main(["validate", str(f)]) == 0  # the village's version (1.16.5) has grass
    capsys.readouterr()
    at_1214 = "  - {name: full, preset: full, overrides: {world.version: '1.21.4'}}"
    f.write_text(text.replace("  - {name: full, preset: full}", at_1214), encoding="utf-8")
    assert main(["validate", str(f)]) == 2  # one condition runs at 1.21.4
    err = capsys.readouterr().err
    assert str(f) in err and "protocol.chef.inventory.grass" in err and "short_grass" in err


def _at_version(data: dict[str, Any], version: str) -> dict[str, Any]:
    village = data["village"] if "experiment" in data else data
    village.setdefault("world", {})["version"] = version
    return data


@pytest.mark.parametrize("version", SUPPORTED_VERSIONS)
@pytest.mark.parametrize("path", COMMITTED, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_committed_file_validates_at_every_supported_version(
    path: Path, version: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """At every supported version, not only the one a file names: the default will move."""
    copy = tmp_path / path.name  # an experiment file's topics are found in its own folder
    copy.write_text(yaml.safe_dump(_at_version(read_yaml(path), version)), encoding="utf-8")
    assert main(["validate", str(copy)]) == 0, capsys.readouterr().err
