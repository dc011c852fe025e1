"""Fixtures for the LLM layer: a fake OpenAI-compatible server and clients bound to it, and
the real llama-cpp-python server of the slow tests (:mod:`tests.llm.llama`)."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator, Callable, Iterator

import pytest
from openai import AsyncOpenAI
from pydantic import BaseModel, Field

from agent_runtime.config.llm import LLMDeadlines, LLMSettings
from agent_runtime.interfaces import LLMRequest, Message
from agent_runtime.llm import FakeOpenAIServer, Limiter, OpenAILanguageModel, RetryPolicy
from tests.llm import llama

API_KEY = "sk-test-SECRETSECRET-1234567890"


class Plan(BaseModel):
    goal: str
    steps: list[str] = Field(min_length=1)
    urgency: int = Field(default=1, ge=1, le=5)


def plan_request(
    agent: str = "alice", module: str = "planning", user: str = "What next?"
) -> LLMRequest[Plan]:
    return LLMRequest(
        module=module,
        agent=agent,
        messages=(Message("system", "You plan."), Message("user", user)),
        response_model=Plan,
        prompt_name="plan",
    )


PLAN = {"goal": "wood", "steps": ["walk to tree", "chop"], "urgency": 2}


def one_at_a_time(latency_ms: int, normal_s: float) -> LLMSettings:
    """A slow simulated model that answers one call at a time; low-priority calls that would
    wait over 50 ms are shed."""
    return LLMSettings(
        provider="simulated",
        simulated_latency_ms=latency_ms,
        simulated_capacity=1,
        concurrency=1,
        adaptive_concurrency=False,
        deadlines_s=LLMDeadlines(high=5, normal=normal_s, low=0.05),
        log_prompts=False,
    )


@pytest.fixture(scope="session")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real llama-cpp-python server with Gemma 3 270M on loopback, one thread (slow tests
    only: the first use assembles the GGUF and starts the server)."""
    with llama.serve(tmp_path_factory.mktemp("llama")) as base_url:
        yield base_url


@pytest.fixture
async def server() -> AsyncIterator[FakeOpenAIServer]:
    async with FakeOpenAIServer() as srv:
        yield srv


ModelFactory = Callable[..., OpenAILanguageModel]


@pytest.fixture
async def make_model(server: FakeOpenAIServer) -> AsyncIterator[ModelFactory]:
    clients: list[AsyncOpenAI] = []

    def make(
        *,
        max_retries: int = 2,
        timeout_s: float = 5.0,
        limiter: Limiter | None = None,
        model: str = "gpt-4o-mini",
        structured_output: str = "auto",
        backoff: tuple[float, float] = (0.001, 0.01),
    ) -> OpenAILanguageModel:
        client = AsyncOpenAI(
            base_url=server.base_url, api_key=API_KEY, max_retries=0, timeout=timeout_s
        )
        clients.append(client)
        return OpenAILanguageModel(
            client,
            model,
            retry=RetryPolicy(max_retries, *backoff),
            timeout_s=timeout_s,
            limiter=limiter,
            structured_output=structured_output,  # type: ignore[arg-type]
            rng=random.Random(1),
        )

    yield make
    for c in clients:
        await c.close()
