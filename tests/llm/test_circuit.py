"""A refused or dead endpoint trips the circuit breaker: one warning, fast heuristic
fallback, a probe later, and closing again when the endpoint answers."""

from __future__ import annotations

import logging

import pytest

from agent_runtime.llm import (
    Circuit,
    CircuitBreakerModel,
    FakeOpenAIServer,
    FakeReply,
    LLMCircuitOpen,
    LLMError,
    LLMInvalidOutput,
)
from agent_runtime.llm.brain import Brain
from tests.core.helpers import ManualClock

from .conftest import PLAN, ModelFactory, Plan, plan_request


async def test_repeated_failures_open_the_circuit_and_a_probe_closes_it(
    server: FakeOpenAIServer, make_model: ModelFactory, caplog: pytest.LogCaptureFixture
) -> None:
    clock = ManualClock()
    circuit = Circuit("fake", threshold=3, open_s=10, clock=clock)
    model = CircuitBreakerModel(make_model(max_retries=0), circuit)
    server.push(*(FakeReply.error(503) for _ in range(3)))
    with caplog.at_level(logging.WARNING, logger="agent_runtime.llm.circuit"):
        for _ in range(3):
            with pytest.raises(LLMError):
                await model.complete(plan_request())
        assert circuit.state == "open"
        sent = len(server.chat_requests())
        for _ in range(20):  # answered at once, nothing reaches the endpoint
            with pytest.raises(LLMCircuitOpen):
                await model.complete(plan_request())
        assert len(server.chat_requests()) == sent and circuit.skipped == 20
        clock.t = 11  # half-open: one probe; it fails -> open again for twice as long
        server.push(FakeReply.error(500))
        with pytest.raises(LLMError):
            await model.complete(plan_request())
        assert circuit.state == "open" and circuit.open_s == 20
        clock.t = 32  # the next probe succeeds -> closed
        server.push(FakeReply.json(PLAN))
        result = await model.complete(plan_request())
        assert isinstance(result.value, Plan) and circuit.state == "closed"
    opened = [r for r in caplog.records if "failed 3 times" in r.getMessage()]
    assert len(opened) == 1  # one warning, not one per call


async def test_invalid_replies_do_not_trip_it() -> None:
    circuit = Circuit("x", threshold=2, open_s=5)
    for _ in range(5):
        circuit.failed(LLMInvalidOutput("not json"))
    assert circuit.state == "closed"


async def test_an_open_circuit_falls_back_to_the_heuristic_with_its_reason(
    server: FakeOpenAIServer, make_model: ModelFactory
) -> None:
    circuit = Circuit("fake", threshold=1, open_s=60)
    brain = Brain(CircuitBreakerModel(make_model(max_retries=0), circuit), module="m", agent="a")
    server.push(FakeReply.error(401, "bad key"))
    first = await brain.think(plan_request, lambda: Plan(goal="h", steps=["x"]))
    second = await brain.think(plan_request, lambda: Plan(goal="h", steps=["x"]))
    assert first.is_heuristic and second.is_heuristic
    assert second.fallback_reason == "LLMCircuitOpen"
    assert len(server.chat_requests()) == 1
