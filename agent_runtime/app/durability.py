"""What the runtime promises to keep through a crash, and the check of that promise by content.

How the writes go (``agent_runtime/state/store.py``, ``modules/memory/store.py``,
``agent_runtime/services/redis_server.py``):

- a state section is written to the process's cache at once and to Redis by the store's
  write-behind flush, every ``flush_interval`` (50 ms) in one MULTI/EXEC transaction;
- a memory record joins that same transaction, and the stream keeps it only once Redis
  acknowledged it (an agent never knows a memory Redis does not hold);
- the embedded Redis appends every acknowledged write to its append-only file before it
  answers (``appendonly yes``) and fsyncs that file once a second (``appendfsync everysec``).

So, by what is lost:

- **SIGKILL of Redis**: nothing Redis acknowledged (the kernel holds the appended file); the
  state written while it is down waits in the cache and is flushed when it is back;
- **SIGKILL of the village**: no memory record; state writes of at most the write-behind lag
  (``flush_interval`` plus one transaction; :attr:`StateStore.write_lag_max` measures it);
- **power loss of the machine**: that, plus what Redis had not fsynced yet: at most 1 s (2 s
  when the disk stalls; Redis counts those stalls as ``aof_delayed_fsync``).

:func:`content_digest` reads every agent's state sections and memory records with a fresh
client; :func:`compare` says, between a digest taken just before a fault (after a flush) and
one taken after the recovery, which records are missing or changed. A section counts as kept
when it is byte for byte the same or was written again since (a later ``updated_at``); a
memory record when its content is the same (``last_accessed`` is rewritten by every
retrieval, so it is not part of the content). Anything missing or changed that was written
more than ``window_s`` before the fault breaks the promise.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from redis.asyncio import Redis

from agent_runtime.state import keys

__all__ = [
    "AOF_FSYNC_S",
    "Digest",
    "Entry",
    "compare",
    "content_digest",
    "fsync_policy",
    "intact",
    "promise",
]

#: the embedded Redis's fsync period (``appendfsync everysec``)
AOF_FSYNC_S = 1.0
#: fields of a memory record that a retrieval rewrites (not part of its content)
_MUTABLE = ("last_accessed",)


@dataclass(frozen=True)
class Entry:
    """One stored record: its content's hash, when it was written (wall time, 0 if unknown)
    and its raw text (a section's JSON; kept to roll a section back on purpose)."""

    sha: str
    at: float
    raw: str = ""


@dataclass
class Digest:
    """``(agent, "section:NAME" | "memory:ID") -> Entry`` for every agent read."""

    entries: dict[tuple[str, str], Entry] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.entries)


def _text(v: bytes | str) -> str:
    return v.decode("utf-8") if isinstance(v, bytes) else v


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


async def content_digest(url: str, run_id: str, agents: list[str]) -> Digest:
    """Every agent's state sections and memory records, read by a client of its own."""
    client: Redis = Redis.from_url(url, socket_timeout=10)
    digest = Digest()
    try:
        async with client.pipeline(transaction=True) as pipe:
            for name in agents:
                pipe.hgetall(keys.state(run_id, name))
                pipe.hgetall(f"{keys.agent_prefix(run_id, name)}:mem:records")
            replies = await pipe.execute()
    finally:
        await client.aclose()
    for i, name in enumerate(agents):
        for k, v in replies[2 * i].items():
            raw = _text(v)
            at = float(json.loads(raw).get("updated_at", 0.0))
            digest.entries[(name, f"section:{_text(k)}")] = Entry(_sha(raw), at, raw)
        for k, v in replies[2 * i + 1].items():
            record = json.loads(_text(v))
            for key in _MUTABLE:
                record.pop(key, None)
            content = json.dumps(record, sort_keys=True)
            digest.entries[(name, f"memory:{_text(k)}")] = Entry(_sha(content), 0.0)
    return digest


def compare(before: Digest, after: Digest, *, fault_at: float, window_s: float) -> dict[str, Any]:
    """What of ``before`` came back in ``after``: counts, and the first few keys missing or
    changed. ``missing``/``changed`` count what breaks the promise (written more than
    ``window_s`` before ``fault_at``, or with no time: memory records); ``*_in_window`` what the
    promise allows to be lost; ``rewritten`` the sections written again since."""
    out: dict[str, Any] = {
        "records_before": len(before),
        "records_after": len(after),
        "memories_before": sum(k[1].startswith("memory:") for k in before.entries),
        "missing": 0,
        "missing_memories": 0,
        "changed": 0,
        "missing_in_window": 0,
        "changed_in_window": 0,
        "rewritten": 0,
        "examples": [],
    }
    for key, was in before.entries.items():
        now = after.entries.get(key)
        if now is not None and now.sha == was.sha:
            continue
        if now is not None and key[1].startswith("section:") and now.at > was.at:
            out["rewritten"] += 1
            continue
        what = "missing" if now is None else "changed"
        allowed = was.at > 0 and was.at >= fault_at - window_s
        out[f"{what}_in_window" if allowed else what] += 1
        if now is None and key[1].startswith("memory:"):
            out["missing_memories"] += 1
        if not allowed and len(out["examples"]) < 5:
            out["examples"].append(f"{what} {key[0]} {key[1]}")
    return out


def intact(comparison: dict[str, Any]) -> bool:
    """Nothing older than the promised window missing or changed, and something to compare."""
    return bool(
        comparison["records_before"] > 0
        and comparison["missing"] == 0
        and comparison["changed"] == 0
    )


async def fsync_policy(url: str) -> dict[str, Any]:
    """The Redis's append-only settings and fsync stalls, as it reports them."""
    client: Redis = Redis.from_url(url, socket_timeout=10, decode_responses=True)
    try:
        conf = await client.config_get("append*")
        info = await client.info("persistence")
    finally:
        await client.aclose()
    return {
        "appendonly": str(conf.get("appendonly", "")),
        "appendfsync": str(conf.get("appendfsync", "")),
        "aof_delayed_fsync": int(info.get("aof_delayed_fsync", 0)),
    }


def promise(
    flush_interval_s: float, write_lag_max_s: float, redis: dict[str, Any]
) -> dict[str, Any]:
    """The durability promise with the figures measured in this run: the most of the latest
    writes each crash can lose, in milliseconds."""
    lag_ms = round(max(flush_interval_s, write_lag_max_s) * 1000, 1)
    fsync_ms = 1000 * AOF_FSYNC_S * (2 if redis.get("aof_delayed_fsync") else 1)
    return {
        "flush_interval_ms": round(flush_interval_s * 1000, 1),
        "write_lag_max_ms": round(write_lag_max_s * 1000, 1),
        **redis,
        "lost_at_most_ms": {
            "kill_redis": 0,
            "sigkill_village": {"state": lag_ms, "memories": 0},
            "power_loss": {"state": lag_ms + fsync_ms, "memories": fsync_ms},
        },
    }
