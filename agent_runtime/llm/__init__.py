"""The LLM layer: structured calls to OpenAI-compatible endpoints, with limits,
budgets, accounting, prompt logging, and labelled heuristic fallback.

See README.md in this folder. Public names only; the submodules are private
implementation detail except where a test needs a specific helper.
"""

from agent_runtime.llm.accounting import Accounting, CallStats, PriceTable
from agent_runtime.llm.adaptive import AdaptiveConcurrency
from agent_runtime.llm.brain import HEURISTIC, Brain, Thought, think
from agent_runtime.llm.buckets import TokenBucket
from agent_runtime.llm.budget import Budgets
from agent_runtime.llm.circuit import Circuit, CircuitBreakerModel
from agent_runtime.llm.errors import (
    LLMBudgetExceeded,
    LLMCircuitOpen,
    LLMConfigError,
    LLMConnectionError,
    LLMError,
    LLMInvalidOutput,
    LLMLimiterTimeout,
    LLMRateLimited,
    LLMRequestRejected,
    LLMServerError,
    LLMShed,
    LLMTimeout,
)
from agent_runtime.llm.factory import PROMPT_LOG_NAME, LLMService
from agent_runtime.llm.fake_server import FakeOpenAIServer, FakeReply, RecordedRequest
from agent_runtime.llm.limits import Limiter
from agent_runtime.llm.managed import Bookkeeping, ManagedLanguageModel
from agent_runtime.llm.modes import EndpointState
from agent_runtime.llm.openai_model import OpenAILanguageModel
from agent_runtime.llm.priority import Priority, SchedulingPolicy, priority_for
from agent_runtime.llm.prompt_log import PromptLog, redact
from agent_runtime.llm.retries import RetryPolicy
from agent_runtime.llm.scripted import ScriptedLanguageModel, ScriptExhausted
from agent_runtime.llm.simulated import SimulatedLanguageModel

__all__ = [
    "HEURISTIC",
    "PROMPT_LOG_NAME",
    "Accounting",
    "AdaptiveConcurrency",
    "Bookkeeping",
    "Brain",
    "Budgets",
    "CallStats",
    "Circuit",
    "CircuitBreakerModel",
    "EndpointState",
    "FakeOpenAIServer",
    "FakeReply",
    "LLMBudgetExceeded",
    "LLMCircuitOpen",
    "LLMConfigError",
    "LLMConnectionError",
    "LLMError",
    "LLMInvalidOutput",
    "LLMLimiterTimeout",
    "LLMRateLimited",
    "LLMRequestRejected",
    "LLMServerError",
    "LLMService",
    "LLMShed",
    "LLMTimeout",
    "Limiter",
    "ManagedLanguageModel",
    "OpenAILanguageModel",
    "PriceTable",
    "Priority",
    "PromptLog",
    "RecordedRequest",
    "RetryPolicy",
    "SchedulingPolicy",
    "ScriptExhausted",
    "ScriptedLanguageModel",
    "SimulatedLanguageModel",
    "Thought",
    "TokenBucket",
    "priority_for",
    "redact",
    "think",
]
