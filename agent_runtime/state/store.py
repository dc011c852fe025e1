"""Agent State kept in Redis, with a local write-through cache and batched writes.

Redis is the source of truth: :meth:`StateStore.load_agent` reloads an agent's
sections (and module checkpoints) after a process restart. Within a process,
reads come from the cache (no round trip per field) and writes update the
cache at once and are flushed to Redis in pipelined batches by one background
task every ``flush_interval`` seconds, coalescing repeated writes of a section.

Other per-agent writes join the same flush: :meth:`StateStore.pipelined` queues a
caller's commands (e.g. a memory stream's new records) for the next flush and returns
their replies, so one tick's writes of every agent of the process travel in one
MULTI/EXEC transaction, one round trip, instead of one or more round trips per agent
(see ``agent_runtime/app/BENCH.md``).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

from redis.asyncio import Redis
from redis.asyncio.client import Pipeline
from redis.exceptions import RedisError
from redis.typing import EncodableT, FieldT

from agent_runtime.checks import require_positive
from agent_runtime.clock import wall_time
from agent_runtime.state import keys
from agent_runtime.state.sections import (
    SECTION_MODELS,
    SECTION_WRITERS,
    Section,
    default_section,
    load_section,
)

log = logging.getLogger(__name__)

S = TypeVar("S", bound=Section)
Listener = Callable[[str], None]
#: adds a caller's commands to the flush's pipeline (see :meth:`StateStore.pipelined`)
Commands = Callable[[Pipeline], object]


#: state fields plus queued callers' commands per flush transaction (see StateStore.flush)
FLUSH_CHUNK = 200


def _chunks(
    agents: list[tuple[str, list[str]]],
    callers: list[tuple[Commands, asyncio.Future[list[Any]]]],
) -> list[tuple[list[tuple[str, list[str]]], list[tuple[Commands, asyncio.Future[list[Any]]]]]]:
    """Callers first (a module step waits for them; a section only has to reach Redis), then
    agents' dirty fields, in runs of about FLUSH_CHUNK (never splitting one caller's commands
    or one agent's fields; a caller counts as 5)."""
    out: list[
        tuple[list[tuple[str, list[str]]], list[tuple[Commands, asyncio.Future[list[Any]]]]]
    ] = [([], [])]
    size = 0
    for caller in callers:
        if size >= FLUSH_CHUNK:
            out.append(([], []))
            size = 0
        out[-1][1].append(caller)
        size += 5
    for unit in agents:
        if size >= FLUSH_CHUNK:
            out.append(([], []))
            size = 0
        out[-1][0].append(unit)
        size += len(unit[1])
    return out


class SectionOwnershipError(RuntimeError):
    """A module tried to write a state section it does not own."""


class AgentState:
    """The cached Agent State of one agent. Obtain it from :meth:`StateStore.agent`."""

    def __init__(self, store: StateStore, name: str) -> None:
        self._store = store
        self.name = name
        self._sections: dict[str, Section] = {n: default_section(n) for n in SECTION_MODELS}
        self._module_states: dict[str, dict[str, Any]] = {}
        self._listeners: dict[str, list[Listener]] = {}
        self.version = 0
        self.loaded = False

    def get(self, section: str, kind: type[S]) -> S:
        value = self._sections[section]
        if not isinstance(value, kind):  # pragma: no cover - programming error
            raise TypeError(f"section {section} is {type(value).__name__}, not {kind.__name__}")
        return value

    def raw(self, section: str) -> Section:
        return self._sections[section]

    def snapshot(self, sections: Iterable[str] | None = None) -> dict[str, Section]:
        """A consistent view: section objects are immutable and read in one go."""
        names = list(sections) if sections is not None else list(self._sections)
        return {n: self._sections[n] for n in names}

    def set(self, section: str, value: Section, *, writer: str) -> None:
        owner = SECTION_WRITERS[section]
        if writer != owner:
            raise SectionOwnershipError(
                f"{writer!r} may not write section {section!r} (owner: {owner!r})"
            )
        if not isinstance(value, SECTION_MODELS[section]):
            raise TypeError(f"section {section} expects {SECTION_MODELS[section].__name__}")
        if value.updated_at == 0.0 or value is self._sections[section]:
            value = value.model_copy(update={"updated_at": wall_time()})
        self._sections[section] = value
        self.version += 1
        self._store._mark_dirty(self.name, section)
        for cb in self._listeners.get(section, ()):
            cb(section)
        for cb in self._listeners.get("*", ()):
            cb(section)

    def update(self, section: str, kind: type[S], *, writer: str, **changes: Any) -> S:
        current = self.get(section, kind)
        changes.setdefault("updated_at", wall_time())
        new = current.model_copy(update=changes)
        self.set(section, new, writer=writer)
        return new

    def listen(self, section: str, callback: Listener) -> Callable[[], None]:
        """Call ``callback(section)`` after every write of ``section`` (``"*"`` = any)."""
        self._listeners.setdefault(section, []).append(callback)

        def remove() -> None:
            cbs = self._listeners.get(section, [])
            if callback in cbs:
                cbs.remove(callback)

        return remove

    def module_state(self, module: str) -> dict[str, Any]:
        return dict(self._module_states.get(module, {}))

    def set_module_state(self, module: str, state: Mapping[str, Any]) -> None:
        self._module_states[module] = dict(state)
        self._store._mark_dirty(self.name, f"module:{module}")

    def _load(
        self, raw_state: Mapping[bytes | str, bytes | str], raw_mods: Mapping[Any, Any]
    ) -> None:
        for k, v in raw_state.items():
            name = k.decode() if isinstance(k, bytes) else k
            if name not in SECTION_MODELS:
                continue
            try:
                self._sections[name] = load_section(name, v)
            except ValueError as err:
                log.warning("agent %s: cannot reload section %s: %s", self.name, name, err)
        for k, v in raw_mods.items():
            name = k.decode() if isinstance(k, bytes) else k
            try:
                self._module_states[name] = json.loads(v)
            except ValueError as err:
                log.warning("agent %s: cannot reload module state %s: %s", self.name, name, err)


