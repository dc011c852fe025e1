"""Where the suite's wall time goes: with ``PIANO_TEST_TIMELINE=FILE`` set, every test
appends one JSON line (worker, test, start, end: epoch seconds) to FILE; unset, nothing is
written. ``python -m tests.timeline FILE`` prints each worker's busy and idle seconds and
what ran last, to see how the files are spread over the pytest-xdist workers."""

from __future__ import annotations

import json
import os
import sys
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import pytest

from agent_runtime.clock import wall_time

__all__ = ["ENV", "record", "summary"]

ENV = "PIANO_TEST_TIMELINE"


@pytest.hookimpl(hookwrapper=True)
def record(item: pytest.Item) -> Iterator[None]:
    """A ``pytest_runtest_protocol`` wrapper: the test's run, setup and teardown included."""
    path = os.environ.get(ENV)
    start = wall_time()
    yield
    if path:
        line = {
            "worker": os.environ.get("PYTEST_XDIST_WORKER", "main"),
            "test": item.nodeid,
            "start": round(start, 3),
            "end": round(wall_time(), 3),
        }
        with Path(path).open("a") as out:
            out.write(json.dumps(line) + "\n")


class Span(NamedTuple):
    worker: str
    test: str
    start: float
    end: float

    @property
    def seconds(self) -> float:
        return self.end - self.start


def summary(lines: list[dict[str, object]]) -> str:
    spans = [
        Span(str(r["worker"]), str(r["test"]), float(str(r["start"])), float(str(r["end"])))
        for r in lines
    ]
    first = min(s.start for s in spans)
    wall = max(s.end for s in spans) - first
    by_worker: dict[str, list[Span]] = defaultdict(list)
    for s in spans:
        by_worker[s.worker].append(s)
    out = [f"wall {wall:.0f} s, {len(spans)} tests"]
    for worker, own in sorted(by_worker.items()):
        busy = sum(s.seconds for s in own)
        own.sort(key=lambda s: s.end)
        tail = ", ".join(f"{s.test} ({s.seconds:.0f} s)" for s in own[-3:])
        out.append(
            f"{worker}: busy {busy:.0f} s, idle {wall - busy:.0f} s, "
            f"done {first + wall - own[-1].end:.0f} s before the end; last: {tail}"
        )
    return "\n".join(out)


if __name__ == "__main__":
    rows = [json.loads(x) for x in Path(sys.argv[1]).read_text().splitlines() if x.strip()]
    print(summary(rows))
