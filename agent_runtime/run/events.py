"""The run's ``events.jsonl``: one JSON object per line, written by one background task.

Every record has ``t`` (unix time), ``type`` and usually ``agent``. Types used by
the runtime: ``run_started``, ``run_stopped``, ``decision``, ``speech``,
``skill_started``, ``skill_outcome``, ``goal``, ``reflection``, ``plan``,
``discrepancy``, ``module_error``, ``module_restarted``, ``body_event``,
``llm_fallback``, ``world_event``, ``progress``.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import Counter
from pathlib import Path
from typing import IO, Any

from agent_runtime.clock import wall_time
from agent_runtime.queues import put_dropping_oldest
from agent_runtime.tasks import cancel_and_wait

log = logging.getLogger(__name__)


class EventLog:
    """Bounded, non-blocking event recorder. ``emit`` never awaits; the writer batches lines."""

    def __init__(self, path: Path | None, *, maxsize: int = 100_000) -> None:
        self.path = path
        self._queue: asyncio.Queue[str] = asyncio.Queue(maxsize=maxsize)
        self._task: asyncio.Task[None] | None = None
        self._file: IO[str] | None = None
        self.counts: Counter[str] = Counter()
        self.dropped = 0
        self.written = 0
        self._listeners: list[Any] = []

    async def __aenter__(self) -> EventLog:
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._file = self.path.open("a", encoding="utf-8")
            self._task = asyncio.create_task(self._writer(), name="events.writer")
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._task is not None:
            await cancel_and_wait(self._task)
            self._task = None
        self._drain()
        if self._file is not None:
            self._file.close()
            self._file = None

    def add_listener(self, callback: Any) -> None:
        """``callback(record: dict)`` is called for every event (used by in-process recorders)."""
        self._listeners.append(callback)

    def emit(self, type_: str, agent: str | None = None, **data: Any) -> dict[str, Any]:
        record: dict[str, Any] = {"t": round(wall_time(), 4), "type": type_}
        if agent is not None:
            record["agent"] = agent
        record.update(data)
        self.counts[type_] += 1
        for cb in self._listeners:
            cb(record)
        if self._file is None:
            return record
        line = json.dumps(record, default=str, separators=(",", ":"))
        if put_dropping_oldest(self._queue, line):
            self.dropped += 1
        return record

    def _drain(self, first: str | None = None) -> None:
        if self._file is None:
            return
        lines = [first] if first is not None else []
        while True:
            try:
                lines.append(self._queue.get_nowait())
            except asyncio.QueueEmpty:
                break
        if lines:
            self._file.write("\n".join(lines) + "\n")
            self._file.flush()
            self.written += len(lines)

    async def _writer(self) -> None:
        while True:
            self._drain(await self._queue.get())
            await asyncio.sleep(0.2)
