"""The order in which ``pytest -n N --dist loadfile`` hands test files to its workers.

pytest-xdist gives each worker whole files (the tests of a file share their module
fixtures: a server, a world) and takes them, by default, in the order of how many tests a
file holds. The suite's wall time is then set by when its longest files start: the real
local-model village (one test, minutes) came last and ran alone at the end. Here the files go
in four groups, and within a group those that declare the longest ``pytest.mark.timeout``
first (the bound a file sets on itself is read from its own text, so a new file needs no
list kept up to date):

1. files marked ``slow``;
2. the other files that run a Minecraft world (marked ``minecraft``, or in a folder of
   world tests: ``tests/server``, ``tests/bodies``, ``tests/e2e``) or declare a bound above
   the default;
3. files marked ``cpu_bound`` (a local model server that holds a core for minutes): first
   they ran beside the tech-tree climbs, whose path planning then took 77 s of a collect (2
   version tests failed, fresh-clone CI of 5da00c0); then last, alone, the other worker idle
   for their last ~6 minutes (fresh-clone CI of 8009f9b: 358 s idle of 1,726);
4. the rest (unit tests on fakes, local services): they run beside the model (the real
   village beside a loop of them: scheduling lag p99 9.4 ms, bound 50).

With more than two workers (``PYTEST_WORKERS=3``), the files of groups 1 and 2 mostly wait on
servers and bodies, so a third worker shortens them; once only the model's files and the rest
are left, the workers beyond :data:`AFTER_THE_WORLDS` retire (they would run beside the model
server, which holds a core).
"""

from __future__ import annotations

import re
from collections import OrderedDict
from pathlib import Path
from typing import Any

import pytest

__all__ = [
    "AFTER_THE_WORLDS",
    "MODEL",
    "file_weight",
    "retires",
    "slow_first",
    "slow_first_scheduler",
]

_TIMEOUT = re.compile(r"mark\.timeout\((\d+)")
_SLOW = "mark.slow"
_CPU_BOUND = "mark.cpu_bound"
#: the group of the files marked cpu_bound (see :func:`file_weight`)
MODEL = 1
#: the workers that go on once only the model's files and the rest are left
AFTER_THE_WORLDS = 2


#: folders whose tests run a Minecraft world (server, bodies, whole villages)
_WORLD_FOLDERS = frozenset({"server", "bodies", "e2e"})
_MINECRAFT = "mark.minecraft"


def file_weight(path: Path, default_timeout: int) -> tuple[int, int]:
    """(its group: 3 slow, 2 runs a world or declares a long bound, 1 cpu_bound, 0 the rest;
    its longest declared timeout): larger goes first."""
    try:
        text = path.read_text()
    except OSError:
        return (0, 0)
    longest = max((int(t) for t in _TIMEOUT.findall(text)), default=default_timeout)
    if _CPU_BOUND in text:
        return (MODEL, longest)
    if _SLOW in text:
        return (3, longest)
    world = _MINECRAFT in text or path.parent.name in _WORLD_FOLDERS
    return (2 if world or longest > default_timeout else 0, longest)


def slow_first(scopes: list[str], root: Path, default_timeout: int) -> list[str]:
    """``scopes`` (file node ids, relative to ``root``) with the heaviest first; the order
    is otherwise kept (a stable sort)."""
    weights = {s: file_weight(root / s, default_timeout) for s in scopes}
    return sorted(scopes, key=lambda s: weights[s], reverse=True)


def retires(active: int, next_group: int) -> bool:
    """Whether a worker that asks for more work stops instead: more than
    :data:`AFTER_THE_WORLDS` workers are at work and the next file's group (see
    :func:`file_weight`) is the model's or the rest's."""
    return active > AFTER_THE_WORLDS and next_group <= MODEL


def slow_first_scheduler(config: pytest.Config, log: object) -> object:
    """pytest-xdist's ``loadfile`` scheduler with its queue of files put in
    :func:`slow_first` order before the first file is handed out."""
    from xdist.scheduler import LoadFileScheduling  # type: ignore[import-untyped]

    root = Path(str(config.rootpath))
    default = int(config.getini("timeout") or 0)

    class SlowFirst(LoadFileScheduling):  # type: ignore[misc]
        _ordered = False

        def _next_group(self) -> int | None:
            queue: OrderedDict[str, Any] = self.workqueue  # type: ignore[has-type]
            return file_weight(root / next(iter(queue)), default)[0] if queue else None

        def _model_next(self) -> bool:
            return self._next_group() == MODEL

        def _reschedule(self, node: Any) -> None:
            group = self._next_group()
            if (
                group is not None
                and not node.shutting_down
                and self._pending_of(self.assigned_work[node]) <= 2  # it would get a file now
                and retires(sum(not n.shutting_down for n in self.nodes), group)
            ):
                node.shutdown()  # ends once its pending tests are done
                return
            super()._reschedule(node)

        def _assign_work_unit(self, node: Any) -> None:
            if not self._ordered:
                self._ordered = True
                queue: OrderedDict[str, Any] = self.workqueue  # type: ignore[has-type]
                order = slow_first(list(queue), root, default)
                self.workqueue = OrderedDict((s, queue[s]) for s in order)
            model = self._model_next()
            super()._assign_work_unit(node)
            # the model's files all to this worker, one after the other: two local model
            # servers at once would take both cores
            while model and self._model_next():
                super()._assign_work_unit(node)

    return SlowFirst(config, log)
