"""Sentence encodings of every agent of one event loop, batched in one worker thread.

Every memory stored and every retrieval query needs an embedding. Encoded one request at a
time (two worker threads), 50 agents with MiniLM kept a core busy and queued queries behind
stores: in a 50-agent culture run 757 of the things agents meant to say were dropped as
stale (older than 10 s) while the talking module waited for the embedding of its query
about the listener. Here all requests of a loop wait in asyncio; one task hands them to a
worker thread together (up to :data:`BATCH_TEXTS` texts in one forward pass, which costs
far less per text than one pass each), **queries first**: a retrieval is waited for by a
module that is about to act, a store is not.

Waiting requests are plain futures: a stop cancels them at once (the end of ``asyncio.run``
waits only for the one batch in the thread), and a cancelled request is left out of the
next batch.
"""

from __future__ import annotations

import asyncio
import collections
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from agent_runtime.event_loop import PerLoop
from modules.memory.encoder import Encoder, FloatArray

__all__ = ["BATCH_TEXTS", "EncodeQueue", "encode_queue"]

#: Most texts in one batch handed to the worker thread.
BATCH_TEXTS = 64


@dataclass
class _Request:
    encoder: Encoder
    texts: list[str]
    future: asyncio.Future[FloatArray]


@dataclass
class EncodeQueue:
    """The encodings of one event loop: ``await queue.encode(encoder, texts, urgent=...)``."""

    batch_texts: int = BATCH_TEXTS
    urgent: collections.deque[_Request] = field(default_factory=collections.deque)
    background: collections.deque[_Request] = field(default_factory=collections.deque)
    batches: int = 0
    texts: int = 0
    _task: asyncio.Task[None] | None = None

    async def encode(self, encoder: Encoder, texts: Sequence[str], *, urgent: bool) -> FloatArray:
        loop = asyncio.get_running_loop()
        request = _Request(encoder, list(texts), loop.create_future())
        (self.urgent if urgent else self.background).append(request)
        if self._task is None or self._task.done():
            self._task = loop.create_task(self._run(), name="memory.encode-batches")
        return await request.future

    def _next_batch(self) -> list[_Request]:
        """Waiting requests for one pass: urgent ones first, one encoder, <= batch_texts texts
        (a single larger request goes alone)."""
        batch: list[_Request] = []
        size = 0
        for queue in (self.urgent, self.background):
            kept: collections.deque[_Request] = collections.deque()
            while queue:
                req = queue.popleft()
                if req.future.done():  # cancelled while waiting
                    continue
                fits = not batch or (
                    req.encoder is batch[0].encoder and size + len(req.texts) <= self.batch_texts
                )
                if fits:
                    batch.append(req)
                    size += len(req.texts)
                else:
                    kept.append(req)
            queue.extend(kept)
        return batch

    async def _run(self) -> None:
        while batch := self._next_batch():
            texts = [t for req in batch for t in req.texts]
            self.batches += 1
            self.texts += len(texts)
            try:
                vecs = await asyncio.to_thread(batch[0].encoder.encode, texts)
            except Exception as exc:  # every request of the batch gets the error
                for req in batch:
                    if not req.future.done():
                        req.future.set_exception(exc)
                continue
            except asyncio.CancelledError:
                for req in batch:
                    req.future.cancel()
                raise
            at = 0
            for req in batch:
                part = np.array(vecs[at : at + len(req.texts)], dtype=np.float32, copy=True)
                at += len(req.texts)
                if not req.future.done():
                    req.future.set_result(part)


_QUEUES: PerLoop[EncodeQueue] = PerLoop(lambda _loop: EncodeQueue())


def encode_queue() -> EncodeQueue:
    """The running loop's queue (one per loop: its futures and task belong to that loop)."""
    return _QUEUES.get()
