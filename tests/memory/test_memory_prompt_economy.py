"""The reflection questions prompt lists each remembered text once (issue 30, part J): the
records it asks about repeat one outcome again and again (run I1 of the cost bench: 97-100
records, 44-63 distinct texts)."""

from __future__ import annotations

from modules.memory.llm_policies import render_insights_prompt, render_questions_prompt
from modules.memory.records import MemoryKind, MemoryRecord

STONE = "I tried to collect(block=stone, count=4): collect succeeded (+4 cobblestone)."


def rec(i: int, text: str, hours: float, kind: MemoryKind = "action") -> MemoryRecord:
    return MemoryRecord(
        id=i, agent="Ann", text=text, kind=kind, created=hours, last_accessed=hours, importance=3
    )


RECORDS = [
    rec(1, STONE, 8.0),
    rec(2, "Bob said: «hi»", 8.1, "conversation"),
    rec(3, STONE, 8.2),
    rec(4, STONE, 8.5),
    rec(5, "Bob left.", 8.6, "observation"),
]


def test_the_questions_prompt_lists_a_repeated_text_once_with_its_count() -> None:
    user = render_questions_prompt("Ann", "A miner.", RECORDS).user
    assert user.count("cobblestone") == 1
    assert "3 times since 08:00" in user and "day 1, 08:30" in user  # its last time
    lines = [line for line in user.splitlines() if line[:2] in ("1.", "2.", "3.", "4.")]
    assert [("Bob said" in x, "cobblestone" in x, "Bob left" in x) for x in lines] == [
        (True, False, False),
        (False, True, False),
        (False, False, True),
    ]


def test_the_insights_prompt_keeps_every_record_it_cites_by_number() -> None:
    user = render_insights_prompt("Ann", "A miner.", "What do I do?", RECORDS, 3).user
    assert user.count("cobblestone") == 3 and "5. [observation" in user
