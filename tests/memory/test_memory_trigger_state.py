"""The reflection trigger's own state: what a reload knows, repeats within the retention
window, and a completed reflection."""

from __future__ import annotations

from modules.memory.records import MemoryRecord
from modules.memory.trigger import ReflectionTrigger, gist


def _record(text: str, kind: str = "observation") -> MemoryRecord:
    return MemoryRecord.model_validate(
        {
            "id": 1,
            "agent": "Ann",
            "text": text,
            "kind": kind,
            "created": 0.0,
            "last_accessed": 0.0,
            "importance": 3,
        }
    )


def test_a_reload_knows_the_count_only_of_an_empty_stream() -> None:
    trigger = ReflectionTrigger()
    trigger.loaded(0.0, 0, None, empty=True)
    assert trigger.counted_n == 0
    trigger.loaded(12.0, 2, 5.0, empty=False)
    assert (trigger.since, trigger.reflections, trigger.last) == (12.0, 2, 5.0)
    assert trigger.counted_n is None  # how many records made the 12: not known
    assert trigger.counts(_record("a wolf nearby"), counted=True)
    assert trigger.counted_n is None


def test_repeats_within_the_window_and_other_kinds_do_not_count() -> None:
    trigger = ReflectionTrigger(retention=2)
    assert gist("+4 oak_log") == gist("+3 oak_log")
    assert trigger.counts(_record("collected +4 oak_log"), counted=True)
    assert not trigger.counts(_record("collected +3 oak_log"), counted=True)  # a repeat
    assert not trigger.counts(_record("I plan to build", "plan"), counted=True)
    assert not trigger.counts(_record("a creeper"), counted=False)
    assert trigger.counts(_record("a zombie"), counted=True)
    assert trigger.counts(_record("a skeleton"), counted=True)
    assert trigger.counts(_record("collected +2 oak_log"), counted=True)  # out of the window
    assert trigger.counted_n == 4
    trigger.reflected(1.5, now=7.0)
    assert (trigger.since, trigger.reflections, trigger.last, trigger.counted_n) == (
        1.5,
        1,
        7.0,
        0,
    )
