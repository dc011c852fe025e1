"""Perception: body observation snapshots and body events -> the ``perception`` section,
heard speech for the other modules, and deduplicated observation memories.

Every timed step (once a cadence) takes one coarse snapshot from the body (one bridge call).
A step woken early by an event (a line heard, a death, a join) handles the event at once and
takes no snapshot when the last one is younger than the cadence: the next timed step, within
one cadence, takes it. Chat and other body events arrive as messages on the agent's
``event`` topic (the agent's body-event pump publishes them); heard lines are re-published
on the agent's ``heard`` topic for talking, social awareness and the controller. The body hears
public chat only within ``world.hearing_radius`` of the speaker and whispers anywhere
(``bots/body/lib/hearing.js``), so everything downstream uses what was heard, not what
was said. Announcements on ``world:event`` are the world speaking to every agent of the
run (a herald): heard by all, wherever they stand. Memories are
written only when something changes (who is near, a new kind of notable block,
a death), not once per tick.
"""

from __future__ import annotations

import asyncio
import collections
import logging
from typing import Any, ClassVar

from agent_runtime.bus.messages import BODY_EVENT, HEARD, WORLD_EVENT, Heard, WorldEvent
from agent_runtime.module import Module
from agent_runtime.module_context import ModuleContext
from agent_runtime.state.sections import Identity, Perception
from agent_runtime.world import BodyEvent, Observation
from modules.base import remember, short

log = logging.getLogger(__name__)

NEAR_RADIUS = 24.0


