"""A recovery broken on purpose, to see the content checks of ``piano faults`` catch it.

- ``empty``: Redis comes back without its data (its append-only files are deleted between
  the kill and the restart);
- ``memory``: one memory record that was stored before the fault is gone after it;
- ``section``: one state section is back at an older version (the one a digest taken earlier
  saw, or the section's start value when it never changed in between).

``empty`` acts on the data folder while Redis is down; the other two on the recovered Redis,
with a client of their own, just before the digest taken after the recovery.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from redis.asyncio import Redis

from agent_runtime.app.durability import Digest, Entry
from agent_runtime.state import keys
from agent_runtime.state.sections import default_section

__all__ = ["BREAKS", "damage", "empty_store"]

BREAKS = ("empty", "memory", "section")


def empty_store(data_dir: Path) -> None:
    """Delete a stopped Redis's append-only files (and any snapshot): it starts empty."""
    shutil.rmtree(data_dir / "appendonlydir", ignore_errors=True)
    (data_dir / "dump.rdb").unlink(missing_ok=True)


def _rollback(before: Digest, earlier: Digest) -> tuple[tuple[str, str], str]:
    """The section to roll back and its older JSON: one that changed since ``earlier`` (the
    least recently written), else the least recently written one, back to its start value."""
    sections = sorted(
        ((k, e) for k, e in before.entries.items() if k[1].startswith("section:") and e.at > 0),
        key=lambda ke: ke[1].at,
    )
    if not sections:
        raise ValueError("no written section to roll back")
    for key, now in sections:
        old: Entry | None = earlier.entries.get(key)
        if old is not None and old.sha != now.sha and old.at < now.at:
            return key, old.raw
    key = sections[0][0]
    return key, default_section(key[1].removeprefix("section:")).model_dump_json()


async def damage(url: str, run_id: str, kind: str, before: Digest, earlier: Digest) -> str:
    """Break the recovered store as ``kind`` says; what was broken (for the report)."""
    client: Redis = Redis.from_url(url, socket_timeout=10)
    try:
        if kind == "memory":
            agent, name = min(k for k in before.entries if k[1].startswith("memory:"))
            rid = name.removeprefix("memory:")
            await client.hdel(f"{keys.agent_prefix(run_id, agent)}:mem:records", rid)
            return f"deleted memory {rid} of {agent}"
        if kind == "section":
            (agent, name), raw = _rollback(before, earlier)
            section = name.removeprefix("section:")
            await client.hset(keys.state(run_id, agent), section, raw)
            return f"rolled back section {section} of {agent}"
        raise ValueError(f"not a break done on a running store: {kind!r}")
    finally:
        await client.aclose()
