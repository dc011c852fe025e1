"""The order in which ``pytest -n N --dist loadfile`` hands test files to its workers.

pytest-xdist gives each worker whole files (the tests of a file share their module
fixtures: a server, a world) and takes them, by default, in the order of how many tests a
file holds. The suite's wall time is then set by when its longest files start: the real
local-model village (one test, minutes) came last and ran alone at the end. Here the files
marked ``slow`` go first, and among them those that declare the longest
``pytest.mark.timeout``: the bound a file sets on itself is read from its own text, so a new
slow file needs no list kept up to date. Files marked ``cpu_bound`` (a local model server
that holds a core for minutes) go last: first, they ran beside the tech-tree climbs, whose
path planning then took 77 s of a collect (2 version tests failed, fresh-clone CI of
5da00c0).
"""

from __future__ import annotations

import re
from collections import OrderedDict
from pathlib import Path
from typing import Any

import pytest

__all__ = ["file_weight", "slow_first", "slow_first_scheduler"]

_TIMEOUT = re.compile(r"mark\.timeout\((\d+)")
_SLOW = "mark.slow"
_CPU_BOUND = "mark.cpu_bound"


def file_weight(path: Path, default_timeout: int) -> tuple[int, int, int]:
    """(0 when the file is marked cpu_bound, 1 when it is marked slow, its longest declared
    timeout): larger goes first."""
    try:
        text = path.read_text()
    except OSError:
        return (1, 0, 0)
    longest = max((int(t) for t in _TIMEOUT.findall(text)), default=default_timeout)
    return (0 if _CPU_BOUND in text else 1, 1 if _SLOW in text else 0, longest)


def slow_first(scopes: list[str], root: Path, default_timeout: int) -> list[str]:
    """``scopes`` (file node ids, relative to ``root``) with the heaviest first; the order
    is otherwise kept (a stable sort)."""
    weights = {s: file_weight(root / s, default_timeout) for s in scopes}
    return sorted(scopes, key=lambda s: weights[s], reverse=True)


def slow_first_scheduler(config: pytest.Config, log: object) -> object:
    """pytest-xdist's ``loadfile`` scheduler with its queue of files put in
    :func:`slow_first` order before the first file is handed out."""
    from xdist.scheduler import LoadFileScheduling  # type: ignore[import-untyped]

    root = Path(str(config.rootpath))
    default = int(config.getini("timeout") or 0)

    class SlowFirst(LoadFileScheduling):  # type: ignore[misc]
        _ordered = False

        def _assign_work_unit(self, node: Any) -> None:
            if not self._ordered:
                self._ordered = True
                queue: OrderedDict[str, Any] = self.workqueue  # type: ignore[has-type]
                order = slow_first(list(queue), root, default)
                self.workqueue = OrderedDict((s, queue[s]) for s in order)
            super()._assign_work_unit(node)

    return SlowFirst(config, log)
