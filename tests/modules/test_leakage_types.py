"""The leakage rule guarded by types: what a module is handed is the list of what it may use.

``test_leakage.py`` shows that no policy decides from what its agent could not perceive;
these tests show that no module is handed it in the first place. A module's context holds
its own agent's declared sections, its brain, its clock, its RNG, the event log, its
agent's memory inbox (and, for the memory module, the memory store): no village config, no
other agent's config, no untyped service, no dict shared by string keys. The modules are
built with their own options only.
"""

from __future__ import annotations

import dataclasses
import inspect
import random
import typing
from typing import Any

import pytest
from redis.asyncio import Redis

from agent_runtime.agent_memory import MemoryStore
from agent_runtime.agent_services import AgentServices
from agent_runtime.app.testing import agent_spec, config, local_services, module_context
from agent_runtime.config.loader import ResolvedAgent
from agent_runtime.config.models import (
    BottleneckSection,
    BottleneckSettings,
    VillageConfig,
)
from agent_runtime.llm.factory import LLMService
from agent_runtime.module import Module, Schedule
from agent_runtime.module_context import ModuleContext, SectionAccessError
from agent_runtime.state.sections import Decision, Goals, Identity, Plan, Social
from agent_runtime.state.store import AgentState, StateStore
from modules.controller.module import CognitiveController
from modules.goal_generation import GoalGeneration
from modules.perception import PerceptionModule
from modules.registry import build_modules
from tests.modules.leakage_world import modules_for

#: what would let a module read beyond its own agent's declared sections
FORBIDDEN = (VillageConfig, ResolvedAgent, AgentServices, StateStore, AgentState, LLMService)


def _types(hint: object) -> typing.Iterator[object]:
    """``hint`` and every type inside it (``X | None``, ``dict[str, X]``, ...)."""
    yield hint
    for arg in typing.get_args(hint):
        yield from _types(arg)


def _hints(cls: type) -> dict[str, object]:
    return typing.get_type_hints(cls, localns={"Redis": Redis})


def _field_types(cls: type) -> dict[str, list[object]]:
    """The public fields of ``cls`` and every type their annotations name."""
    return {
        name: list(_types(hint))
        for name, hint in _hints(cls).items()
        if not name.startswith("_") and not isinstance(hint, dataclasses.InitVar)
    }


@pytest.mark.parametrize("cls", [ModuleContext, AgentServices, MemoryStore])
def test_no_any_in_what_the_runtime_hands_out(cls: type) -> None:
    untyped = [name for name, kinds in _field_types(cls).items() if Any in kinds]
    assert untyped == []


@pytest.mark.parametrize("cls", [ModuleContext, MemoryStore])
def test_a_module_is_handed_no_config_and_no_other_agents_state(cls: type) -> None:
    leaks = [
        f"{name}: {kind}"
        for name, kinds in _field_types(cls).items()
        for kind in kinds
        if isinstance(kind, type) and issubclass(kind, FORBIDDEN)
    ]
    assert leaks == []
    assert not {"services", "shared", "config"} & set(_hints(cls))


def test_modules_are_built_with_their_own_settings_only() -> None:
    """No module's constructor takes an agent's or the village's config."""
    mods = build_modules(config(), agent_spec(), random.Random(0))
    assert mods
    for module in mods:
        hints = typing.get_type_hints(type(module).__init__)
        taken = [k for h in hints.values() for k in _types(h) if isinstance(k, type)]
        assert not [k for k in taken if issubclass(k, FORBIDDEN)], type(module).__name__
        params = inspect.signature(type(module).__init__).parameters
        assert not {"config", "cfg", "agent", "spec", "services"} & set(params)


async def test_a_module_reaches_only_the_sections_it_declared() -> None:
    async with local_services() as svc:
        svc.store.agent("Ann").set("identity", Identity(name="Ann"), writer="runtime")
        goals = GoalGeneration(Schedule(cadence=5.0))
        ctx = module_context(svc, goals, agent="Ann")
        assert not hasattr(ctx, "state") and not hasattr(ctx, "services")
        assert ctx.read("identity", Identity).name == "Ann"
        undeclared = "decision"
        assert undeclared not in ctx.reads | ctx.writes
        with pytest.raises(SectionAccessError):
            ctx.read(undeclared, Decision)
        with pytest.raises(SectionAccessError):
            ctx.snapshot(["identity", undeclared])
        with pytest.raises(SectionAccessError):
            ctx.listen(undeclared, lambda _: None)
        with pytest.raises(SectionAccessError):
            ctx.write("plan", Plan())  # declared by planning, not by goal generation
        ctx.write("goals", Goals(current="gather wood"))


async def test_the_controller_reads_only_what_its_bottleneck_names() -> None:
    """The controller's reads are declared and enforced too: the sections its bottleneck
    settings name, and its own decision; a section outside them is not read."""
    narrow = BottleneckSettings(
        sections=(BottleneckSection(section="identity"), BottleneckSection(section="goals"))
    )
    cc = CognitiveController(Schedule(cadence=3.0), bottleneck=narrow)
    assert cc.sections_read() == {"identity", "goals", "decision"}
    async with local_services() as svc:
        st = svc.store.agent("Ann")
        st.set("identity", Identity(name="Ann"), writer="runtime")
        ctx = module_context(svc, cc, agent="Ann")
        view = cc.view(ctx)
        assert set(view.sections) == {"identity", "goals"}
        with pytest.raises(SectionAccessError):
            ctx.read("social", Social)
    default = CognitiveController(Schedule(cadence=3.0))
    assert default.sections_read() == {"decision"} | {
        s.section for s in BottleneckSettings().sections
    }


def test_every_module_of_an_agent_declares_what_it_reads_and_writes() -> None:
    for name, module in modules_for(PerceptionModule).items():
        assert isinstance(module, Module)
        assert module.sections_read() or type(module).writes, name