class PerceptionModule(Module):
    name: ClassVar[str] = "perception"
    reads: ClassVar[frozenset[str]] = frozenset({"identity", "perception"})
    writes: ClassVar[frozenset[str]] = frozenset({"perception"})

    observe_timeout = 5.0
    # a body that does not answer this many observations in a row is perceived as cut off;
    # before that, a missed snapshot (a starved bridge call) keeps what was last seen
    cut_off_after = 3

    def __init__(self, schedule: Any) -> None:
        super().__init__(schedule)
        self._near: frozenset[str] = frozenset()
        self._block_kinds: set[str] = set()
        self._seen_chat: collections.deque[tuple[str, str]] = collections.deque(maxlen=64)
        self._deaths = 0
        self._missed = 0
        self._observed_at: float | None = None  # event-loop time of the last snapshot asked
        self._triggered_seen = 0  # the runner's count of triggered steps, as last seen

    def get_state(self) -> dict[str, Any]:
        return {"deaths": self._deaths, "block_kinds": sorted(self._block_kinds)}

    def set_state(self, state: Any) -> None:
        self._deaths = int(state.get("deaths", 0))
        self._block_kinds = set(state.get("block_kinds", []))

    async def step(self, ctx: ModuleContext) -> None:
        me = ctx.read("identity", Identity).name
        for ev in ctx.pending(BODY_EVENT):
            await self._on_event(ctx, me, ev)
        for news in ctx.pending(WORLD_EVENT):
            await self._on_announcement(ctx, news)
        if not self._snapshot_due(ctx):
            prev = ctx.read("perception", Perception)
            if prev.updated_at and prev.deaths != self._deaths:
                ctx.write(
                    "perception",
                    prev.model_copy(update={"deaths": self._deaths, "updated_at": ctx.clock.now()}),
                )
            return  # the snapshot taken less than a cadence ago stands
        obs = await self._observe(ctx)
        if obs is None:
            return  # nothing new seen: the last observation stands
        near = frozenset(p.name for p in obs.players if p.distance <= NEAR_RADIUS and p.name != me)
        if near != self._near:
            arrived = sorted(near - self._near)
            left = sorted(self._near - near)
            if arrived:
                remember(ctx, f"I see {', '.join(arrived)} nearby.", "observation")
            if left:
                remember(ctx, f"{', '.join(left)} left.", "observation")
            self._near = near
        for b in obs.blocks:
            if b.name not in self._block_kinds:
                self._block_kinds.add(b.name)
                remember(
                    ctx, f"I noticed {b.name.replace('_', ' ')} at {b.position}.", "observation"
                )
        prev = ctx.read("perception", Perception)
        if (
            prev.updated_at
            and prev.others_near == tuple(sorted(near))
            and prev.deaths == self._deaths
            and prev.observation.model_copy(update={"at": obs.at}) == obs
        ):
            return  # nothing changed: no write, no wake-ups, no Redis traffic
        ctx.write(
            "perception",
            prev.model_copy(
                update={
                    "observation": obs,
                    "others_near": tuple(sorted(near)),
                    "deaths": self._deaths,
                    "updated_at": ctx.clock.now(),
                }
            ),
        )

    def _snapshot_due(self, ctx: ModuleContext) -> bool:
        """Whether this step takes a snapshot: every step but one woken early by a trigger
        (the runner counts those in ``ctx.stats.triggered``) while the last snapshot is
        younger than the cadence. Without a cadence every step takes one."""
        triggered = ctx.stats.triggered != self._triggered_seen
        self._triggered_seen = ctx.stats.triggered
        now = asyncio.get_running_loop().time()
        cadence = self.schedule.cadence
        if (
            triggered
            and cadence is not None
            and self._observed_at is not None
            and now - self._observed_at < cadence * ctx.clock.time_scale
        ):
            return False
        self._observed_at = now
        return True

    async def _observe(self, ctx: ModuleContext) -> Observation | None:
        """The body's snapshot; ``None`` when it did not answer this time (what was last
        seen stands: the agent does not forget its inventory because one bridge call was
        slow); after ``cut_off_after`` misses in a row, the last snapshot marked not
        connected (what it held and saw is still what it remembers)."""
        try:
            async with asyncio.timeout(self.observe_timeout):
                obs = await ctx.body.observe()
        except Exception as err:  # a timeout or a dead bridge must not kill the module loop
            self._missed += 1
            if self._missed == self.cut_off_after:
                log.warning("agent[%s] observe failed %d times: %r", ctx.agent, self._missed, err)
            if self._missed < self.cut_off_after:
                return None
            last = ctx.read("perception", Perception).observation
            return last.model_copy(update={"connected": False, "players": (), "skill": None})
        self._missed = 0
        return obs

    async def _on_announcement(self, ctx: ModuleContext, ev: WorldEvent) -> None:
        """A world announcement becomes a public line heard from its speaker, and a memory.

        Only ``kind``, ``speaker``, ``text`` and ``at`` are read: nothing else on the
        world topic reaches the agent."""
        if ev.kind != "announcement" or not ev.text:
            return
        speaker = ev.speaker or "announcer"
        heard = Heard(
            sender=speaker, message=ev.text, announcement=True, at=ev.at or ctx.clock.now()
        )
        await ctx.publish(HEARD, heard)
        remember(
            ctx, f"Announcement from {speaker}: {short(ev.text, 400)}", "observation", importance=6
        )

    async def _on_event(self, ctx: ModuleContext, me: str, ev: BodyEvent) -> None:
        kind, data = ev.kind, ev.data
        if kind in ("chat", "whisper"):
            sender = str(data.get("sender") or data.get("username") or "")
            message = str(data.get("message", ""))
            if not sender or sender == me or not message:
                return
            key = (sender, message)
            if key in self._seen_chat and kind == "chat":
                return
            self._seen_chat.append(key)
            whisper = kind == "whisper"
            to_me = whisper or me.lower() in message.lower()
            heard = Heard(
                sender=sender,
                message=message,
                whisper=whisper,
                to_me=to_me,
                at=ev.at or ctx.clock.now(),
            )
            await ctx.publish(HEARD, heard)
            how = "whispered to me" if whisper else "said"
            remember(ctx, f"{sender} {how}: «{short(message, 200)}»", "conversation")
        elif kind == "death":
            self._deaths += 1
            remember(ctx, "I died and respawned.", "observation", importance=8)
        elif kind in ("kicked", "disconnected"):
            remember(ctx, f"I lost my connection to the world ({kind}).", "observation")
        elif kind == "item_picked_up":
            pass  # inventory changes reach memory through action outcomes
        elif kind == "player_joined":
            who = str(data.get("player", ""))
            if who and who != me:
                remember(ctx, f"{who} joined the world.", "observation")
