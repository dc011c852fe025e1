"""The Cognitive Controller: the one module that decides, seeing the state only through
the bottleneck, and broadcasts its decision on MQTT (``agent/<name>/decision``).

Talking and skill execution subscribe to that topic, so what the agent says and
what it does come from the same decision. A new decision is published only when
it changes something (a new skill, something to say) or the previous one is done.
Coherence guard: a decision whose speech announces an action must carry that
action (see :func:`coherent`).
"""

from __future__ import annotations

import re
import time
import uuid
from typing import Any, ClassVar

from pydantic import BaseModel, Field, ValidationError

from agent_runtime.bottleneck import BottleneckView, build_view
from agent_runtime.interfaces import Module, Schedule
from agent_runtime.module_context import ModuleContext
from agent_runtime.state.sections import Decision
from agent_runtime.world import SKILLS, SkillCall, validate_skill
from modules.base import remember, short
from modules.brain import HEURISTIC, choose
from modules.knowledge import FOODS, LOGS, PLANKS
from modules.techtree import craft_step, next_step


class DecisionOut(BaseModel):
    """What the LLM policy must return."""

    intent: str = Field(max_length=300, description="what you will do now, in a short sentence")
    skill: str | None = Field(default=None, description="one skill name, or null to keep going")
    args: dict[str, Any] = Field(default_factory=dict)
    speech_intent: str = Field(
        default="", max_length=300, description="what to say; empty = silent"
    )
    speak_to: str | None = None
    reason: str = Field(default="", max_length=300)


_REQUEST = re.compile(
    r"\b(give|bring|share|spare|lend|need|want|can i have|could i have|may i have|pass)\b", re.I
)
_GREETING = re.compile(r"\b(hi|hello|hey|good (morning|day|evening)|greetings)\b", re.I)
_QUESTION_DOING = re.compile(r"\b(what are you (doing|up to)|what's up|busy)\b", re.I)
_ITEM_ALIASES: dict[str, tuple[str, ...]] = {
    "wood": LOGS + PLANKS,
    "log": LOGS,
    "logs": LOGS,
    "plank": PLANKS,
    "planks": PLANKS,
    "food": FOODS,
    "bread": ("bread",),
    "pickaxe": ("stone_pickaxe", "wooden_pickaxe", "iron_pickaxe"),
    "stone": ("cobblestone",),
    "cobblestone": ("cobblestone",),
    "coal": ("coal",),
    "iron": ("iron_ingot", "iron_ore"),
    "stick": ("stick",),
    "sticks": ("stick",),
    "table": ("crafting_table",),
    "wheat": ("wheat",),
    "apple": ("apple",),
}
_NUMBER = re.compile(r"\b(\d{1,2})\b")
_MISSING = re.compile(r"missing ingredients?: (\d+) ([a-z_]+)")


def requested_item(text: str, inventory: dict[str, int]) -> tuple[str | None, str, int]:
    """(item held that matches the request or None, the word asked for, count asked)."""
    low = text.lower()
    m = _NUMBER.search(low)
    count = int(m.group(1)) if m else 1
    for name in sorted(inventory, key=len, reverse=True):
        if name.replace("_", " ") in low or name in low:
            return name, name, count
    for word, items in _ITEM_ALIASES.items():
        if re.search(rf"\b{word}\b", low):
            for it in items:
                if inventory.get(it, 0) > 0:
                    return it, word, count
            return None, word, count
    return None, "", count


def coherent(decision: Decision) -> bool:
    """Speech that promises to give must come with a give skill (and the same item)."""
    said = decision.speech_intent.lower()
    if not said:
        return True
    promises_give = bool(
        re.search(r"\b(here is|here's|i'll give|i will give|i'll bring|take this)\b", said)
    )
    if promises_give:
        return decision.skill is not None and decision.skill.skill == "give"
    return True


