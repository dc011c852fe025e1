"""Talking: what the agent says, conditioned on the controller's broadcast decision.

It wakes on heard speech (recording it in the ``conversation`` section and
marking who waits for an answer, which wakes the controller) and on decisions
(one utterance per decision that carries a speech intent). Words of others are
stored as untrusted data and reach prompts only inside delimiters.
"""

from __future__ import annotations

import random
import re
import time
from typing import Any, ClassVar

from pydantic import BaseModel, Field, ValidationError

from agent_runtime.interfaces import Module
from agent_runtime.module_context import ModuleContext
from agent_runtime.state.sections import Conversation, Decision, Identity, Utterance
from agent_runtime.world import SkillCall
from modules.base import remember
from modules.brain import choose
from modules.prompts import untrusted

LINES = 30
MAX_CHARS = 240


class UtteranceOut(BaseModel):
    text: str = Field(
        max_length=MAX_CHARS, description="exactly what you say, one or two sentences"
    )
    end_conversation: bool = False


def heuristic_utterance(decision: Decision, me: str) -> str:
    """Turn the decision's speech intent into words that agree with its action."""
    intent = decision.speech_intent.strip()
    to = decision.speak_to
    call = decision.skill
    hello = f"{to}, " if to else ""
    if call is not None and call.skill == "give":
        n, item = call.args.get("count", 1), str(call.args.get("item", "")).replace("_", " ")
        return f"Sure {to}, here is {n} {item}." if to else f"Here is {n} {item}."
    m = re.search(r"politely refuse .*request for (.+)$", intent)
    if m:
        return f"Sorry {hello}I can't spare any {m.group(1)} right now."
    m = re.search(r"that I have no (.+?) to give", intent)
    if m:
        return f"Sorry {hello}I don't have any {m.group(1)}."
    m = re.search(r"greet \w+ back and mention that I (.+)$", intent)
    if m:
        return f"Hi {to}! I'm trying to {m.group(1)}." if to else f"Hi! I'm trying to {m.group(1)}."
    m = re.search(r"that I am (?:working to|going to) (.+)$", intent)
    if m:
        return f"Hey {hello}I'm going to {m.group(1)}."
    if intent.startswith("acknowledge"):
        return f"Got it, {to}." if to else "Got it."
    m = re.search(r":\s*(.+)$", intent)
    if m:
        return m.group(1)[0].upper() + m.group(1)[1:] + "."
    return intent[0].upper() + intent[1:] if intent else ""


_WARM = ("generous", "cheerful", "outgoing", "honest", "humble", "patient", "kind", "friendly")
_COLD = ("grumpy", "hot-tempered", "boastful", "sly", "stingy", "lazy", "rude")
_WARM_WORDS = ("Thanks, friend!", "Great to see you!", "Glad we work together.", "Happy to help!")
_COLD_WORDS = (
    "Ugh, whatever.",
    "Leave me alone after this.",
    "Don't be annoying.",
    "No way I do more.",
)


def with_tone(text: str, traits: tuple[str, ...], rng: random.Random) -> str:
    """Colour heuristic speech by personality: warm traits add friendly words, cold ones hostile."""
    joined = " ".join(traits).lower()
    warm = sum(w in joined for w in _WARM)
    cold = sum(w in joined for w in _COLD)
    if warm > cold and rng.random() < 0.6:
        return f"{text} {rng.choice(_WARM_WORDS)}"
    if cold > warm and rng.random() < 0.6:
        return f"{text} {rng.choice(_COLD_WORDS)}"
    return text


