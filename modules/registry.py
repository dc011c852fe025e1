"""Module names -> classes, default triggers, and building an agent's module set from config."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import TypeVar

from agent_runtime.config.loader import ResolvedAgent
from agent_runtime.config.models import VillageConfig
from agent_runtime.config.module_options import (
    ControllerOptions,
    GoalOptions,
    MemoryOptions,
    ModuleOptions,
    PlanningOptions,
    ReflectionOptions,
)
from agent_runtime.module import Module, Schedule
from modules.action_awareness import ActionAwareness
from modules.controller.module import CognitiveController
from modules.goal_generation import GoalGeneration
from modules.memory_module import Memory, StreamSlot
from modules.perception import PerceptionModule
from modules.planning import Planning
from modules.reflection_module import ReflectionModule
from modules.skill_execution import SkillExecution
from modules.social_awareness import SocialAwareness
from modules.talking import Talking

Opts = TypeVar("Opts", bound=ModuleOptions)

#: module name -> (triggers, min_interval between triggered steps, seconds)
TRIGGERS: dict[str, tuple[frozenset[str], float]] = {
    "perception": (frozenset({"topic:event", "world:event"}), 0.2),
    "memory": (frozenset(), 0.0),
    "action_awareness": (frozenset({"topic:skill"}), 0.0),
    "goal_generation": (frozenset(), 0.0),
    "social_awareness": (frozenset({"topic:heard"}), 0.3),
    "talking": (frozenset({"topic:heard", "topic:decision"}), 0.0),
    "skill_execution": (frozenset({"topic:decision"}), 0.0),
    "cognitive_controller": (frozenset({"topic:skill", "topic:heard"}), 0.5),
    # planning reacts to what the agent perceives (a skill ended, a line heard) as well as to
    # a goal change; it re-plans only when that conflicts with its current step
    "planning": (frozenset({"state:goals", "topic:skill", "topic:heard"}), 2.0),
    "reflection": (frozenset(), 0.0),
}


def _factories(cfg: VillageConfig) -> dict[str, Callable[[Schedule, ModuleOptions], Module]]:
    """Module name -> a constructor from its schedule and its options (typed and checked when
    the file was read: :mod:`agent_runtime.config.module_options`), for one agent: the
    modules that use the agent's memory stream share one slot for it."""
    slot = StreamSlot()
    return {
        "perception": lambda s, o: PerceptionModule(s),
        "memory": lambda s, o: Memory(s, _typed(o, MemoryOptions), slot),
        "action_awareness": lambda s, o: ActionAwareness(s),
        "goal_generation": lambda s, o: GoalGeneration(s, _typed(o, GoalOptions)),
        "social_awareness": lambda s, o: SocialAwareness(s),
        "talking": lambda s, o: Talking(s, slot),
        "skill_execution": lambda s, o: SkillExecution(s),
        "cognitive_controller": lambda s, o: CognitiveController(
            s, _typed(o, ControllerOptions), cfg.bottleneck
        ),
        "planning": lambda s, o: Planning(s, _typed(o, PlanningOptions)),
        "reflection": lambda s, o: ReflectionModule(s, _typed(o, ReflectionOptions), slot),
    }


def _typed(options: ModuleOptions, kind: type[Opts]) -> Opts:
    """``options`` as the type its module takes (:data:`MODULE_OPTIONS` built it so)."""
    assert isinstance(options, kind), (type(options), kind)
    return options


def build_modules(cfg: VillageConfig, agent: ResolvedAgent, rng: random.Random) -> list[Module]:
    """Instantiate the enabled modules with their configured schedules.

    The agent's own config reaches its modules only as its Agent State (the identity
    section the runtime writes at start); no module is constructed with config values of
    an agent (its or another's), so no policy can read them. A module gets its own options,
    the controller the village's bottleneck settings (which sections it sees, how much)."""
    del agent, rng
    factories = _factories(cfg)
    out: list[Module] = []
    for name in cfg.modules.enabled():
        cadence, cadence_max = cfg.modules.cadence(name)
        triggers, min_interval = TRIGGERS[name]
        schedule = Schedule(
            cadence=cadence, cadence_max=cadence_max, triggers=triggers, min_interval=min_interval
        )
        out.append(factories[name](schedule, cfg.modules.options(name)))
    return out
