"""Where the suite's wall time goes: with ``PIANO_TEST_TIMELINE=FILE`` set, every test
appends one JSON line (worker, test, start, end: epoch seconds) to FILE; unset, nothing is
written. ``python -m tests.timeline FILE`` prints each worker's busy and idle seconds and
what ran last, to see how the files are spread over the pytest-xdist workers."""

from __future__ import annotations

import json
import os
import sys
import time
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import pytest

__all__ = ["ENV", "record", "summary"]

ENV = "PIANO_TEST_TIMELINE"


@pytest.hookimpl(hookwrapper=True)
def record(item: pytest.Item) -> Iterator[None]:
    """A ``pytest_runtest_protocol`` wrapper: the test's run, setup and teardown included."""
    path = os.environ.get(ENV)
    start = time.time()
    yield
    if path:
        line = {
            "worker": os.environ.get("PYTEST_XDIST_WORKER", "main"),
            "test": item.nodeid,
            "start": round(start, 3),
            "end": round(time.time(), 3),
        }
        with Path(path).open("a") as out:
            out.write(json.dumps(line) + "\n")


def summary(lines: list[dict[str, object]]) -> str:
    first = min(float(str(r["start"])) for r in lines)
    last = max(float(str(r["end"])) for r in lines)
    by_worker: dict[str, list[dict[str, object]]] = defaultdict(list)
    for r in lines:
        by_worker[str(r["worker"])].append(r)
    out = [f"wall {last - first:.0f} s, {len(lines)} tests"]
    for worker, rows in sorted(by_worker.items()):
        busy = sum(float(str(r["end"])) - float(str(r["start"])) for r in rows)
        ends = max(float(str(r["end"])) for r in rows)
        tail = sorted(rows, key=lambda r: float(str(r["end"])))[-3:]
        out.append(
            f"{worker}: busy {busy:.0f} s, idle {last - first - busy:.0f} s, "
            f"done {last - ends:.0f} s before the end; last: "
            + ", ".join(
                f"{r['test']} ({float(str(r['end'])) - float(str(r['start'])):.0f} s)" for r in tail
            )
        )
    return "\n".join(out)


if __name__ == "__main__":
    rows = [json.loads(x) for x in Path(sys.argv[1]).read_text().splitlines() if x.strip()]
    print(summary(rows))
