"""Builds each module's language model from the ``llm:`` settings.

:class:`LLMService` is the one object the runtime creates for a run::

    async with LLMService(config.llm, run_dir=run_dir, seed=config.run.seed) as llm:
        brain = llm.brain("planning", "alice")       # LLM or heuristic, labelled
        model = llm.model_for("planning")            # LanguageModel | None
        ...
        metrics["llm"] = llm.snapshot()

It owns, for the whole run: one ``AsyncOpenAI`` client per (base URL, key
variable), the shared :class:`Limiter`, :class:`Accounting`,
:class:`Budgets` and :class:`PromptLog`. Construction does no I/O; API keys
are read from the environment in ``__aenter__`` (never written back, never
logged), and clients are closed in ``__aexit__``.

Providers: ``heuristic`` (``model_for`` returns None, every brain is the
heuristic), ``openai`` (an :class:`OpenAILanguageModel` per module), and
``simulated`` (a :class:`SimulatedLanguageModel` for benchmarks). A test or
benchmark can also pass ``backend=`` any :class:`LanguageModel`, which every
module then shares (still budgeted, limited, accounted and logged).
"""

from __future__ import annotations

import logging
import os
import random
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from openai import AsyncOpenAI

from agent_runtime.config.llm import LLMSettings
from agent_runtime.interfaces import LanguageModel
from agent_runtime.llm.accounting import Accounting, PriceTable
from agent_runtime.llm.brain import Brain
from agent_runtime.llm.budget import Budgets
from agent_runtime.llm.circuit import Circuit, CircuitBreakerModel
from agent_runtime.llm.cost import cost_table, per_agent_hour_lines
from agent_runtime.llm.errors import LLMConfigError
from agent_runtime.llm.hourly import HourlyBudget
from agent_runtime.llm.limits import Limiter
from agent_runtime.llm.managed import Bookkeeping, ManagedLanguageModel
from agent_runtime.llm.modes import EndpointState
from agent_runtime.llm.openai_model import OpenAILanguageModel
from agent_runtime.llm.priority import Priority, SchedulingPolicy
from agent_runtime.llm.prompt_log import PromptLog
from agent_runtime.llm.retries import RetryPolicy
from agent_runtime.llm.simulated import ANY_PREFIX, OPENAI_CACHE, SimulatedLanguageModel

__all__ = ["PROMPT_LOG_NAME", "LLMService", "scheduling_policy"]

logger = logging.getLogger(__name__)

PROMPT_LOG_NAME = "llm_prompts.jsonl"
_NO_KEY = "not-needed"  # local endpoints without auth; the SDK insists on some value


