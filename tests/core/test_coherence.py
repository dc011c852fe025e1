"""Speech/action coherence from the event stream."""

from __future__ import annotations

from agent_runtime.run.coherence import CoherenceTracker, announced_skills


def speech(agent: str, t: float, text: str, running: str | None = None) -> dict[str, object]:
    return {
        "type": "speech",
        "agent": agent,
        "t": t,
        "text": text,
        "decision_skill": {"skill": running} if running else None,
    }


def started(agent: str, t: float, skill: str) -> dict[str, object]:
    return {"type": "skill_started", "agent": agent, "t": t, "call": {"skill": skill}}


def ended(agent: str, t: float, skill: str) -> dict[str, object]:
    return {"type": "skill_outcome", "agent": agent, "t": t, "call": {"skill": skill}}


def test_announcements_are_recognised() -> None:
    assert announced_skills("I'll bring you some wood") == {"give", "go_to"}
    assert announced_skills("Here is 2 bread") == {"give"}
    assert announced_skills("I like wood") == set()


def test_kept_contradicted_and_outside_the_window() -> None:
    c = CoherenceTracker(window_s=30.0)
    for rec in (
        speech("Ann", 10.0, "I'm going to collect logs"),
        started("Ann", 11.0, "collect"),  # kept
        speech("Bob", 10.0, "I'll craft a table"),
        started("Bob", 12.0, "explore"),  # contradicted
        speech("Cid", 10.0, "I will smelt iron"),
        started("Cid", 41.0, "smelt"),  # too late: neither
        speech("Dee", 10.0, "Here is your bread", running="give"),  # already giving: kept
        speech("Eve", 10.0, "hello there"),  # announces nothing
    ):
        c(rec)
    s = c.summary()
    assert s["utterances"] == 5
    assert s["announcing_action"] == 4
    assert s["kept_within_window"] == 2
    assert s["contradicted"] == 1


def test_out_of_order_skill_records_are_found() -> None:
    c = CoherenceTracker(window_s=5.0)
    c(started("Ann", 3.0, "collect"))
    c(started("Ann", 1.0, "explore"))
    c(speech("Ann", 2.0, "I'll gather wood"))
    assert c.summary()["kept_within_window"] == 1


def test_many_decisions_summarise_exactly() -> None:
    c = CoherenceTracker(window_s=30.0)
    n = 20_000
    for i in range(n):
        c(speech("Ann", float(i * 100), "I'll collect stone"))
        skill = "collect" if i % 2 else "explore"
        c(started("Ann", float(i * 100 + 1), skill))
        c(ended("Ann", float(i * 100 + 2), skill))  # each skill ends before the next line
    s = c.summary()
    assert s["announcing_action"] == n
    assert s["kept_within_window"] == n // 2 and s["contradicted"] == n // 2


def test_a_line_said_while_its_skill_runs_is_kept() -> None:
    """A line said on a decision that only keeps the agent going (no skill of its own)
    keeps its word when the announced skill is the one running; one that ended does not."""
    c = CoherenceTracker(window_s=30.0)
    for rec in (
        started("Ann", 0.0, "collect"),
        speech("Ann", 10.0, "Hey Bob, I'm going to gather wood"),  # collect still runs: kept
        ended("Ann", 50.0, "collect"),
        started("Bob", 0.0, "collect"),
        ended("Bob", 5.0, "collect"),
        speech("Bob", 10.0, "I'll gather wood"),  # collect ended before: not kept
        started("Bob", 12.0, "explore"),
        started("Cid", 0.0, "craft"),  # instant skills: start and outcome at one time
        ended("Cid", 0.0, "craft"),
        speech("Cid", 10.0, "I'll craft a table"),
    ):
        c(rec)
    s = c.summary()
    assert s["announcing_action"] == 3
    assert s["kept_within_window"] == 1
    assert s["contradicted"] == 1
    assert c.running("Ann", 10.0) == "collect" and c.running("Ann", 50.0) is None