class CognitiveController(Module):
    name: ClassVar[str] = "cognitive_controller"
    reads: ClassVar[frozenset[str]] = frozenset()  # everything comes through the bottleneck
    writes: ClassVar[frozenset[str]] = frozenset({"decision"})

    def __init__(self, schedule: Schedule, *, extroversion: float | None = None) -> None:
        super().__init__(schedule)
        self.extroversion = extroversion if extroversion is not None else 0.0
        self._last_spoke = 0.0
        self._failures = 0
        self._addressed: list[tuple[str, str, float]] = []
        self._spoke_to: dict[str, float] = {}
        self._last_step = 0.0
        self._last_outcome_at = 0.0
        self._answered: set[str] = set()
        self._decisions = 0
        self._tax_open_until = 0.0
        self._tax_rate = 0.2
        self._tax_chests: list[tuple[Any, ...]] = []
        self._tax_due: dict[str, int] | None = None

    def get_state(self) -> dict[str, Any]:
        return {"decisions": self._decisions, "last_spoke": self._last_spoke}

    def set_state(self, state: Any) -> None:
        self._decisions = int(state.get("decisions", 0))
        self._last_spoke = float(state.get("last_spoke", 0.0))

    async def step(self, ctx: ModuleContext) -> None:
        events = ctx.pending("world:event")
        for msg in events:
            self._on_world_event(msg.payload)
        heard = ctx.pending("topic:heard")
        for msg in heard:
            p = msg.payload
            if p.get("to_me"):
                self._addressed.append(
                    (str(p.get("sender")), str(p.get("message", "")), float(p.get("at", 0)))
                )
                self._addressed = self._addressed[-5:]
        skills = ctx.pending("topic:skill")
        only_started = bool(skills) and all(m.payload.get("event") == "started" for m in skills)
        now = time.time()
        if (
            only_started
            and not heard
            and not events
            and now - self._last_step < 1.0 * ctx.clock.time_scale
        ):
            return  # a skill we just chose has started: nothing new to decide
        self._last_step = now
        settings = ctx.services.config.bottleneck
        snapshot = ctx.state.snapshot([s.section for s in settings.sections])
        view = build_view(snapshot, settings)
        previous = ctx.state.get("decision", Decision)

        def heuristic() -> DecisionOut:
            return self.heuristic(view, previous, ctx)

        out, brain = await choose(
            ctx,
            "cognitive_controller",
            DecisionOut,
            {
                "view": view.text(),
                "skills": _skill_list(),
                "previous": previous.intent or "nothing yet",
            },
            heuristic,
        )
        decision = self._to_decision(out, brain, previous)
        if decision is None and brain != HEURISTIC:  # the LLM proposed an invalid skill call
            ctx.stats.fallbacks += 1
            ctx.emit("llm_fallback", prompt="cognitive_controller", error="invalid skill call")
            decision = self._to_decision(heuristic(), HEURISTIC, previous)
        if decision is None or not self._changes_something(decision, previous, view):
            return
        if not coherent(decision):
            decision = decision.model_copy(update={"speech_intent": "", "speak_to": None})
        self._decisions += 1
        ctx.write("decision", decision)
        await ctx.publish("decision", decision)
        ctx.emit(
            "decision",
            id=decision.id,
            intent=decision.intent,
            skill=decision.skill.model_dump() if decision.skill else None,
            speech_intent=decision.speech_intent,
            speak_to=decision.speak_to,
            reason=decision.reason,
            brain=decision.brain,
        )
        if decision.speech_intent:
            self._last_spoke = time.time()
            if decision.speak_to:
                self._spoke_to[decision.speak_to] = self._last_spoke
        remember(ctx, f"I decided to {decision.intent.rstrip('.')}.", "action")

    def _on_world_event(self, payload: dict[str, Any]) -> None:
        kind = payload.get("kind")
        if kind == "tax_season_open":
            self._tax_open_until = time.time() + float(payload.get("window_s", 20.0))
            self._tax_rate = float(payload.get("rate", self._tax_rate))
            self._tax_chests = [tuple(c) for c in payload.get("chests", []) if len(c) == 3]
            self._tax_due = None  # computed from the inventory at the first decision
        elif kind == "tax_season_close":
            self._tax_open_until = 0.0
            self._tax_due = None

    # --- turning policy output into a decision ------------------------------------------
    def _to_decision(self, out: DecisionOut, brain: str, previous: Decision) -> Decision | None:
        call: SkillCall | None = None
        if out.skill:
            if out.skill not in SKILLS:
                return None
            try:
                call = validate_skill(SkillCall(skill=out.skill, args=out.args))
            except ValidationError:
                return None
        return Decision(
            id=uuid.uuid4().hex[:12],
            intent=short(out.intent or (call.describe() if call else "keep going"), 300),
            skill=call,
            speech_intent=out.speech_intent.strip(),
            speak_to=out.speak_to,
            reason=out.reason,
            brain=brain,
            supersedes=previous.id,
            updated_at=time.time(),
        )

    def _changes_something(self, new: Decision, old: Decision, view: BottleneckView) -> bool:
        if new.speech_intent:
            return True
        if new.skill is None:
            return False
        action = view.data("action")
        running = action.get("running")
        if running is not None and running == new.skill:
            return False
        return not (old.skill == new.skill and running is not None)

    # --- the heuristic policy -------------------------------------------------------------
    def heuristic(
        self, view: BottleneckView, previous: Decision, ctx: ModuleContext
    ) -> DecisionOut:
        per = view.data("perception")
        inv: dict[str, int] = dict(per.get("inventory", {}))
        seen: dict[str, float] = dict(per.get("blocks", {}))
        social = view.data("social")
        sentiment: dict[str, float] = social.get("sentiment", {})
        goals = view.data("goals")
        kind = goals.get("kind") or "gather_wood"
        goal_text = goals.get("current") or "help the village"
        action = view.data("action")
        convo = view.data("conversation")
        rng = ctx.rng
        now = time.time()

        if per and not per.get("connected", True):
            return DecisionOut(
                intent="wait for the connection to come back",
                skill="idle",
                args={"seconds": 5},
                reason="disconnected",
            )

        # 1. someone addressed me and waits for an answer
        while self._addressed:
            who, text, at = self._addressed.pop(0)
            key = f"{who}:{at}"
            if key not in self._answered:
                self._answered.add(key)
                return self._answer(who, text, inv, sentiment, goal_text, action)
        pending = convo.get("pending_reply_to")
        if pending:
            lines = [ln for ln in convo.get("lines", []) if ln.get("speaker") == pending]
            if lines:
                last = lines[-1]
                key = f"{pending}:{last.get('at')}"
                if key not in self._answered:
                    self._answered.add(key)
                    return self._answer(
                        pending, str(last.get("text", "")), inv, sentiment, goal_text, action
                    )

        # 2. tax season: pay the constitution's share of every item kind, once per season
        if now < self._tax_open_until:
            if self._tax_due is None:
                self._tax_due = {
                    item: round(n * self._tax_rate)
                    for item, n in sorted(inv.items(), key=lambda kv: -kv[1])
                    if round(n * self._tax_rate) >= 1
                }
            if self._tax_due:
                item, share = next(iter(self._tax_due.items()))
                del self._tax_due[item]  # one attempt per item: never pay twice
                args: dict[str, Any] = {"item": item, "count": min(share, inv.get(item, share))}
                if self._tax_chests:
                    x, y, z = self._tax_chests[hash(ctx.agent) % len(self._tax_chests)]
                    args.update({"x": x, "y": y, "z": z})
                return DecisionOut(
                    intent=f"pay my tax: deposit {args['count']} {item} in the community chest",
                    skill="deposit",
                    args=args,
                    reason=f"the tax season is open ({self._tax_rate:.0%} of what I hold)",
                )

        # 3. hunger
        food = float(per.get("food", 20.0))
        if food < 8:
            for f in FOODS:
                if inv.get(f, 0) > 0:
                    return DecisionOut(
                        intent=f"eat {f.replace('_', ' ')}",
                        skill="eat",
                        args={"item": f},
                        reason=f"food is {food:.0f}/20",
                    )

        # someone to talk to now (greet new people, chat now and then);
        # whatever the agent decides below, it may say what it is doing to them
        to = self._talk_target(per, now, rng, ctx.clock.time_scale)

        # 4. the last action failed: adapt instead of repeating it blindly
        last = action.get("last_outcome")
        if last is not None and last.ended_at != self._last_outcome_at:
            self._last_outcome_at = last.ended_at
            self._failures = 0 if last.success else self._failures + 1
        if self._failures >= 4:
            self._failures = 0
            return self._telling(
                to,
                DecisionOut(
                    intent="pause and rethink after several failed attempts",
                    skill="idle",
                    args={"seconds": min(30.0, 5.0 * ctx.clock.time_scale + 5.0)},
                    reason=f"{last.reason if last else 'repeated failures'}",
                ),
            )
        if last is not None and not last.success and action.get("running") is None:
            reason = last.reason.lower()
            lost = "no path" in reason or "not found" in reason
            if lost or ("no " in reason and "within" in reason):
                return self._telling(
                    to,
                    DecisionOut(
                        intent="explore to find what I need",
                        skill="explore",
                        args={"distance": 48},
                        reason=f"last action failed: {last.reason}",
                    ),
                )
            missing = _MISSING.search(reason)
            if missing:  # "missing ingredients: 2 oak_planks" -> get those first
                need = missing.group(2)
                st = craft_step(
                    need, {k: v for k, v in inv.items() if k != need}, seen
                ) or next_step(
                    "gather_wood" if need.endswith(("_log", "_planks", "stick")) else kind,
                    inv,
                    seen,
                )
                return self._telling(
                    to,
                    DecisionOut(
                        intent=st.text,
                        skill=st.call.skill,
                        args=dict(st.call.args),
                        reason=f"last action failed: {last.reason}",
                    ),
                )

        running = action.get("running")
        doing = running.describe() if running is not None else ""
        speech = ""

        # 5. a skill is running and nothing urgent happened: let it finish
        if running is not None:
            if to:
                speech = f"tell {to} that I am working to {goal_text}"
            return DecisionOut(
                intent=f"keep going ({doing})",
                skill=None,
                speech_intent=speech,
                speak_to=to,
                reason="current action still running",
            )

        plan = view.data("plan")
        cur_skill = plan.get("current_skill") if plan else None
        stale = last is not None and not last.success and cur_skill is not None
        if cur_skill is not None and not stale and rng.random() < 0.7:
            step_text = str(plan.get("current_step", ""))
            out_skill, out_args = cur_skill.skill, dict(cur_skill.args)
        else:
            st = next_step(kind, inv, seen)
            step_text, out_skill, out_args = st.text, st.call.skill, dict(st.call.args)
        if to:
            speech = f"tell {to} that I am going to {step_text} ({goal_text})"
        return DecisionOut(
            intent=f"{step_text} to {goal_text}" if goal_text else step_text,
            skill=out_skill,
            args=out_args,
            speech_intent=speech,
            speak_to=to,
            reason=f"next step of my goal ({kind})",
        )

    def _talk_target(self, per: dict[str, Any], now: float, rng: Any, scale: float) -> str | None:
        """Someone to speak to now: a person not greeted yet (likely), else now and then
        someone nearby (more often when extroverted); never more than every 45 s."""
        if now - self._last_spoke <= 45 * scale:
            return None
        near = list(per.get("players", []))
        fresh = [p for p in near if p not in self._spoke_to]
        if fresh and rng.random() < 0.8:
            return str(fresh[0])
        p_talk = 0.15 + 0.1 * max(-1.0, min(2.0, self.extroversion))
        if near and rng.random() < p_talk:
            return str(near[0])
        return None

    @staticmethod
    def _telling(to: str | None, out: DecisionOut) -> DecisionOut:
        """Add "tell <to> what I am doing" to a decision that says nothing yet."""
        if not to or out.speech_intent:
            return out
        what = out.intent[0].lower() + out.intent[1:] if out.intent else "keep busy"
        return out.model_copy(
            update={"speech_intent": f"tell {to} that I am going to {what}", "speak_to": to}
        )

    def _answer(
        self,
        who: str,
        text: str,
        inv: dict[str, int],
        sentiment: dict[str, float],
        goal_text: str,
        action: dict[str, Any],
    ) -> DecisionOut:
        running = action.get("running")
        keep_skill = running.skill if running is not None else None
        keep_args = dict(running.args) if running is not None else {}
        if _REQUEST.search(text):
            item, word, count = requested_item(text, inv)
            liking = sentiment.get(who, 5.0)
            if item is not None and liking >= 4:
                n = max(1, min(count, inv.get(item, 1)))
                return DecisionOut(
                    intent=f"give {n} {item.replace('_', ' ')} to {who}",
                    skill="give",
                    args={"player": who, "item": item, "count": n},
                    speech_intent=f"agree and tell {who}: here is {n} {item.replace('_', ' ')}",
                    speak_to=who,
                    reason=f"{who} asked for {word or item}; I have it and like them",
                )
            if item is not None:
                return DecisionOut(
                    intent=f"keep working on {goal_text}",
                    skill=keep_skill,
                    args=keep_args,
                    speech_intent=f"politely refuse {who}'s request for {word}",
                    speak_to=who,
                    reason=f"I do not trust {who} enough ({liking:.0f}/10)",
                )
            return DecisionOut(
                intent=f"keep working on {goal_text}",
                skill=keep_skill,
                args=keep_args,
                speech_intent=f"tell {who} that I have no {word or 'such thing'} to give",
                speak_to=who,
                reason=f"{who} asked for {word}, which I do not have",
            )
        if time.time() - self._spoke_to.get(who, 0.0) < 60.0:
            # small talk with someone I just spoke to: end the exchange instead of ping-pong
            return DecisionOut(
                intent=f"keep working on {goal_text}",
                skill=keep_skill,
                args=keep_args,
                reason=f"already talked with {who} just now",
            )
        if _QUESTION_DOING.search(text):
            return DecisionOut(
                intent=f"keep working on {goal_text}",
                skill=keep_skill,
                args=keep_args,
                speech_intent=f"tell {who} that I am working to {goal_text}",
                speak_to=who,
                reason="answering a question",
            )
        if _GREETING.search(text):
            return DecisionOut(
                intent=f"keep working on {goal_text}",
                skill=keep_skill,
                args=keep_args,
                speech_intent=f"greet {who} back and mention that I {goal_text}",
                speak_to=who,
                reason="answering a greeting",
            )
        return DecisionOut(
            intent=f"keep working on {goal_text}",
            skill=keep_skill,
            args=keep_args,
            speech_intent=f"acknowledge what {who} said",
            speak_to=who,
            reason="someone spoke to me",
        )


def _skill_list() -> str:
    lines = []
    for name, model in SKILLS.items():
        fields = ", ".join(model.model_fields)
        lines.append(f"- {name}({fields})")
    return "\n".join(lines)
