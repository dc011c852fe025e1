"""Talking: what the agent says, rendered from the controller's typed utterance goal.

It wakes on heard speech (recording it in the ``conversation`` section, announcements
also in ``announcements``, and marking who waits for an answer, which wakes the
controller) and on decisions: one utterance per decision that carries a ``say`` goal.
Before speaking to someone it retrieves its own memories about that person (the person and
topic as the focal point of a Generative-Agents retrieval). The words come from the talking
policy (heuristic templates or the LLM prompt ``prompts/talking.md``), both fed the same
:class:`~modules.views.TalkView`.
"""

from __future__ import annotations

from typing import Any, ClassVar

from agent_runtime.bus.messages import DECISION, HEARD, SPEECH, Heard, Speech
from agent_runtime.module import Module
from agent_runtime.module_context import ModuleContext
from agent_runtime.state.sections import (
    Conversation,
    Decision,
    Identity,
    Utterance,
    UtteranceGoal,
)
from agent_runtime.world import SkillCall, validate_skill
from modules.base import appended, remember
from modules.heuristics.talking import MAX_CHARS, UtteranceOut, speak
from modules.memory_module import StreamSlot
from modules.policies import decide, module_policy
from modules.views import TalkView, talk_view

LINES = 30
ANNOUNCEMENTS = 5
#: Seconds (times the time scale) after which a decision is too old to be spoken.
STALE_S = 10.0
#: Memories about the addressee retrieved before speaking (Generative Agents), and their budget.
ABOUT_K = 5
ABOUT_TOKENS = 300

__all__ = ["LINES", "Talking", "UtteranceOut"]


class Talking(Module):
    name: ClassVar[str] = "talking"
    reads: ClassVar[frozenset[str]] = frozenset({"identity", "conversation", "decision"})
    writes: ClassVar[frozenset[str]] = frozenset({"conversation"})

    def __init__(self, schedule: Any, slot: StreamSlot | None = None) -> None:
        super().__init__(schedule)
        self.slot = slot or StreamSlot()  # the agent's memory stream, opened by memory
        self.utterances = 0

    def get_state(self) -> dict[str, Any]:
        return {"utterances": self.utterances}

    def set_state(self, state: Any) -> None:
        self.utterances = int(state.get("utterances", 0))

    async def step(self, ctx: ModuleContext) -> None:
        heard = ctx.pending(HEARD)
        if heard:
            self._record_heard(ctx, heard)
        latest: Decision | None = None
        for decision in ctx.pending(DECISION):
            if decision.say is not None:
                latest = decision  # only the newest thing to say is said
        if latest is not None and self._fresh(ctx, latest):
            await self._speak(ctx, latest)

    @staticmethod
    def _fresh(ctx: ModuleContext, decision: Decision) -> bool:
        """A decision older than ``STALE_S`` (scaled) is not spoken: after a reconnect or a
        slow model, the moment it answered has passed."""
        age = ctx.clock.now() - decision.updated_at
        return decision.updated_at == 0 or age <= STALE_S * ctx.clock.time_scale

    def _record_heard(self, ctx: ModuleContext, heard: list[Heard]) -> None:
        conv = ctx.read("conversation", Conversation)
        lines, news = list(conv.lines), list(conv.announcements)
        pending = conv.pending_reply_to
        now = ctx.clock.now()
        for h in heard:
            u = Utterance(
                speaker=h.sender,
                text=h.message[:MAX_CHARS],
                to=ctx.agent if h.to_me else None,
                at=h.at or now,
                announcement=h.announcement,
                noted_at=now,  # from now on the controller can know it (heard earlier)
            )
            lines.append(u)
            if u.announcement:
                news.append(u)
            if h.to_me:
                pending = u.speaker
        ctx.write(
            "conversation",
            conv.model_copy(
                update={
                    "lines": tuple(lines[-LINES:]),
                    "announcements": tuple(news[-ANNOUNCEMENTS:]),
                    "pending_reply_to": pending,
                    "partner": pending or conv.partner,
                    "updated_at": now,
                }
            ),
        )

    async def _speak(self, ctx: ModuleContext, decision: Decision) -> None:
        ident = ctx.read("identity", Identity)
        conv = ctx.read("conversation", Conversation)
        memories = await self._about(ctx, decision.say) if decision.say else ()
        view = talk_view(ident, decision, conv, memories)
        if view is None:
            return
        policy = module_policy(ctx, UtteranceOut, speak, prompt="talking", max_tokens=120)
        got = await decide(ctx, policy, view)
        if not self._fresh(ctx, decision):  # a slow model: the moment has passed
            ctx.emit("speech_dropped", decision=decision.id, reason="stale")
            return
        await self._say(ctx, view, decision, got.value, got.brain)

    async def _about(self, ctx: ModuleContext, say: UtteranceGoal) -> tuple[str, ...]:
        """What the agent remembers about the person it talks to: its own memory stream
        retrieved with that person (and the topic) as the focal point, keeping the memories
        that name them (Generative Agents retrieves on the partner before each reply)."""
        stream = self.slot.stream
        if not say.to or stream is None:
            return ()
        query = " ".join(x for x in (say.to, say.topic or "") if x)
        hits = await stream.retrieve(query, k=ABOUT_K, token_budget=ABOUT_TOKENS)
        return tuple(h.record.text for h in hits if say.to.lower() in h.record.text.lower())

    async def _say(
        self, ctx: ModuleContext, view: TalkView, decision: Decision, out: UtteranceOut, brain: str
    ) -> None:
        text = " ".join(out.text.split())[:MAX_CHARS]
        if not text:
            return
        me, to = view.name, view.say.to
        call = (
            SkillCall(skill="whisper", args={"player": to, "message": text})
            if to and view.say.whisper
            else SkillCall(skill="chat", args={"message": text})
        )
        try:  # the line's arguments are checked here, where the call is made, and only here
            outcome = await ctx.body.run_skill(validate_skill(call))
            delivered = outcome.success
        except Exception:  # a line its skill's model refuses, or a body that failed
            delivered = False
        now = ctx.clock.now()
        u = Utterance(
            speaker=me, text=text, to=to, at=now, decision_id=decision.id, untrusted=False
        )
        conv = ctx.read("conversation", Conversation)
        # what this answers is what the controller knew when it decided, not what was heard
        # by the time the words were out (a line noted meanwhile is still waiting for one)
        decided = decision.updated_at or now
        spoke = max(conv.spoke_to.get(to or "", 0.0), decided)
        ctx.write(
            "conversation",
            conv.model_copy(
                update={
                    "lines": appended(conv.lines, u, LINES),
                    "last_utterance": u,
                    "spoke_to": {**conv.spoke_to, to or "": spoke},
                    "pending_reply_to": None
                    if to == conv.pending_reply_to
                    else conv.pending_reply_to,
                    "partner": None if out.end_conversation else (to or conv.partner),
                    "brain": brain,
                    "updated_at": now,
                }
            ),
        )
        self.utterances += 1
        await ctx.publish(
            SPEECH,
            Speech(
                speaker=me,
                text=text,
                to=to,
                decision=decision.id,
                brain=brain,
                delivered=delivered,
            ),
        )
        ctx.emit(
            "speech",
            text=text,
            to=to,
            decision=decision.id,
            brain=brain,
            delivered=delivered,
            goal=view.say.kind.value,
            decision_skill=decision.skill.model_dump(mode="json") if decision.skill else None,
        )
        remember(ctx, f"I said{' to ' + to if to else ''}: «{text}»", "conversation")
