"""Before speaking to someone, talking retrieves the speaker's own memories about that person
(Generative Agents: the partner is the focal point of the retrieval before each reply)."""

from __future__ import annotations

from typing import Any

from agent_runtime.app.testing import local_services, module_context
from agent_runtime.body.recording import RecordingBody
from agent_runtime.bus import topics
from agent_runtime.llm.brain import Brain
from agent_runtime.llm.scripted import ScriptedLanguageModel
from agent_runtime.module import Schedule
from agent_runtime.state.sections import Decision, Identity, UtteranceGoal, UtteranceKind
from modules.base import remember
from modules.heuristics.talking import UtteranceOut
from modules.memory_module import Memory
from modules.talking import Talking

TRIGGERED = Schedule(cadence=None, triggers=frozenset({"topic:decision", "topic:heard"}))
ABOUT_ANN = "Ann gave me three loaves of bread when I was starving."
ABOUT_CY = "Cy dug a tunnel under the church."


async def _greet_ann(model: ScriptedLanguageModel | None, remembered: bool) -> tuple[str, Any]:
    async with local_services() as svc:
        svc.store.agent("Bob").set("identity", Identity(name="Bob"), writer="runtime")
        mem = Memory(Schedule(cadence=3.0))
        mctx = module_context(svc, mem, agent="Bob")
        await mem.setup(mctx)
        if remembered:
            remember(mctx, ABOUT_ANN, "observation", importance=6)
        remember(mctx, ABOUT_CY, "observation", importance=6)
        await mem.step(mctx)
        body = RecordingBody("Bob")
        talk = Talking(TRIGGERED, mem.slot)
        ctx = module_context(svc, talk, agent="Bob", body=body, memory=mctx.memory)
        if model is not None:
            ctx.brain = Brain(model, module="talking", agent="Bob")
        decision = Decision(
            id="d1",
            intent="say hello to Ann",
            brain="heuristic",
            say=UtteranceGoal(kind=UtteranceKind.GREET, to="Ann"),
        )
        await svc.bus.publish(topics.agent(svc.run_id, "Bob", "decision"), decision)
        await talk.step(ctx)
        (said,) = [c for c in body.calls if c.skill == "chat"]
        return str(said.args["message"]), model.calls if model else None


async def test_the_prompt_carries_what_the_speaker_remembers_about_the_addressee() -> None:
    model = ScriptedLanguageModel([UtteranceOut(text="Hello Ann, thanks again for the bread!")])
    text, calls = await _greet_ann(model, remembered=True)
    assert text == "Hello Ann, thanks again for the bread!"
    (req,) = calls
    prompt = "\n".join(m.content for m in req.messages)
    about = prompt.split("remembers about the person spoken to:")[1].split("Conversation")[0]
    assert "three loaves of bread" in about  # retrieved from Bob's own memory stream
    assert "tunnel" not in about  # a memory about someone else is not about Ann


async def test_the_heuristic_greets_someone_it_remembers_as_an_acquaintance() -> None:
    met, _ = await _greet_ann(None, remembered=True)
    stranger, _ = await _greet_ann(None, remembered=False)
    assert met.startswith("Good to see you again, Ann!")
    assert stranger.startswith("Hi Ann!")
