"""What the LLM is told in each experiment: every runner at a tiny scale (world none, 3 agents)
with a scripted model (it records every request and answers with a valid synthesised reply).
Each prompt an agent's module sends carries that agent's own profile and perceptions only:
never another agent's name or traits (nobody perceives anybody without a world), nor a hidden
variable of the experiment (the roles to find, the influencer roster, the frozen flag, the
true likeability)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest

from agent_runtime.interfaces import LLMRequest
from agent_runtime.llm.scripted import ScriptedLanguageModel
from agent_runtime.llm.simulated import SimulatedLanguageModel
from experiments.registry import run
from experiments.spec import ExperimentOptions
from modules.memory.encoder import HashingEncoder

pytestmark = pytest.mark.services

# the roles the specialisation experiment looks for (its config's ``paper`` column)
ROLES = ("farmer", "miner", "engineer", "blacksmith", "strategist", "curator")


def capture_traits(monkeypatch: pytest.MonkeyPatch) -> dict[str, tuple[str, ...]]:
    """Each agent's traits as the village resolves its agents (filled during the run)."""
    from agent_runtime.config.loader import resolve_agents

    traits: dict[str, tuple[str, ...]] = {}

    def resolved(*args: Any, **kw: Any) -> list[Any]:
        agents: list[Any] = resolve_agents(*args, **kw)
        traits.update({a.name: tuple(a.traits) for a in agents})
        return agents

    monkeypatch.setattr("agent_runtime.app.village.resolve_agents", resolved)
    return traits


def recording_model() -> ScriptedLanguageModel:
    sim = SimulatedLanguageModel()

    async def respond(req: LLMRequest[Any]) -> Any:
        return (await sim.complete(req)).value

    return ScriptedLanguageModel(responder=respond)


async def run_scripted(
    tmp_path: Path, small_config: Callable[..., Path], name: str, condition: str,
    protocol: dict[str, Any], time_scale: float, monkeypatch: pytest.MonkeyPatch,
) -> tuple[ScriptedLanguageModel, dict[str, tuple[str, ...]]]:
    """Run with the recording model; returns it, each agent's traits (as the village resolved
    its agents)."""
    traits = capture_traits(monkeypatch)
    model = recording_model()
    opts = ExperimentOptions(out=tmp_path / "out", world="none", llm="heuristic", repeats=1,
                             agents=3, time_scale=time_scale, conditions=(condition,),
                             embedder=HashingEncoder(), llm_override=model)
    await run(name, small_config(name, protocol), opts)
    assert len(traits) == 3
    return model, traits


def text_of(req: LLMRequest[Any]) -> str:
    return "\n".join(m.content for m in req.messages)


def check_prompts(
    calls: Iterable[LLMRequest[Any]], traits: dict[str, tuple[str, ...]],
    hidden: Iterable[str] = (), names_allowed: Iterable[str] = (),
) -> set[str]:
    """Each agent's prompts: its own name, no other agent's name or traits, nothing hidden.
    Returns the modules that prompted."""
    modules: set[str] = set()
    hidden = [h.lower() for h in hidden]
    by_agent: dict[str, int] = {}
    for req in calls:
        if req.agent not in traits:
            continue  # the experiment's own calls (e.g. the election manager): not an agent's
        modules.add(req.module)
        by_agent[req.agent] = by_agent.get(req.agent, 0) + 1
        text = text_of(req)
        assert req.agent in text, (req.module, text[:300])
        own = set(traits[req.agent])
        for other, theirs in traits.items():
            if other == req.agent:
                continue
            if req.module not in names_allowed:
                assert other not in text, (req.agent, req.module, other)
            for trait in set(theirs) - own:
                assert trait not in text, (req.agent, req.module, trait)
        low = text.lower()
        for h in hidden:
            assert h not in low, (req.agent, req.module, h)
    assert set(by_agent) == set(traits)  # every agent's modules prompted
    return modules


async def test_specialization_prompts(tmp_path: Path, small_config: Callable[..., Path],
        monkeypatch: pytest.MonkeyPatch) -> None:
    model, traits = await run_scripted(
        tmp_path, small_config, "specialization", "normal",
        {"duration_s": 60, "sample_every_s": 10, "role_every_s": 30}, 0.05, monkeypatch)
    modules = check_prompts(model.calls, traits, hidden=(*ROLES, "persistent roles"))
    assert {"goal_generation", "cognitive_controller", "role_inference"} <= modules
    for req in model.calls:
        if req.module == "role_inference":  # the post-hoc labeller sees the agent's goals only
            text = text_of(req)
            assert "Latest social goals of " + req.agent in text
            assert not any(t in text for t in traits[req.agent])


async def test_item_progression_prompts(tmp_path: Path,
                                        small_config: Callable[..., Path],
        monkeypatch: pytest.MonkeyPatch) -> None:
    model, traits = await run_scripted(
        tmp_path, small_config, "item_progression", "full",
        {"duration_s": 60, "sample_every_s": 20}, 0.05, monkeypatch)
    modules = check_prompts(model.calls, traits, hidden=("item_progression", "unique items"))
    assert {"goal_generation", "cognitive_controller"} <= modules


async def test_social_perception_prompts(tmp_path: Path,
                                         small_config: Callable[..., Path],
        monkeypatch: pytest.MonkeyPatch) -> None:
    model, traits = await run_scripted(
        tmp_path, small_config, "social_perception", "full",
        {"duration_s": 300, "max_observers": 2}, 0.02, monkeypatch)
    # the scorer reads an observer's summaries of a person, which name that person
    check_prompts(model.calls, traits, hidden=("likeability", "extroversion"),
                  names_allowed=("likeability_scoring",))
    assert len({t for ts in traits.values() for t in ts}) > 3  # distinct personalities


async def test_tax_prompts(tmp_path: Path, small_config: Callable[..., Path],
        monkeypatch: pytest.MonkeyPatch) -> None:
    model, traits = await run_scripted(
        tmp_path, small_config, "tax", "frozen-pro", {}, 0.01, monkeypatch)
    hidden = ("influencer", "frozen", "roster")
    modules = check_prompts(model.calls, traits, hidden=hidden)
    # the members' own democratic steps prompt from their own view
    assert {"cognitive_controller", "tax_feedback", "tax_vote"} <= modules
    for req in model.calls:
        if req.module in ("tax_feedback", "tax_vote"):
            assert "constitution" in text_of(req).lower()
    # the election manager (the experiment, not an agent) reads the feedback, the amendments
    # and the votes, never the roster or the condition
    manager = [r for r in model.calls if r.agent not in traits]
    assert "tax_amendments" in {r.module for r in manager}
    for req in manager:
        low = text_of(req).lower()
        assert not [h for h in hidden if h in low], req.module
        assert not [t for ts in traits.values() for t in ts if t in text_of(req)], req.module
