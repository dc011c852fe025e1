"""Each module's ``options`` in a village file, typed: a misspelt key or a value of the wrong
type is a config error naming the file and the field (``modules.overrides.<module>.options.
<key>``), not a keyword a module ignores. An option left out (None) takes the module's own
default, which the module defines (the config floor does not know the modules)."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from agent_runtime.config.strict import Strict

__all__ = [
    "MODULE_OPTIONS",
    "ControllerOptions",
    "GoalOptions",
    "MemoryOptions",
    "ModuleOptions",
    "NoOptions",
    "PlanningOptions",
    "ReflectionOptions",
]


class ModuleOptions(Strict):
    """A module's options; ``given()`` has only those the file set."""

    def given(self) -> dict[str, Any]:
        return self.model_dump(exclude_none=True)


class NoOptions(ModuleOptions):
    """A module without options."""


class MemoryOptions(ModuleOptions):
    decay: float | None = Field(default=None, gt=0, le=1)  # recency decay per game hour
    weights: tuple[float, float, float] | None = None  # recency, importance, relevance
    batch: int | None = Field(default=None, ge=1)  # memories rated in one model call
    batch_s: float | None = Field(default=None, gt=0)  # longest wait of an unrated memory
    remember_ratings: int | None = Field(default=None, ge=0)  # model ratings kept for repeats


class GoalOptions(ModuleOptions):
    kinds: tuple[str, ...] | None = None  # the activities this village's agents choose from
    ask_on_change: bool | None = None  # with a model: asked only when its inputs changed
    max_interval_s: float | None = Field(default=None, gt=0)  # ... and at least this often


class ControllerOptions(ModuleOptions):
    deadline_s: float | None = Field(default=None, gt=0)  # longest wait for a model slot
    prompt_chars: int | None = Field(default=None, ge=200)  # the view's text in the prompt
    ask_on_change: bool | None = None  # asked only when the view changed in a way that counts
    max_interval_s: float | None = Field(default=None, gt=0)  # ... and at least this often
    follow_plan_steps: int | None = Field(default=None, ge=0)  # steps a standing decision covers
    standing_ask_s: float | None = Field(default=None, ge=0)  # a standing decision's ceiling cover
    plan_wait_s: float | None = Field(default=None, ge=0)  # wait for planning's next steps


class PlanningOptions(ModuleOptions):
    replan_min_s: float | None = Field(default=None, ge=0)  # with a model: between step re-plans
    finish_steps: bool | None = None  # an hour's steps left are finished before the next hour
    goal_steps: bool | None = None  # with a model: a goal change re-plans only the steps
    step_window_h: float | None = Field(default=None, ge=0)  # steps planned this far ahead (h)


class ReflectionOptions(ModuleOptions):
    threshold: float | None = Field(default=None, gt=0)  # summed importance that reflects


#: module name -> the type of its options
MODULE_OPTIONS: dict[str, type[ModuleOptions]] = {
    "perception": NoOptions,
    "memory": MemoryOptions,
    "action_awareness": NoOptions,
    "goal_generation": GoalOptions,
    "social_awareness": NoOptions,
    "talking": NoOptions,
    "skill_execution": NoOptions,
    "cognitive_controller": ControllerOptions,
    "planning": PlanningOptions,
    "reflection": ReflectionOptions,
}
