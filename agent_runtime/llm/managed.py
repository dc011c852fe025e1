"""A wrapper that gives any :class:`LanguageModel` the run's shared bookkeeping.

:class:`ManagedLanguageModel` checks the agent's budget before a call, prices
the tokens afterwards (:class:`PriceTable`), charges the budget, records the
call in :class:`Accounting` and appends it to the :class:`PromptLog`, whether
the call succeeded or raised :class:`LLMError`. Models that do not go through
the limiter themselves (scripted, simulated) can be given one here; the
OpenAI model takes it per HTTP attempt instead.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field
from typing import Any

from agent_runtime.interfaces import LanguageModel, LLMRequest, LLMResult, T
from agent_runtime.llm.accounting import Accounting, PriceTable
from agent_runtime.llm.budget import Budgets
from agent_runtime.llm.calls import CallTrace, traced
from agent_runtime.llm.errors import LLMBudgetExceeded, LLMError, LLMInvalidOutput, LLMShed
from agent_runtime.llm.hourly import HourlyBudget
from agent_runtime.llm.limits import Limiter
from agent_runtime.llm.prompt_log import PromptLog
from agent_runtime.llm.tokens import request_tokens

__all__ = ["Bookkeeping", "ManagedLanguageModel"]


@dataclass(frozen=True)
class Bookkeeping:
    """What every managed model of one service shares: the accounts, the per-agent and
    hourly budgets (None: unlimited), the price table and the prompt log (None: off)."""

    accounting: Accounting
    budgets: Budgets | None = None
    prices: PriceTable = field(default_factory=PriceTable)
    prompt_log: PromptLog | None = None
    hourly: HourlyBudget | None = None


class ManagedLanguageModel(LanguageModel):
    def __init__(
        self,
        inner: LanguageModel,
        books: Bookkeeping,
        *,
        limiter: Limiter | None = None,
        close_inner: bool = True,
    ) -> None:
        self.inner = inner
        self._close_inner = close_inner
        self.name = inner.name
        self.books = books
        self.limiter = limiter

    async def complete(self, request: LLMRequest[T]) -> LLMResult[T]:
        with traced() as trace:
            return await self._complete(request, trace)

    async def _complete(self, request: LLMRequest[T], trace: CallTrace) -> LLMResult[T]:
        t0 = time.monotonic()
        try:
            if self.books.hourly is not None:
                self.books.hourly.check(request.module)  # the village's spending rate
            if self.books.budgets is not None:
                self.books.budgets.check(request.agent, model=self.name)
            if self.limiter is None:
                result = await self.inner.complete(request)
            else:
                estimate = request_tokens(request.messages, request.max_tokens)
                async with self.limiter.call_slot(
                    estimate, module=request.module, agent=request.agent
                ) as slot:
                    try:
                        result = await self.inner.complete(request)
                    except LLMError as exc:
                        slot.settle(exc.usage.total_tokens)
                        raise
                    slot.settle(result.usage.total_tokens)
                    slot.succeeded()
        except LLMError as exc:
            self._failed(request, exc, time.monotonic() - t0, trace)
            raise
        result = dataclasses.replace(
            result, cost_usd=self.books.prices.cost(result.model, result.usage)
        )
        if self.books.hourly is not None:
            self.books.hourly.charge(result.cost_usd)
        if self.books.budgets is not None:
            self.books.budgets.charge(
                request.agent, tokens=result.usage.total_tokens, usd=result.cost_usd
            )
        self.books.accounting.record_success(request.module, request.agent, result, trace)
        if self.books.prompt_log is not None:
            self.books.prompt_log.write(request, result)
        return result

    def _failed(
        self, request: LLMRequest[T], exc: LLMError, latency_s: float, trace: CallTrace
    ) -> None:
        model = exc.model or self.name
        cost = self.books.prices.cost(model, exc.usage)
        if self.books.hourly is not None:
            self.books.hourly.charge(cost)
        if self.books.budgets is not None and exc.usage.total_tokens:
            self.books.budgets.charge(request.agent, tokens=exc.usage.total_tokens, usd=cost)
        self.books.accounting.record_failure(
            request.module, request.agent, exc, cost_usd=cost, latency_s=latency_s, trace=trace
        )
        if self.books.prompt_log is not None and not isinstance(exc, LLMBudgetExceeded | LLMShed):
            reply = exc.raw if isinstance(exc, LLMInvalidOutput) else None
            # what the failed call spent, in a result's shape (its reply: the raw text that
            # did not validate, if any)
            spent: LLMResult[Any] = LLMResult(
                reply, exc.usage, model, latency_s, exc.attempts, cost, brain=""
            )
            self.books.prompt_log.write(request, spent, error=f"{exc.kind}: {exc.message}")

    async def aclose(self) -> None:
        if self._close_inner:
            await self.inner.aclose()
