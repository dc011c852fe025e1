"""stance_of: the stance towards a topic the village handed its agents (here the tax
experiment's) read from the content of lines, not the speaker."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from agent_runtime.config.topics import parse_lexicon
from modules.heuristics.stance import lexicon, lexicon_of, line_score
from modules.heuristics.stance import stance_of as stance_on
from tests.modules.helpers import topic


def stance_of(lines: Sequence[str]) -> float:
    return stance_on(lines, topic("tax"))


def test_for_and_against_have_opposite_signs() -> None:
    assert stance_of(["Paying the tax is fair, it is for the common good."]) > 0
    assert stance_of(["The tax is unfair and far too high."]) < 0


def test_negation_flips_a_cue() -> None:
    assert stance_of(["I support the tax."]) > 0
    assert stance_of(["I do not support the tax."]) < 0
    assert stance_of(["The tax is not fair."]) < 0


def test_off_topic_and_empty_lines_are_neutral() -> None:
    assert stance_of([]) == 0.0
    assert stance_of(["I like trees and I agree with you."]) == 0.0  # no topic word


def test_more_agreeing_lines_move_the_stance_further() -> None:
    one = stance_of(["We should lower the tax."])
    three = stance_of(["We should lower the tax."] * 3)
    assert -1.0 <= three < one < 0


def test_result_is_bounded() -> None:
    s = stance_of(["tax is theft, unfair, too high, abolish the tax, waste, burden"] * 50)
    assert s == pytest.approx(s) and -1.0 <= s <= 1.0


def test_longest_phrase_wins_and_is_not_double_counted() -> None:
    lex = lexicon_of(topic("tax"))
    # "pay the tax" (+1.0) is matched, not also "tax"-less shorter cues inside it
    assert line_score("I pay the tax", lex) == pytest.approx(1.0)
    assert line_score("I don't pay the tax", lex) == pytest.approx(-1.0)


def test_speaker_does_not_enter() -> None:
    # the function takes text only: the same words give the same stance
    assert stance_of(["Alice: the tax is fair"]) == stance_of(["Bob: the tax is fair"])


def test_lexicon_file_errors_name_the_line() -> None:
    with pytest.raises(ValueError, match=r"tax_stance\.txt line 2"):
        parse_lexicon("@topic tax\nheavy tax\n", "tax_stance.txt")


def test_the_modules_own_lexicons_are_personality_only() -> None:
    """The modules keep only their own (personality) lexicons; an experiment's topic is
    data its village hands over."""
    assert lexicon("warmth").cues and lexicon("talkative").cues
    with pytest.raises(FileNotFoundError):
        lexicon("tax")
