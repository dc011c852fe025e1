"""The suite's timeline (tests/timeline.py): each worker's busy and idle time and its last tests."""

from __future__ import annotations

from tests.timeline import summary


def test_idle_is_the_wall_time_a_worker_ran_nothing() -> None:
    rows: list[dict[str, object]] = [
        {"worker": "gw0", "test": "a.py::one", "start": 100.0, "end": 400.0},
        {"worker": "gw1", "test": "b.py::two", "start": 100.0, "end": 150.0},
        {"worker": "gw1", "test": "c.py::three", "start": 150.0, "end": 200.0},
    ]
    text = summary(rows).splitlines()
    assert text[0] == "wall 300 s, 3 tests"
    assert text[1].startswith("gw0: busy 300 s, idle 0 s, done 0 s before the end; last: a.py::one")
    assert text[2].startswith("gw1: busy 100 s, idle 200 s, done 200 s before the end")
    assert text[2].endswith("b.py::two (50 s), c.py::three (50 s)")
