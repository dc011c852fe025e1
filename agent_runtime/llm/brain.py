"""LLM-or-heuristic decisions, always labelled with the brain that made them.

A module asks for a decision with an LLM call and a heuristic policy::

    brain = service.brain("goal_generation", agent.name)     # or Brain(None, ...)
    thought = await brain.think(
        lambda: LLMRequest("goal_generation", agent.name, render_prompt(state), Goals),
        lambda: heuristic_goals(state),
    )
    publish(thought.value, brain=thought.brain)   # "llm:gpt-4o-mini" or "heuristic"

The LLM is used when a model is configured; the heuristic runs when none is
(provider ``heuristic``) or when the call finally fails with any
:class:`LLMError` (retries and repair spent, budget exhausted, limiter
timeout). Heuristic values are always labelled ``"heuristic"`` and counted in
:class:`Accounting` (``heuristic``, and ``fallbacks`` by error kind when an LLM
call failed). Errors that are not ``LLMError`` (bugs, cancellation)
propagate, as do errors raised by the heuristic itself.
"""

from __future__ import annotations

import dataclasses
import inspect
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Generic, Protocol

from agent_runtime.interfaces import LanguageModel, LLMRequest, LLMResult, T
from agent_runtime.llm.accounting import Accounting
from agent_runtime.llm.calls import CallOptions, call_options
from agent_runtime.llm.errors import LLMError
from agent_runtime.llm.limits import Limiter
from agent_runtime.llm.priority import Priority

__all__ = ["HEURISTIC", "Brain", "BrainSource", "Thought", "brain_of", "think"]

logger = logging.getLogger(__name__)

HEURISTIC = "heuristic"

Heuristic = Callable[[], T | Awaitable[T]]


@dataclass(frozen=True, slots=True)
class Thought(Generic[T]):
    """A decision and where it came from."""

    value: T
    brain: str  # "heuristic" or the model's label, e.g. "llm:gpt-4o-mini"
    result: LLMResult[T] | None = None  # usage, latency, attempts when an LLM answered
    fallback_reason: str | None = None  # LLMError kind when the LLM failed

    @property
    def is_heuristic(self) -> bool:
        return self.brain == HEURISTIC


async def think(
    llm: Callable[[], Awaitable[LLMResult[T]]] | None,
    heuristic: Heuristic[T],
    *,
    module: str,
    agent: str,
    accounting: Accounting | None = None,
) -> Thought[T]:
    """Run ``llm()`` if given, else (or if it raises ``LLMError``) ``heuristic()``."""
    reason: str | None = None
    if llm is not None:
        try:
            result = await llm()
        except LLMError as exc:
            reason = exc.kind
            first = accounting is None or accounting.record_heuristic(
                module, agent, fallback_from=reason
            )
            log = logger.warning if first else logger.debug
            log("%s/%s: LLM failed (%s: %s); using the heuristic", agent, module, reason, exc)
        else:
            return Thought(result.value, result.brain or "llm", result)
    elif accounting is not None:
        accounting.record_heuristic(module, agent)
    out = heuristic()
    value: T = await out if inspect.isawaitable(out) else out
    return Thought(value, HEURISTIC, None, reason)


class Brain:
    """One module's decision maker for one agent: a model (or none) plus accounting."""

    def __init__(
        self,
        model: LanguageModel | None,
        *,
        module: str,
        agent: str,
        accounting: Accounting | None = None,
        limiter: Limiter | None = None,
        simulated: bool = False,
    ) -> None:
        self.model = model
        self.module = module
        self.agent = agent
        self.accounting = accounting
        #: the limiter of the endpoint the model's calls queue at (None without a service)
        self.limiter = limiter
        #: the model is the benchmark's simulated endpoint: it pays a call's latency and
        #: tokens, but the decision's content is the heuristic's
        self.simulated = simulated

    @property
    def uses_llm(self) -> bool:
        return self.model is not None

    async def think(
        self,
        request: LLMRequest[T] | Callable[[], LLMRequest[T]],
        heuristic: Heuristic[T],
        *,
        priority: Priority | str | None = None,
        deadline_s: float | None = None,
    ) -> Thought[T]:
        """Decide with the model if there is one.

        ``request`` may be a factory so that prompts are only rendered when a
        model will read them. The request's ``module`` and ``agent`` are set
        to the brain's. ``priority`` (``"high"``, ``"normal"``, ``"low"``;
        default: from the module's name) and ``deadline_s`` (the longest wait
        for a slot; default: the priority's) decide how the call queues; a call
        that would wait longer is shed to the heuristic
        (``fallback_reason == "LLMShed"``).
        """
        model = self.model
        if model is None:
            return await think(
                None, heuristic, module=self.module, agent=self.agent, accounting=self.accounting
            )

        async def call() -> LLMResult[T]:
            req = request if isinstance(request, LLMRequest) else request()
            if (req.module, req.agent) != (self.module, self.agent):
                # budgets and accounting are per (module, agent): the brain's identity wins
                req = dataclasses.replace(req, module=self.module, agent=self.agent)
            with call_options(options):
                return await model.complete(req)

        options = CallOptions(
            Priority.parse(priority) if priority is not None else None,
            deadline_s,
            heuristic=heuristic,
        )
        return await think(
            call, heuristic, module=self.module, agent=self.agent, accounting=self.accounting
        )


class BrainSource(Protocol):
    """What hands out brains: the run's LLM service."""

    def brain(self, module: str, agent: str, *, use_llm: bool = True) -> Brain: ...


def brain_of(llm: BrainSource | None, module: str, agent: str, *, use_llm: bool = True) -> Brain:
    """The one way a module or an experiment gets the brain of one (module, agent): the run's
    LLM service's (with a model when one is configured and ``use_llm``), or, without a
    service, a brain without a model (its policies are the heuristic)."""
    if llm is None:
        return Brain(None, module=module, agent=agent)
    if use_llm:
        return llm.brain(module, agent)
    return llm.brain(module, agent, use_llm=False)
