"""modules/policies.py, the one "LLM or heuristic" entry point: same view to both, labels,
fallbacks counted, and the simulated provider's content labelled as the heuristic's."""

from __future__ import annotations

from agent_runtime.app.testing import config, local_services, module_context
from agent_runtime.llm.brain import Brain
from agent_runtime.llm.errors import LLMTimeout
from agent_runtime.llm.scripted import ScriptedLanguageModel
from agent_runtime.module import Schedule
from agent_runtime.state.sections import UtteranceGoal, UtteranceKind
from modules.heuristics.talking import UtteranceOut, speak
from modules.policies import HEURISTIC, SIMULATED, decide, module_policy
from modules.talking import Talking
from modules.views import TalkView

VIEW = TalkView(name="Ann", say=UtteranceGoal(kind=UtteranceKind.ANSWER, to="Bob"))


async def _decide(
    model: ScriptedLanguageModel | None, provider: str = "openai"
) -> tuple[str, str, int]:
    cfg = config(llm={"provider": provider}) if provider != "heuristic" else config()
    async with local_services(cfg) as svc:
        talk = Talking(Schedule(cadence=None))
        ctx = module_context(svc, talk, agent="Ann")
        if model is not None:
            ctx.brain = Brain(
                model, module="talking", agent="Ann", simulated=provider == "simulated"
            )
        policy = module_policy(ctx, UtteranceOut, speak, prompt="talking")
        got = await decide(ctx, policy, VIEW)
        return got.value.text, got.brain, ctx.stats.fallbacks


async def test_heuristic_without_a_model() -> None:
    text, brain, _ = await _decide(None, "heuristic")
    assert brain == HEURISTIC and "Bob" in text


async def test_the_llm_answers_from_the_same_view() -> None:
    model = ScriptedLanguageModel([UtteranceOut(text="Sure thing, Bob.")])
    text, brain, _ = await _decide(model)
    assert (text, brain) == ("Sure thing, Bob.", "llm:scripted")
    assert "Bob" in model.calls[0].messages[1].content


async def test_a_failed_call_falls_back_and_is_counted() -> None:
    text, brain, fallbacks = await _decide(ScriptedLanguageModel([LLMTimeout("slow")]))
    assert brain == HEURISTIC and fallbacks == 1 and "Bob" in text


async def test_simulated_content_is_the_heuristics_and_says_so() -> None:
    text, brain, _ = await _decide(
        ScriptedLanguageModel([UtteranceOut(text="LLM words")]), "simulated"
    )
    assert brain == SIMULATED and text != "LLM words" and "Bob" in text
