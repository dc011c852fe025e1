"""The scene the page shows: agents, players, chat, social graph, world map and figures.

One ``Scene`` is fed from any mix of three stable sources and knows nothing of the
modules that produced them:

- ``on_message(topic, payload)``: the run's MQTT broadcast (``agent_runtime.bus.topics``);
- ``on_state(agent, sections)``: an agent's state hash in Redis (section -> JSON);
- ``on_event(record)``: a record of ``events.jsonl`` (replay, and live progress figures).

Payloads are read as plain dicts with ``.get`` so that a field added or renamed by a
module shows up (or is left out) instead of breaking the page. ``summary()`` is the
small per-tick picture for the map and lists; ``detail(name)`` is one agent's panel.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

from agent_runtime.app.web.world_map import world_layer
from agent_runtime.clock import wall_time

__all__ = ["Scene"]

#: An agent with no news for this long is counted as unresponsive.
UNRESPONSIVE_S = 60.0
#: Progress figures that add up over the workers of a village.
ADDITIVE = frozenset(
    {"agents", "decisions", "speech", "skills", "errors", "unresponsive", "llm_calls"}
    | {"llm_tokens", "llm_cost_usd"}
)
#: A speech bubble stays on the map this long.
BUBBLE_S = 8.0


def _add_modules(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """Per-module LLM counters of two workers, added up."""
    out = {m: dict(x) for m, x in a.items() if isinstance(x, dict)}
    for m, x in b.items():
        if not isinstance(x, dict):
            continue
        row = out.setdefault(m, {})
        for k, v in x.items():
            if isinstance(v, int | float):
                row[k] = row.get(k, 0) + v
    return out


def _short(text: Any, n: int = 160) -> str:
    s = str(text or "")
    return s if len(s) <= n else s[: n - 1] + "…"


def _pos(value: Any) -> list[float] | None:
    if isinstance(value, dict) and all(k in value for k in ("x", "y", "z")):
        return [float(value["x"]), float(value["y"]), float(value["z"])]
    if isinstance(value, list | tuple) and len(value) == 3:
        return [float(v) for v in value]
    return None


def _skill_text(skill: Any) -> str:
    if not isinstance(skill, dict) or not skill.get("skill"):
        return ""
    args = skill.get("args") or {}
    inner = ", ".join(f"{k}={v}" for k, v in args.items()) if isinstance(args, dict) else ""
    return f"{skill['skill']}({inner})"


@dataclass
class AgentView:
    name: str
    pos: list[float] | None = None
    last_seen: float = 0.0
    online: bool = True
    goal: str = ""
    plan: list[str] = field(default_factory=list)
    plan_step: int = 0
    decision: dict[str, Any] = field(default_factory=dict)
    decision_t: float = 0.0
    speech: dict[str, Any] = field(default_factory=dict)
    skill: str = ""
    skill_state: str = ""
    inventory: dict[str, int] = field(default_factory=dict)
    health: float | None = None
    food: float | None = None
    discrepancies: list[dict[str, Any]] = field(default_factory=list)
    memories: list[dict[str, Any]] = field(default_factory=list)
    reflections: list[str] = field(default_factory=list)
    sentiments: dict[str, float] = field(default_factory=dict)
    decisions: int = 0

    def plan_text(self) -> str:
        if 0 <= self.plan_step < len(self.plan):
            return self.plan[self.plan_step]
        return ""


class Scene:
    def __init__(self, run_id: str = "", *, chat_limit: int = 200) -> None:
        self.run_id = run_id
        self.agents: dict[str, AgentView] = {}
        self.players: dict[str, dict[str, Any]] = {}
        self.chat: deque[dict[str, Any]] = deque(maxlen=chat_limit)
        self.figures: dict[str, Any] = {}
        self._shards: dict[str, dict[str, Any]] = {}
        self.world: dict[str, Any] = {"places": [], "areas": [], "chests": []}
        self.decision_times: deque[float] = deque(maxlen=20000)
        self.counts: dict[str, int] = {"decisions": 0, "speech": 0, "skills": 0, "errors": 0}
        self.status = ""
        self.t = 0.0
        self.started = 0.0

    # --- feeding --------------------------------------------------------------------
    def agent(self, name: str) -> AgentView:
        view = self.agents.get(name)
        if view is None:
            view = self.agents[name] = AgentView(name=name)
            self.players.pop(name, None)
        return view

    def _seen(self, view: AgentView, t: float) -> None:
        view.last_seen = max(view.last_seen, t)
        self.t = max(self.t, t)

    def on_message(self, topic: str, payload: dict[str, Any], t: float | None = None) -> None:
        """One MQTT message of the run (``piano/{run}/...``)."""
        now = wall_time() if t is None else t
        parts = topic.split("/")
        if len(parts) >= 5 and parts[2] == "agent":
            self._agent_message(parts[3], parts[4], payload, now)
        elif len(parts) >= 4 and parts[2] == "run":
            if parts[3] == "status":
                self.status = str(payload.get("status", self.status))
            elif parts[3] == "progress":
                self._figures(payload)

    def _agent_message(self, name: str, kind: str, p: dict[str, Any], t: float) -> None:
        view = self.agent(name)
        self._seen(view, t)
        if kind == "decision":
            self._decision(view, p, t)
        elif kind == "speech":
            self._speech(view, str(p.get("text", "")), p.get("to"), t)
        elif kind == "heard":
            sender = str(p.get("sender", ""))
            to = name if p.get("whisper") else None
            self._chat(sender, str(p.get("message", "")), to, t, name)
        elif kind == "goal":
            view.goal = _short(p.get("goal", view.goal), 200)
        elif kind == "skill":
            call = p.get("call") or {}
            view.skill = _skill_text(call)
            event = str(p.get("event", ""))
            outcome = p.get("outcome") or {}
            if event == "finished" and isinstance(outcome, dict):
                view.skill_state = "ok" if outcome.get("success") else _short(outcome.get("reason"))
                self.counts["skills"] += 1
            else:
                view.skill_state = event
        elif kind == "status":
            view.online = p.get("status") != "stopped"

    def _decision(self, view: AgentView, p: dict[str, Any], t: float) -> None:
        keep = {k: v for k, v in p.items() if k not in ("updated_at", "t", "type", "agent")}
        if keep.get("id") and keep.get("id") == view.decision.get("id"):
            return
        view.decision = keep
        view.decision_t = t
        view.decisions += 1
        self.counts["decisions"] += 1
        self.decision_times.append(t)

    def _speech(self, view: AgentView, text: str, to: Any, t: float) -> None:
        if not text:
            return
        view.speech = {"text": _short(text, 300), "to": to, "t": t}
        self.counts["speech"] += 1
        self._chat(view.name, text, to, t, None)

    def _chat(self, sender: str, text: str, to: Any, t: float, hearer: str | None) -> None:
        if not sender or not text:
            return
        for line in reversed(self.chat):  # the same line heard by several agents is one line
            if t - line["t"] > 30:
                break
            if line["sender"] == sender and line["text"] == text:
                if hearer and hearer not in line["heard_by"]:
                    line["heard_by"].append(hearer)
                return
        self.chat.append(
            {
                "t": t,
                "sender": sender,
                "text": _short(text, 300),
                "to": to,
                "heard_by": [hearer] if hearer else [],
                "agent": sender in self.agents,
            }
        )

    def on_state(self, name: str, sections: dict[str, dict[str, Any]]) -> None:
        """An agent's Agent State as stored in Redis (section name -> decoded JSON)."""
        view = self.agent(name)
        latest = max((float(s.get("updated_at") or 0.0) for s in sections.values()), default=0.0)
        if latest:
            self._seen(view, latest)
        obs = (sections.get("perception") or {}).get("observation") or {}
        if obs:
            view.pos = _pos(obs.get("position")) or view.pos
            view.inventory = {k: int(v) for k, v in (obs.get("inventory") or {}).items() if v}
            view.health = obs.get("health")
            view.food = obs.get("food")
            view.online = bool(obs.get("connected", True))
            for pl in obs.get("players") or []:
                who = str(pl.get("name", ""))
                if who and who not in self.agents:
                    self.players[who] = {"name": who, "pos": _pos(pl.get("position")), "t": latest}
        goals = sections.get("goals") or {}
        if goals.get("current"):
            view.goal = _short(goals["current"], 200)
        plan = sections.get("plan") or {}
        if plan:
            view.plan = [_short(s.get("text", ""), 120) for s in plan.get("steps") or []]
            view.plan_step = int(plan.get("current") or 0)
        decision = sections.get("decision") or {}
        if decision.get("id") and decision.get("id") != view.decision.get("id"):
            self._decision(view, decision, float(decision.get("updated_at") or self.t))
        conv = sections.get("conversation") or {}
        last = conv.get("last_utterance") or {}
        if last.get("text") and float(last.get("at") or 0) > float(view.speech.get("t") or 0):
            view.speech = {"text": _short(last["text"], 300), "to": last.get("to"), "t": last["at"]}
        action = sections.get("action") or {}
        if action.get("running"):
            view.skill, view.skill_state = _skill_text(action["running"]), "running"
        aware = sections.get("awareness") or {}
        view.discrepancies = [
            {"skill": d.get("skill"), "note": _short(d.get("note"), 200), "t": d.get("at")}
            for d in (aware.get("discrepancies") or [])[-5:]
        ]
        wm = sections.get("working_memory") or {}
        view.memories = [
            {"text": _short(i.get("text"), 200), "kind": i.get("kind", ""), "t": i.get("at")}
            for i in (wm.get("items") or [])[-8:]
        ]
        refl = sections.get("reflection") or {}
        if refl.get("insights"):
            view.reflections = [_short(x, 240) for x in refl["insights"][-5:]]
        social = sections.get("social") or {}
        people = social.get("people") or {}
        if people:
            view.sentiments = {
                str(k): float(v.get("sentiment", 5.0)) for k, v in people.items() if k != name
            }

    def on_event(self, r: dict[str, Any]) -> None:
        """One ``events.jsonl`` record."""
        t = float(r.get("t") or self.t)
        kind = r.get("type")
        name = r.get("agent")
        self.t = max(self.t, t)
        if kind == "run_started":
            self.started = t
            self.status = "running"
        elif kind == "run_stopped":
            self.status = "stopped"
        elif kind == "world_started" and not self.world.get("areas"):
            self.set_world({"places": r.get("places") or {}})
        elif kind == "progress":
            self._figures(r)
        elif name is None:
            return
        elif kind == "decision":
            view = self.agent(name)
            self._seen(view, t)
            self._decision(view, r, t)
        elif kind == "speech":
            view = self.agent(name)
            self._seen(view, t)
            self._speech(view, str(r.get("text", "")), r.get("to"), t)
        elif kind == "goal":
            self.agent(name).goal = _short(r.get("goal"), 200)
        elif kind == "plan":
            view = self.agent(name)
            view.plan = [_short(s, 120) for s in r.get("steps") or []]
            view.plan_step = 0
        elif kind == "skill_started":
            view = self.agent(name)
            view.skill, view.skill_state = _skill_text(r.get("call")), "running"
        elif kind == "skill_outcome":
            view = self.agent(name)
            view.skill = _skill_text(r.get("call"))
            view.skill_state = "ok" if r.get("success") else _short(r.get("reason"))
            self.counts["skills"] += 1
            for item, n in (r.get("delta") or {}).items():
                view.inventory[item] = view.inventory.get(item, 0) + int(n)
                if view.inventory[item] <= 0:
                    view.inventory.pop(item)
            if view.plan and view.plan_step < len(view.plan) - 1 and r.get("success"):
                view.plan_step += 1
        elif kind == "discrepancy":
            view = self.agent(name)
            note = {"skill": r.get("skill"), "note": _short(r.get("note"), 200), "t": t}
            view.discrepancies = [*view.discrepancies[-4:], note]
        elif kind == "reflection":
            text = r.get("insight") or r.get("text") or r.get("insights")
            if isinstance(text, list):
                text = "; ".join(map(str, text))
            if text:
                view = self.agent(name)
                view.reflections = [*view.reflections[-4:], _short(text, 240)]
        elif kind == "module_error":
            self.counts["errors"] += 1
        elif kind == "body_event" and r.get("kind") in ("kicked", "disconnected"):
            self.agent(name).online = False

    def _figures(self, p: dict[str, Any]) -> None:
        values = {k: v for k, v in p.items() if k not in ("t", "type", "positions", "shard")}
        shard = p.get("shard")
        if isinstance(shard, list):  # workers report their own agents: add them up
            self._shards[str(shard)] = values
            merged: dict[str, Any] = {}
            for rec in self._shards.values():
                for k, v in rec.items():
                    if k in ADDITIVE and isinstance(v, int | float):
                        merged[k] = merged.get(k, 0) + v
                    elif k == "llm_modules" and isinstance(v, dict):
                        merged[k] = _add_modules(merged.get(k) or {}, v)
                    elif k.startswith("lag_ms") and isinstance(v, int | float):
                        merged[k] = max(merged.get(k, 0), v)
                    else:
                        merged[k] = v
            values = merged
        self.figures.update(values)
        for name, pos in (p.get("positions") or {}).items():
            view = self.agent(str(name))
            view.pos = _pos(pos) or view.pos

    def set_world(self, info: dict[str, Any]) -> None:
        """Places (a list of {name, x, y, z} or a {name: [x, y, z]} map), layout, chests."""
        self.world = world_layer(info)

    def set_social_graph(self, graph: dict[str, dict[str, float]]) -> None:
        for name, row in graph.items():
            self.agent(name).sentiments = {str(b): float(s) for b, s in row.items()}

    # --- reading ----------------------------------------------------------------------
    def summary(self, now: float | None = None) -> dict[str, Any]:
        t = self.t if now is None else now
        agents = []
        unresponsive = 0
        for v in self.agents.values():
            stale = v.last_seen > 0 and t - v.last_seen > UNRESPONSIVE_S
            unresponsive += int(stale and v.online)
            speech = v.speech if v.speech and t - float(v.speech.get("t", 0)) < BUBBLE_S else None
            agents.append(
                {
                    "name": v.name,
                    "pos": v.pos,
                    "online": v.online,
                    "stale": stale,
                    "goal": _short(v.goal, 80),
                    "intent": _short(v.decision.get("intent", ""), 80),
                    "skill": v.skill,
                    "speech": speech["text"] if speech else None,
                }
            )
        recent = [x for x in self.decision_times if t - x <= 60.0]
        figures = {
            **self.figures,
            **self.counts,
            "agents": len(self.agents),
            "decisions_per_min": len(recent),
            # the village's own count when it reports one (it knows what each module awaits)
            "unresponsive": self.figures.get("unresponsive", unresponsive),
            "errors": max(self.counts["errors"], int(self.figures.get("errors") or 0)),
        }
        if self.started:
            figures["elapsed_s"] = round(t - self.started, 1)
        hours = float(figures.get("elapsed_s") or 0.0) / 3600.0 * max(1, len(self.agents))
        if hours > 0 and isinstance(figures.get("llm_tokens"), int | float):
            figures["tokens_per_agent_hour"] = round(float(figures["llm_tokens"]) / hours)
            figures["usd_per_agent_hour"] = round(
                float(figures.get("llm_cost_usd") or 0) / hours, 4
            )
            figures["calls_per_agent_hour"] = round(float(figures.get("llm_calls") or 0) / hours)
            modules = figures.get("llm_modules")
            if isinstance(modules, dict):
                figures["llm_per_agent_hour"] = {
                    str(m): {
                        "calls": round(float(x.get("calls") or 0) / hours),
                        "tokens": round(float(x.get("tokens") or 0) / hours),
                        "usd": round(float(x.get("cost_usd") or 0) / hours, 4),
                    }
                    for m, x in sorted(modules.items())
                    if isinstance(x, dict)
                }
        strong = [
            (v.name, b, s)
            for v in self.agents.values()
            for b, s in v.sentiments.items()
            if abs(s - 5.0) >= 0.5
        ]
        strong.sort(key=lambda e: -abs(e[2] - 5.0))
        edges = [{"from": a, "to": b, "sentiment": s} for a, b, s in strong]
        return {
            "run_id": self.run_id,
            "t": t,
            "status": self.status,
            "agents": agents,
            "players": list(self.players.values()),
            "chat": list(self.chat)[-60:],
            "edges": edges[:300],
            "figures": figures,
            "world": self.world,
        }

    def detail(self, name: str) -> dict[str, Any] | None:
        v = self.agents.get(name)
        if v is None:
            return None
        decision = dict(v.decision)
        return {
            "name": v.name,
            "pos": v.pos,
            "online": v.online,
            "goal": v.goal,
            "plan": v.plan,
            "plan_step": v.plan_step,
            "plan_text": v.plan_text(),
            "decision": decision,
            "decision_t": v.decision_t,
            "decision_skill": _skill_text(decision.get("skill")),
            "decisions": v.decisions,
            "speech": v.speech,
            "skill": v.skill,
            "skill_state": v.skill_state,
            "inventory": dict(sorted(v.inventory.items())),
            "health": v.health,
            "food": v.food,
            "discrepancies": v.discrepancies,
            "memories": v.memories,
            "reflections": v.reflections,
            "sentiments": dict(sorted(v.sentiments.items(), key=lambda kv: -kv[1])),
        }
