"""A member's view for the democracy policies, read from that agent's own Agent State.

Only the member's own sections and memory stream are read: its identity (name, traits),
its current goal, its conversation section (lines and announcements it heard, oldest
first), its memory stream in Redis,
its own ``Social.opinions`` and the tax topic its village handed it (``Identity.topics``). The
constitution text is the one the experiment announced to
everyone. Nothing of the experiment's ledger (roster, roles, rates) enters.
"""

from __future__ import annotations

from typing import Any

from agent_runtime.state.sections import Conversation, Goals, Identity, Social
from experiments.tax.democracy import TOPIC, HeardLine, HeuristicSettings, MemberView
from modules.memory import MemoryRecord, stream_prefix


async def recent_memories(redis: Any, run_id: str, name: str, n: int) -> tuple[str, ...]:
    """The texts of an agent's latest ``n`` memories (oldest first), seeds excluded (those
    repeat its identity)."""
    if n <= 0 or redis is None:
        return ()
    raw = await redis.hgetall(stream_prefix(run_id, name) + "records")
    records = sorted((MemoryRecord.model_validate_json(v) for v in (raw or {}).values()),
                     key=lambda r: r.id)
    return tuple(r.text for r in records if r.kind != "seed")[-n:]


async def member_view(
    village: Any, name: str, constitution: str, s: HeuristicSettings
) -> MemberView:
    st = village.store.agent(name)
    ident = st.get("identity", Identity)
    conv = st.get("conversation", Conversation)
    social = st.get("social", Social)
    seen = {(u.speaker, u.text, u.at) for u in conv.lines}
    lines = [*conv.lines, *(a for a in conv.announcements if (a.speaker, a.text, a.at) not in seen)]
    heard = [HeardLine(speaker=u.speaker, text=u.text)
             for u in sorted(lines, key=lambda u: u.at) if u.speaker != name]
    memories = await recent_memories(village.services.redis, village.run_id, name, s.memories)
    return MemberView(
        name=ident.name or name,
        traits=tuple(ident.traits),
        goal=st.get("goals", Goals).current,
        heard=tuple(heard[-s.heard_lines:]) if s.heard_lines else (),
        memories=memories,
        opinion=social.opinions.get(TOPIC),
        constitution=constitution,
        topic=next((t for t in ident.topics if t.name == TOPIC), None),
    )
