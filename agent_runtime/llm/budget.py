"""Per-agent LLM budgets (tokens and/or USD for the whole run).

:meth:`Budgets.check` runs before a call and raises
:class:`LLMBudgetExceeded` once an agent has spent its allowance;
:meth:`Budgets.charge` runs after every call, successful or not. Calls
already in flight when the limit is reached still complete, so an agent can
overshoot by at most its concurrent calls.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from agent_runtime.llm.errors import LLMBudgetExceeded

__all__ = ["AgentSpend", "Budgets"]

logger = logging.getLogger(__name__)


@dataclass(slots=True)
class AgentSpend:
    tokens: int = 0
    usd: float = 0.0
    refused: int = 0


class Budgets:
    """Spending per agent against one shared limit (``None`` = unlimited)."""

    def __init__(self, *, max_tokens: int | None = None, max_usd: float | None = None) -> None:
        if max_tokens is not None and max_tokens < 0:
            raise ValueError("max_tokens must be >= 0")
        if max_usd is not None and max_usd < 0:
            raise ValueError("max_usd must be >= 0")
        self.max_tokens = max_tokens
        self.max_usd = max_usd
        self._spend: dict[str, AgentSpend] = {}

    @property
    def limited(self) -> bool:
        return self.max_tokens is not None or self.max_usd is not None

    def spend(self, agent: str) -> AgentSpend:
        return self._spend.setdefault(agent, AgentSpend())

    def exhausted(self, agent: str) -> str | None:
        """Why the agent may not call any more, or ``None``."""
        s = self._spend.get(agent) or AgentSpend()
        if self.max_tokens is not None and s.tokens >= self.max_tokens:
            return f"token budget spent ({s.tokens}/{self.max_tokens})"
        if self.max_usd is not None and s.usd >= self.max_usd:
            return f"USD budget spent ({s.usd:.4f}/{self.max_usd:.4f})"
        return None

    def check(self, agent: str, *, model: str = "") -> None:
        reason = self.exhausted(agent)
        if reason is not None:
            spend = self.spend(agent)
            if spend.refused == 0:
                logger.warning("agent %s: LLM %s; using the heuristic from now on", agent, reason)
            spend.refused += 1
            raise LLMBudgetExceeded(f"agent {agent}: {reason}", agent=agent, model=model)

    def charge(self, agent: str, *, tokens: int, usd: float) -> None:
        s = self.spend(agent)
        s.tokens += tokens
        s.usd += usd

    def snapshot(self) -> dict[str, Any]:
        return {
            "max_tokens": self.max_tokens,
            "max_usd": self.max_usd,
            "agents": {
                a: {"tokens": s.tokens, "usd": round(s.usd, 8), "refused": s.refused}
                for a, s in sorted(self._spend.items())
            },
        }
