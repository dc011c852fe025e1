"""A village's topics (``topics:``): topic files an experiment owns, read relative to the
village file and handed to every agent; a bad topic file exits 2 naming file and field."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_runtime.app.cli.main import main
from agent_runtime.config.errors import ConfigError
from agent_runtime.config.loader import load_config, parse_config, with_overrides

LEXICON = """# a test lexicon
@topic garden gardens
 1.0 love the garden
 0.5 garden
-1.0 hate the garden
"""
TOPIC = """name: garden
lexicon: garden_stance.txt
say_for: [The garden is lovely.]
say_against: [The garden is a waste.]
request_words: [garden]
"""


def village(tmp_path: Path, topic: str = TOPIC, lexicon: str = LEXICON) -> Path:
    (tmp_path / "topics").mkdir(exist_ok=True)
    (tmp_path / "topics" / "garden.yaml").write_text(topic, "utf-8")
    (tmp_path / "topics" / "garden_stance.txt").write_text(lexicon, "utf-8")
    p = tmp_path / "village.yaml"
    p.write_text("topics: [topics/garden.yaml]\nagents:\n  - name: Ann\n", "utf-8")
    return p


def test_a_topic_file_is_read_relative_to_the_village_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path.parent)  # not the village's folder
    cfg = load_config(village(tmp_path))
    (t,) = cfg.topics
    assert (t.name, t.mentions, t.say_for, t.request_words) == (
        "garden", ("garden", "gardens"), ("The garden is lovely.",), ("garden",),
    )  # fmt: skip
    assert (t.cues[0].phrase, t.cues[0].weight) == (("love", "the", "garden"), 1.0)
    # as a run folder records it (inline) and as overrides re-validate it: the same topics
    assert parse_config(cfg.model_dump(mode="json")).topics == cfg.topics
    assert with_overrides(cfg, {"run.seed": 5}, "f").topics == cfg.topics


def test_a_plain_village_names_no_topic(tmp_path: Path) -> None:
    p = tmp_path / "v.yaml"
    p.write_text("agents:\n  - name: Ann\n", "utf-8")
    assert load_config(p).topics == ()


@pytest.mark.parametrize(
    ("topic", "lexicon", "field", "words"),
    [
        (TOPIC.replace("name: garden", "name: Garden Club"), LEXICON, "name", "must match"),
        (TOPIC + "colour: green\n", LEXICON, "colour", "unknown field"),
        (TOPIC.replace("garden_stance.txt", "missing.txt"), LEXICON, "lexicon", "cannot read"),
        (TOPIC, LEXICON + "heavy garden\n", "lexicon", "line 6"),
        (TOPIC, "@topic garden\n", "lexicon", "has no cue"),
    ],
    ids=["name", "unknown_field", "missing_lexicon", "bad_weight", "no_cue"],
)
def test_a_bad_topic_file_names_the_file_and_the_field(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    topic: str,
    lexicon: str,
    field: str,
    words: str,
) -> None:
    path = village(tmp_path, topic, lexicon)
    with pytest.raises(ConfigError) as err:
        load_config(path)
    # the village file and the field naming the topic file; then the topic file and its field
    assert err.value.file == path
    assert [p.path for p in err.value.problems] == ["topics[0]"]
    message = err.value.problems[0].message
    assert message.startswith(f"{tmp_path / 'topics' / 'garden.yaml'}: {field}: ")
    assert words in message
    assert main(["validate", str(path)]) == 2
    shown = capsys.readouterr().err
    assert "topics/garden.yaml" in shown and "topics[0]" in shown and field in shown


def test_a_missing_topic_file_and_a_topic_listed_twice(tmp_path: Path) -> None:
    p = tmp_path / "village.yaml"
    p.write_text("topics: [nowhere.yaml]\nagents:\n  - name: Ann\n", "utf-8")
    with pytest.raises(ConfigError, match=r"nowhere\.yaml") as err:
        load_config(p)
    assert err.value.file == p and err.value.problems[0].path == "topics[0]"
    assert err.value.problems[0].message == f"{tmp_path / 'nowhere.yaml'}: file not found"
    village(tmp_path)
    p.write_text("topics: [topics/garden.yaml, topics/garden.yaml]\nagents: [{name: Ann}]\n")
    with pytest.raises(ConfigError, match="topics listed twice"):
        load_config(p)
