"""Which agents are unresponsive, by a documented rule.

An agent is *unresponsive* when, after a grace period from its start,

- its Cognitive Controller has neither completed a step nor published a decision within
  ``decide_s`` seconds (a step that keeps the current decision counts: committing to a
  running skill is a decision; so does a reflex or filler decision published while a step
  waits for a slow model), or
- it has a body and no skill of it started or ended within ``act_s`` seconds.

Both deadlines are multiplied by the run's time scale. The defaults (30 s to decide,
120 s to act) are generous against the controller's 3 s cadence and the skills' own
timeouts, so an agent that counts here is stuck, not slow. Fed from the event log
(``skill_started`` / ``skill_outcome``) and the scheduler's last-step times.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

DECIDE_S = 30.0
ACT_S = 120.0
CONTROLLER = "cognitive_controller"


@dataclass
class Responsiveness:
    decide_s: float = DECIDE_S
    act_s: float = ACT_S
    last_act: dict[str, float] = field(default_factory=dict)
    last_decision: dict[str, float] = field(default_factory=dict)

    def __call__(self, record: dict[str, Any]) -> None:
        agent = record.get("agent")
        if agent and record.get("type") in ("skill_started", "skill_outcome"):
            self.last_act[agent] = float(record["t"])
        elif agent and record.get("type") == "decision":
            self.last_decision[agent] = float(record["t"])

    def unresponsive(
        self,
        agents: Iterable[str],
        last_step: Mapping[tuple[str, str], float],
        *,
        now: float,
        started: float,
        bodies: bool,
    ) -> dict[str, str]:
        """Agent name -> why it counts as unresponsive now (empty when none does)."""
        out: dict[str, str] = {}
        for name in agents:
            decided = max(last_step.get((name, CONTROLLER), started),
                          self.last_decision.get(name, started))
            if now - decided > self.decide_s:
                out[name] = f"no controller step for {now - decided:.0f}s"
                continue
            acted = self.last_act.get(name, started)
            if bodies and now - acted > self.act_s:
                out[name] = f"no skill started or ended for {now - acted:.0f}s"
        return out
