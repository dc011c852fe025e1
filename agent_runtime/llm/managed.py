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

__all__ = ["ManagedLanguageModel"]


class ManagedLanguageModel(LanguageModel):
    def __init__(
        self,
        inner: LanguageModel,
        *,
        accounting: Accounting,
        budgets: Budgets | None = None,
        prices: PriceTable | None = None,
        prompt_log: PromptLog | None = None,
        limiter: Limiter | None = None,
        close_inner: bool = True,
        hourly: HourlyBudget | None = None,
    ) -> None:
        self.inner = inner
        self._close_inner = close_inner
        self.name = inner.name
        self.accounting = accounting
        self.budgets = budgets
        self.prices = prices if prices is not None else PriceTable()
        self.prompt_log = prompt_log
        self.limiter = limiter
        self.hourly = hourly

    async def complete(self, request: LLMRequest[T]) -> LLMResult[T]:
        with traced() as trace:
            return await self._complete(request, trace)

    async def _complete(self, request: LLMRequest[T], trace: CallTrace) -> LLMResult[T]:
        t0 = time.monotonic()
        try:
            if self.hourly is not None:
                self.hourly.check(request.module)  # the village's spending rate
            if self.budgets is not None:
                self.budgets.check(request.agent, model=self.name)
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
        result = dataclasses.replace(result, cost_usd=self.prices.cost(result.model, result.usage))
        if self.hourly is not None:
            self.hourly.charge(result.cost_usd)
        if self.budgets is not None:
            self.budgets.charge(
                request.agent, tokens=result.usage.total_tokens, usd=result.cost_usd
            )
        self.accounting.record_success(request.module, request.agent, result, trace)
        if self.prompt_log is not None:
            self.prompt_log.write(request, result)
        return result

    def _failed(
        self, request: LLMRequest[T], exc: LLMError, latency_s: float, trace: CallTrace
    ) -> None:
        model = exc.model or self.name
        cost = self.prices.cost(model, exc.usage)
        if self.hourly is not None:
            self.hourly.charge(cost)
        if self.budgets is not None and exc.usage.total_tokens:
            self.budgets.charge(request.agent, tokens=exc.usage.total_tokens, usd=cost)
        self.accounting.record_failure(
            request.module, request.agent, exc, cost_usd=cost, latency_s=latency_s, trace=trace
        )
        if self.prompt_log is not None and not isinstance(exc, LLMBudgetExceeded | LLMShed):
            reply = exc.raw if isinstance(exc, LLMInvalidOutput) else None
            # what the failed call spent, in a result's shape (its reply: the raw text that
            # did not validate, if any)
            spent: LLMResult[Any] = LLMResult(
                reply, exc.usage, model, latency_s, exc.attempts, cost, brain=""
            )
            self.prompt_log.write(request, spent, error=f"{exc.kind}: {exc.message}")

    async def aclose(self) -> None:
        if self._close_inner:
            await self.inner.aclose()