class LLMService:
    """Per-run owner of LLM clients, limits, budgets, accounting and the prompt log."""

    def __init__(
        self,
        settings: LLMSettings,
        *,
        run_dir: Path | None = None,
        seed: int = 0,
        backend: LanguageModel | None = None,
        environ: Mapping[str, str] | None = None,
        events: Callable[..., object] | None = None,
    ) -> None:
        self.settings = settings
        self.run_dir = Path(run_dir) if run_dir is not None else None
        self._rng = random.Random(seed)
        self._environ = environ
        self.accounting = Accounting()
        self.budgets = Budgets(
            max_tokens=settings.budget.max_tokens, max_usd=settings.budget.max_usd
        )
        self.prices = PriceTable(settings.prices)
        self.hourly: HourlyBudget | None = None
        if settings.budget.max_usd_per_hour is not None:
            self.hourly = HourlyBudget(
                settings.budget.max_usd_per_hour, policy=scheduling_policy(settings)
            )
            if events is not None:
                emit = events
                self.hourly.listeners.append(lambda change: emit("llm_budget", **change))
        self.limiter = Limiter(
            concurrency=settings.concurrency,
            requests_per_minute=settings.requests_per_minute,
            tokens_per_minute=settings.tokens_per_minute,
            queue_timeout_s=settings.queue_timeout_s,
            policy=scheduling_policy(settings),
            adaptive=settings.adaptive_concurrency,
        )
        self.retry = RetryPolicy(
            max_retries=settings.max_retries,
            backoff_base_s=settings.backoff_base_s,
            backoff_max_s=settings.backoff_max_s,
        )
        self.prompt_log: PromptLog | None = (
            PromptLog(self.run_dir / PROMPT_LOG_NAME)
            if settings.log_prompts and self.run_dir is not None
            else None
        )
        if backend is None and settings.provider == "simulated":
            backend = SimulatedLanguageModel(
                settings.simulated_latency_ms,
                seed=seed,
                capacity=settings.simulated_capacity,
                content=settings.simulated_content,
                cache_rule=OPENAI_CACHE if settings.simulated_cache == "openai" else ANY_PREFIX,
            )
        self._backend = backend
        self._clients: dict[tuple[str | None, str | None], AsyncOpenAI] = {}
        self._endpoints: dict[tuple[str, str], EndpointState] = {}
        self._circuits: dict[tuple[str, str], Circuit] = {}  # one breaker per endpoint
        self._models: dict[str, LanguageModel] = {}
        self._started = False

    # --- lifecycle ------------------------------------------------------------------------

    @property
    def uses_llm(self) -> bool:
        return self._backend is not None or self.settings.provider != "heuristic"

    async def __aenter__(self) -> LLMService:
        if self._started:
            raise RuntimeError("LLMService is already running")
        if self._backend is None and self.settings.provider == "openai":
            env = os.environ if self._environ is None else self._environ
            modules = ["", *self.settings.modules]
            for target in {self._target(m) for m in modules}:
                base_url, key_env = target
                key = _NO_KEY
                if key_env is not None:
                    value = env.get(key_env)
                    if not value:
                        await self._close_clients()
                        raise LLMConfigError(
                            f"llm.api_key_env: environment variable {key_env} is not set "
                            f"(needed for {base_url or 'the OpenAI API'}); set it, or use "
                            "provider: heuristic"
                        )
                    key = value
                    if self.prompt_log is not None:
                        self.prompt_log.add_secret(value)
                self._clients[target] = AsyncOpenAI(
                    api_key=key,
                    base_url=base_url,
                    max_retries=0,
                    timeout=self.settings.timeout_s,
                )
            logger.info(
                "LLM provider openai: %d endpoint(s), default model %s",
                len(self._clients),
                self.settings.model,
            )
        if self.prompt_log is not None:
            self.prompt_log.open()
        self._started = True
        return self

    async def __aexit__(self, *exc: object) -> None:
        try:
            for model in self._models.values():
                await model.aclose()
            if self._backend is not None:
                await self._backend.aclose()
            await self._close_clients()
        finally:
            self._models.clear()
            if self.prompt_log is not None:
                self.prompt_log.close()
            self._started = False

    async def _close_clients(self) -> None:
        clients, self._clients = list(self._clients.values()), {}
        for client in clients:
            await client.close()

    def _target(self, module: str) -> tuple[str | None, str | None]:
        resolved = self.settings.for_module(module)
        return resolved.base_url, resolved.api_key_env

    # --- models ---------------------------------------------------------------------------

    def model_for(self, module: str) -> LanguageModel | None:
        """The module's model (shared by all agents), or None for the heuristic provider."""
        if not self.uses_llm:
            return None
        if not self._started:
            raise RuntimeError("use LLMService as an async context manager before model_for()")
        model = self._models.get(module)
        if model is None:
            model = self._models[module] = self._build(module)
        return model

    def brain(self, module: str, agent: str, *, use_llm: bool = True) -> Brain:
        """A :class:`Brain` for one module of one agent; ``use_llm=False`` forces the heuristic
        (e.g. a module whose ``policy`` is ``heuristic``)."""
        model = self.model_for(module) if use_llm else None
        return Brain(
            model,
            module=module,
            agent=agent,
            accounting=self.accounting,
            limiter=self.limiter,
            simulated=self.settings.provider == "simulated",
        )

    def _build(self, module: str) -> LanguageModel:
        books = Bookkeeping(
            self.accounting,
            self.budgets if self.budgets.limited else None,
            self.prices,
            self.prompt_log,
            self.hourly,
        )
        if self._backend is not None:
            # the backend is shared by every module; the service closes it once
            return ManagedLanguageModel(
                self._backend, books, limiter=self.limiter, close_inner=False
            )
        resolved = self.settings.for_module(module)
        target = (resolved.base_url, resolved.api_key_env)
        client = self._clients[target]
        endpoint_key = (str(client.base_url), resolved.model)
        endpoint = self._endpoints.get(endpoint_key)
        if endpoint is None:
            endpoint = self._endpoints[endpoint_key] = EndpointState(*endpoint_key)
        inner = OpenAILanguageModel(
            client,
            resolved.model,
            endpoint=endpoint,
            retry=self.retry,
            timeout_s=self.settings.timeout_s,
            limiter=self.limiter,
            temperature=resolved.temperature,
            structured_output=self.settings.structured_output,
            rng=random.Random(self._rng.random()),
        )
        circuit = self._circuits.get(endpoint_key)
        if circuit is None:
            circuit = self._circuits[endpoint_key] = Circuit(
                f"{endpoint_key[0]} ({resolved.model})"
            )
        return ManagedLanguageModel(CircuitBreakerModel(inner, circuit), books)

    # --- metrics --------------------------------------------------------------------------

    def progress(self) -> dict[str, Any]:
        """For a run's progress line: the model's share of decisions, fallbacks, real errors,
        and the limiter's current state."""
        return {
            **self.accounting.progress(),
            "limit": self.limiter.limit,
            "in_flight": self.limiter.in_flight,
            "queued": self.limiter.queued,
        }

    def progress_text(self) -> str:
        """One short line, e.g. ``model 82% of 150 decisions  fallbacks 27 (shed 20, failed 7)
        http errors 3  slots 1/2``."""
        return (
            f"{self.accounting.progress_text()}  "
            f"slots {self.limiter.in_flight}/{self.limiter.limit} queued {self.limiter.queued}"
        )

    def report(self, agent_hours: float | None = None) -> list[str]:
        """The end-of-run lines: per module calls, parsed, repaired, shed, failed by reason,
        then one warning line per module where more than 20% of the calls fell back, then
        per module and in all calls, tokens and dollars per agent-hour (``agent_hours``:
        default the agents that decided times the hours since the first decision)."""
        if not self.uses_llm:
            return []
        table = self.per_agent_hour(agent_hours)
        return [*self.accounting.report(), *per_agent_hour_lines(table)]

    def per_agent_hour(self, agent_hours: float | None = None) -> dict[str, dict[str, Any]]:
        """Per module and ``all``: calls, tokens and dollars per agent-hour (dollars at the
        price of the model each module used, cached input at its cached price; and at the
        price table of ``piano bench cost``)."""
        hours = self.accounting.agent_hours() if agent_hours is None else agent_hours
        return cost_table(self.accounting.summary(), hours)

    def snapshot(self) -> dict[str, Any]:
        """Everything for ``metrics.json`` (no secrets)."""
        return {
            "provider": self.settings.provider,
            "models": {m: model.name for m, model in sorted(self._models.items())},
            "accounting": self.accounting.snapshot(),
            "budget": {
                **self.budgets.snapshot(),
                "per_hour": self.hourly.snapshot() if self.hourly is not None else None,
            },
            "limiter": self.limiter.snapshot(),
            "endpoints": [state.snapshot() for _, state in sorted(self._endpoints.items())],
            "circuits": {
                c.name: {"state": c.state, "opened": c.opened, "skipped_calls": c.skipped}
                for c in self._circuits.values()
            },
            "prompt_log": str(self.prompt_log.path) if self.prompt_log is not None else None,
        }


def scheduling_policy(settings: LLMSettings) -> SchedulingPolicy:
    """Priorities and deadlines from the ``llm:`` section."""
    d = settings.deadlines_s
    return SchedulingPolicy(
        deadlines_s={Priority.HIGH: d.high, Priority.NORMAL: d.normal, Priority.LOW: d.low},
        overrides={m: Priority.parse(p) for m, p in settings.priorities.items()},
    )
