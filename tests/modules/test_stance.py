"""stance_of: the stance towards the tax read from the content of lines, not the speaker."""

from __future__ import annotations

import pytest

from modules.heuristics.stance import lexicon, line_score, parse_lexicon, stance_of


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
    lex = lexicon("tax")
    # "pay the tax" (+1.0) is matched, not also "tax"-less shorter cues inside it
    assert line_score("I pay the tax", lex) == pytest.approx(1.0)
    assert line_score("I don't pay the tax", lex) == pytest.approx(-1.0)


def test_speaker_does_not_enter() -> None:
    # the function takes text only: the same words give the same stance
    assert stance_of(["Alice: the tax is fair"]) == stance_of(["Bob: the tax is fair"])


def test_lexicon_file_errors_name_the_line() -> None:
    with pytest.raises(ValueError, match="line 2"):
        parse_lexicon("tax", "@topic tax\nheavy tax\n")