class StateStore:
    """All agents' state for one run. An async context manager that owns its flusher task."""

    def __init__(self, redis: Redis, run_id: str, *, flush_interval: float = 0.05) -> None:
        require_positive(flush_interval=flush_interval)
        self.redis = redis
        self.run_id = run_id
        self.flush_interval = flush_interval
        self._agents: dict[str, AgentState] = {}
        self._dirty: set[tuple[str, str]] = set()
        self._queued: list[tuple[Commands, asyncio.Future[list[Any]]]] = []
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._stopping = False
        self.ops = 0  # Redis commands sent
        self.flushes = 0
        self.errors = 0
        # the write-behind lag: from the first write left unflushed to the flush that wrote
        # it (the state writes a SIGKILL of the process can lose); see write_lag_max
        self._dirty_since: float | None = None
        self.write_lag_max = 0.0
        self._flush_lock = asyncio.Lock()

    async def __aenter__(self) -> StateStore:
        self._task = asyncio.create_task(self._flusher(), name=f"state[{self.run_id}].flusher")
        return self

    async def __aexit__(self, *exc: object) -> None:
        task, self._task = self._task, None
        if task is not None:
            self._stopping = True
            self._wake.set()
            try:
                await asyncio.wait_for(task, timeout=5.0)
            except (TimeoutError, asyncio.CancelledError, RedisError, OSError):
                task.cancel()
        await self.flush()

    def agent(self, name: str) -> AgentState:
        st = self._agents.get(name)
        if st is None:
            st = self._agents[name] = AgentState(self, name)
        return st

    @property
    def agent_names(self) -> list[str]:
        return list(self._agents)

    async def load_agent(self, name: str) -> AgentState:
        """Reload ``name`` from Redis (the source of truth) into the cache, once."""
        if not self.agent(name).loaded:
            await self.load_agents([name])
        return self.agent(name)

    async def load_agents(self, names: list[str], batch: int = 200) -> None:
        """Reload many agents in a few pipelines (village start-up at scale)."""
        for i in range(0, len(names), batch):
            chunk = names[i : i + batch]
            async with self.redis.pipeline(transaction=False) as pipe:
                for name in chunk:
                    pipe.hgetall(keys.state(self.run_id, name))
                    pipe.hgetall(keys.modules(self.run_id, name))
                pipe.sadd(keys.agents(self.run_id), *chunk)
                replies = await pipe.execute()
            self.ops += 2 * len(chunk) + 1
            for j, name in enumerate(chunk):
                st = self.agent(name)
                st._load(replies[2 * j], replies[2 * j + 1])
                st.loaded = True

    def _mark_dirty(self, agent: str, field: str) -> None:
        if self._dirty_since is None:
            self._dirty_since = time.monotonic()
        self._dirty.add((agent, field))
        self._wake.set()

    def reset_write_lag(self) -> None:
        """Start measuring :attr:`write_lag_max` afresh (seconds, the longest a state write
        waited in the cache before Redis acknowledged it)."""
        self.write_lag_max = 0.0

    async def pipelined(self, commands: Commands) -> list[Any]:
        """Run ``commands(pipe)`` in the next flush's transaction; their replies, in order.

        The flush comes within ``flush_interval``; a failed flush raises its error here (the
        commands are not retried: the caller decides). Without a running flusher (before
        ``__aenter__`` or after ``__aexit__``) the commands run at once in their own
        transaction."""
        if self._task is None or self._stopping:
            pipe = self.redis.pipeline(transaction=True)
            commands(pipe)
            n = len(pipe)
            replies = await pipe.execute() if n else []
            self.ops += n
            return list(replies)
        fut: asyncio.Future[list[Any]] = asyncio.get_running_loop().create_future()
        self._queued.append((commands, fut))
        self._wake.set()
        return await fut

    async def flush(self) -> int:
        """Write every dirty section and every queued caller's commands; returns the number
        of state fields written.

        In transactions of at most :data:`FLUSH_CHUNK` fields and commands each (a caller's
        commands are never split), each serialised just before it is sent: one transaction
        is a synchronous stretch of the event loop (serialising sections, packing and
        parsing commands), and a flush of a thousand fields in one went up to 70 ms.

        One flush at a time: a flush called while another is writing waits for it, so what
        was written before the call is in Redis when it returns (a digest taken after it
        sees every write made before it)."""
        async with self._flush_lock:
            return await self._flush()

    async def _flush(self) -> int:
        if not self._dirty and not self._queued:
            return 0
        dirty, self._dirty = self._dirty, set()
        queued, self._queued = self._queued, []
        since, self._dirty_since = self._dirty_since, None
        by_agent: dict[str, list[str]] = {}
        for agent, field in dirty:
            by_agent.setdefault(agent, []).append(field)
        chunks = _chunks(list(by_agent.items()), queued)
        written = 0
        for i, (agents, callers) in enumerate(chunks):
            try:
                written += await self._write_chunk(agents, callers)
            except BaseException as err:
                unsent: list[tuple[Commands, asyncio.Future[list[Any]]]] = []
                for j, (agents_left, callers_left) in enumerate(chunks[i:], start=i):
                    # nothing of these was written: the next flush writes them
                    self._dirty.update((a, f) for a, fields in agents_left for f in fields)
                    if j > i:
                        unsent += callers_left
                self._queued[:0] = unsent
                if since is not None:  # the unwritten fields have waited since then
                    self._dirty_since = since
                for _, fut in callers:
                    if not fut.done():
                        if isinstance(err, RedisError | OSError):
                            fut.set_exception(err)
                        else:
                            fut.cancel()
                if isinstance(err, RedisError | OSError):
                    self.errors += 1
                raise
        self.flushes += 1
        if since is not None:
            self.write_lag_max = max(self.write_lag_max, time.monotonic() - since)
        return written

    async def _write_chunk(
        self,
        agents: list[tuple[str, list[str]]],
        callers: list[tuple[Commands, asyncio.Future[list[Any]]]],
    ) -> int:
        """One transaction: these agents' dirty fields and these callers' commands."""
        spans: list[tuple[asyncio.Future[list[Any]], int, int]] = []
        async with self.redis.pipeline(transaction=True) as pipe:
            for agent, fields in agents:
                st = self._agents[agent]
                state: dict[FieldT, EncodableT] = {}
                mods: dict[FieldT, EncodableT] = {}
                for field in fields:
                    if field.startswith("module:"):
                        mod = field.removeprefix("module:")
                        mods[mod] = json.dumps(st._module_states.get(mod, {}))
                    else:
                        state[field] = st._sections[field].model_dump_json()
                if state:
                    pipe.hset(keys.state(self.run_id, agent), mapping=state)
                if mods:
                    pipe.hset(keys.modules(self.run_id, agent), mapping=mods)
            for commands, fut in callers:
                start = len(pipe)
                try:
                    commands(pipe)
                except Exception as err:  # a caller's bug fails that caller only
                    del pipe.command_stack[start:]
                    if not fut.done():
                        fut.set_exception(err)
                    continue
                spans.append((fut, start, len(pipe)))
            replies = await pipe.execute() if len(pipe) else []
        for fut, start, end in spans:
            if not fut.done():  # (a caller that timed out no longer waits)
                fut.set_result(list(replies[start:end]))
        self.ops += len(replies)
        return sum(len(fields) for _, fields in agents)

    async def _flusher(self) -> None:
        backoff = self.flush_interval
        while not self._stopping:
            await self._wake.wait()
            self._wake.clear()
            if self._stopping:
                return  # __aexit__ does the final flush
            try:
                await self.flush()
                backoff = self.flush_interval
            except (RedisError, OSError) as err:
                log.warning("state flush failed (%s); retrying in %.2fs", err, backoff)
                self._wake.set()
                backoff = min(backoff * 2, 5.0)
            await asyncio.sleep(backoff)
