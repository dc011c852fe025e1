"""A second, smaller model (``llm.small_model``): importance ratings and social summaries
use it by default; the controller and the others stay on ``model``; ``modules`` wins."""

from __future__ import annotations

from agent_runtime.config.llm import SMALL_MODEL_MODULES, LLMSettings


def test_the_small_calls_go_to_the_small_model_when_one_is_named() -> None:
    cfg = LLMSettings(provider="openai", model="gpt-4o", small_model="gpt-4o-mini")
    assert SMALL_MODEL_MODULES == ("memory", "social_awareness")
    assert cfg.for_module("memory").model == "gpt-4o-mini"
    assert cfg.for_module("social_awareness").model == "gpt-4o-mini"
    assert cfg.for_module("cognitive_controller").model == "gpt-4o"
    assert cfg.for_module("reflection").model == "gpt-4o"


def test_without_a_small_model_or_with_a_module_entry_nothing_changes() -> None:
    assert LLMSettings(model="gpt-4o").for_module("memory").model == "gpt-4o"
    named = LLMSettings(model="gpt-4o", small_model="gpt-4o-mini", modules={"memory": "m2"})
    assert named.for_module("memory").model == "m2"