class Talking(Module):
    name: ClassVar[str] = "talking"
    reads: ClassVar[frozenset[str]] = frozenset({"identity", "conversation", "decision"})
    writes: ClassVar[frozenset[str]] = frozenset({"conversation"})

    def __init__(self, schedule: Any) -> None:
        super().__init__(schedule)
        self.utterances = 0

    def get_state(self) -> dict[str, Any]:
        return {"utterances": self.utterances}

    def set_state(self, state: Any) -> None:
        self.utterances = int(state.get("utterances", 0))

    async def step(self, ctx: ModuleContext) -> None:
        me = ctx.read("identity", Identity).name
        heard = ctx.pending("topic:heard")
        if heard:
            self._record_heard(ctx, heard_payloads=[m.payload for m in heard])
        for msg in ctx.pending("topic:decision"):
            try:
                decision = Decision.model_validate(msg.payload)
            except ValidationError:
                continue
            if decision.speech_intent:
                await self._speak(ctx, me, decision)

    def _record_heard(self, ctx: ModuleContext, heard_payloads: list[dict[str, Any]]) -> None:
        conv = ctx.read("conversation", Conversation)
        lines = list(conv.lines)
        pending = conv.pending_reply_to
        for p in heard_payloads:
            u = Utterance(
                speaker=str(p.get("sender")),
                text=str(p.get("message", ""))[:MAX_CHARS],
                to=ctx.agent if p.get("to_me") else None,
                at=float(p.get("at", time.time())),
            )
            lines.append(u)
            if p.get("to_me"):
                pending = u.speaker
        ctx.write(
            "conversation",
            conv.model_copy(
                update={
                    "lines": tuple(lines[-LINES:]),
                    "pending_reply_to": pending,
                    "partner": pending or conv.partner,
                    "updated_at": time.time(),
                }
            ),
        )

    async def _speak(self, ctx: ModuleContext, me: str, decision: Decision) -> None:
        conv = ctx.read("conversation", Conversation)
        history = (
            "\n".join(
                f"{u.speaker}: {untrusted(u.text) if u.speaker != me else u.text}"
                for u in conv.lines[-8:]
            )
            or "(no conversation yet)"
        )
        ident = ctx.read("identity", Identity)

        def heuristic() -> UtteranceOut:
            words = with_tone(heuristic_utterance(decision, me), ident.traits, ctx.rng)
            return UtteranceOut(text=words[:MAX_CHARS])

        out, brain = await choose(
            ctx,
            "talking",
            UtteranceOut,
            {
                "name": me,
                "traits": " ".join(ident.traits) or "(none)",
                "decision": decision.intent,
                "action": decision.skill.describe() if decision.skill else "none",
                "speech_intent": decision.speech_intent,
                "addressee": decision.speak_to or "everyone nearby",
                "history": history,
            },
            heuristic,
            max_tokens=120,
        )
        text = " ".join(out.text.split())[:MAX_CHARS]
        if not text:
            return
        to = decision.speak_to
        call = (
            SkillCall(skill="whisper", args={"player": to, "message": text})
            if to and decision.speech_intent.startswith("whisper")
            else SkillCall(skill="chat", args={"message": text})
        )
        try:
            outcome = await ctx.body.run_skill(call)
            delivered = outcome.success
        except Exception:
            delivered = False
        u = Utterance(speaker=me, text=text, to=to, decision_id=decision.id, untrusted=False)
        ctx.write(
            "conversation",
            conv.model_copy(
                update={
                    "lines": (*conv.lines[-(LINES - 1) :], u),
                    "last_utterance": u,
                    "pending_reply_to": None
                    if to == conv.pending_reply_to
                    else conv.pending_reply_to,
                    "partner": None if out.end_conversation else (to or conv.partner),
                    "brain": brain,
                    "updated_at": time.time(),
                }
            ),
        )
        self.utterances += 1
        await ctx.publish(
            "speech",
            {
                "speaker": me,
                "text": text,
                "to": to,
                "decision": decision.id,
                "brain": brain,
                "delivered": delivered,
            },
        )
        ctx.emit(
            "speech",
            text=text,
            to=to,
            decision=decision.id,
            brain=brain,
            delivered=delivered,
            decision_skill=decision.skill.model_dump(mode="json") if decision.skill else None,
        )
        remember(ctx, f"I said{' to ' + to if to else ''}: «{text}»", "conversation")
