"""The heuristic importance rater."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_runtime.config.loader import load_topic
from agent_runtime.config.topics import Cue, Topic
from modules.memory import ImportanceRating, heuristic_importance
from modules.memory.importance import KIND_BASE, topic_rater
from modules.memory.records import MEMORY_KINDS, MemoryKind


@pytest.mark.parametrize(
    ("text", "kind", "expected"),
    [
        ("I walked to the farm", "observation", 2),
        ("I walked to the farm", "action", 2),
        ("I am waiting for the sun to rise", "plan", 2),
        ("Nothing in particular", "conversation", 2),
        ("The sky is blue", "observation", 2),
        ("Bob died in the lava", "observation", 9),
        ("Cara was killed by a zombie", "conversation", 9),
        ("Bob betrayed the village", "observation", 8),
        ("Bob attacked me near the well", "observation", 7),
        ("We voted on the tax amendment", "action", 7),
        ("I found a diamond", "action", 7),
        ("Bob gave me bread", "observation", 6),
        ("Dana is my friend", "conversation", 6),
        ("The priest spoke of the Spaghetti Monster", "observation", 6),
        ("I mined iron in the cave", "action", 5),
        ("I crafted a wooden pickaxe", "action", 4),
        ("Bob gave me a diamond", "observation", 8),  # two notable classes: +1
        ("Bob stole my diamond and killed my friend", "observation", 10),
        ("A calm thought", "reflection", 5),
        ("You are a farmer", "seed", 5),
    ],
)
def test_heuristic_ratings(text: str, kind: MemoryKind, expected: int) -> None:
    assert heuristic_importance(text, kind) == expected


def test_mundane_never_overrides_notable() -> None:
    assert heuristic_importance("I walked to Bob and gave him a diamond", "action") == 8


def test_range_and_determinism() -> None:
    for kind in MEMORY_KINDS:
        assert 1 <= KIND_BASE[kind] <= 10
        for text in ["", "idle", "died died died betrayed vote diamond gift friend pray"]:
            r = heuristic_importance(text, kind)
            assert 1 <= r <= 10
            assert r == heuristic_importance(text, kind)


def test_rating_model_bounds() -> None:
    assert ImportanceRating.model_validate_json('{"rating": 7}').rating == 7
    for bad in ('{"rating": 0}', '{"rating": 11}', "{}"):
        with pytest.raises(ValueError):
            ImportanceRating.model_validate_json(bad)


def _topic(name: str, memorable: tuple[str, ...], importance: int) -> Topic:
    return Topic(
        name=name,
        cues=(Cue(phrase=(name,), weight=1.0),),
        memorable=memorable,
        importance=importance,
    )


def test_a_village_topic_is_a_class_of_its_own() -> None:
    """The modules know no experiment's words: a memory about the tax matters only to an
    agent whose village has the tax topic, as much as its topic file says."""
    text = "Ann paid her taxes today"
    assert heuristic_importance(text, "observation") == KIND_BASE["observation"]
    tax = _topic("tax", ("tax", "taxes"), 7)
    assert heuristic_importance(text, "observation", (tax,)) == 7
    assert topic_rater((tax,))(text, "observation") == 7
    assert topic_rater(())(text, "observation") == KIND_BASE["observation"]
    faith = _topic("religion", ("spaghetti monster",), 6)
    said = "Bob spoke of the Spaghetti Monster"
    assert heuristic_importance(said, "conversation", (faith,)) == 6
    assert heuristic_importance(said, "conversation", (tax,)) == KIND_BASE["conversation"]
    # a topic is one more notable class: with a gift, one point more
    assert heuristic_importance("Bob gave me his taxes", "observation", (tax,)) == 8


def test_the_experiments_topics_say_what_matters() -> None:
    """The tax and the faith keep the importance the heuristic gave them by name before
    their words left the modules (governance 7, belief 6)."""
    root = Path(__file__).resolve().parents[2]
    tax = load_topic(root / "experiments/tax/topics/tax.yaml")
    faith = load_topic(root / "experiments/culture/topics/religion.yaml")
    assert heuristic_importance("The tax is too high", "conversation", (tax, faith)) == 7
    assert heuristic_importance("I am a Pastafarian now", "observation", (tax, faith)) == 6
