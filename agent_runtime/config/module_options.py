"""Each module's ``options`` in a village file, typed, with their defaults: a misspelt key or a
value of the wrong type is a config error naming the file and the field
(``modules.overrides.<module>.options.<key>``), not a keyword a module ignores. A module is
built from its options type (:mod:`modules.registry`); an option the file leaves out takes
the default written here, the one place each knob and the evidence for its value live."""

from __future__ import annotations

from pydantic import Field

from agent_runtime.config.strict import Strict

__all__ = [
    "BATCH",
    "BATCH_S",
    "CONTROLLER_MAX_INTERVAL_S",
    "DEADLINE_S",
    "FOLLOW_PLAN_STEPS",
    "GOAL_MAX_INTERVAL_S",
    "MODULE_OPTIONS",
    "PLAN_WAIT_S",
    "REMEMBERED_RATINGS",
    "REPLAN_MIN_S",
    "STANDING_ASK_S",
    "STEP_WINDOW_H",
    "ControllerOptions",
    "GoalOptions",
    "MemoryOptions",
    "ModuleOptions",
    "NoOptions",
    "PlanningOptions",
    "ReflectionOptions",
]

# The measurements behind these defaults are in agent_runtime/llm/BENCH.md (`piano bench
# cost`, parts G to J); each comment says what the value trades.

# -- memory
#: memories rated in one model call at most (a smaller batch filled before the oldest memory
#: had waited BATCH_S, and every batch is a call)
BATCH = 16
#: agent's seconds the oldest unrated memory waits at most. A memory is in working memory at
#: once; only its stored, retrievable record waits, so a longer wait halves the calls at no
#: cost to the decisions (texts rated before are not asked again: ``ImportanceBrain.known``)
BATCH_S = 60.0
#: ratings an agent's importance rater keeps for repeated memories (a few game days of
#: distinct texts: ~100 an agent in 10 minutes)
REMEMBERED_RATINGS = 512

# -- goal generation
#: agent's seconds between two model calls at most. A goal changes for a reason (reached,
#: pursued long enough) that :func:`modules.goal_generation.inputs` sees and asks about at
#: once, so the ceiling is only a safety net: at a 60 s ceiling most calls kept the goal
GOAL_MAX_INTERVAL_S = 300.0

# -- cognitive controller
#: longest wait for a model slot before the call is shed to the heuristic: the reflexes and
#: the filler keep the agent acting meanwhile, so the controller can afford to wait its turn
DEADLINE_S = 30.0
#: agent's seconds between two model calls at most (the controller's cadence and the call's
#: latency come on top: 10 + 3 + ~1 s keeps every agent deciding within 15 s)
CONTROLLER_MAX_INTERVAL_S = 10.0
#: plan steps a standing decision of the model (``follow_plan``) starts without a call at most:
#: an hour's steps (5-minute steps at the shortest). Anything but the step's success and the
#: plan moving on asks the model; a lower limit asked it on most skill ends
FOLLOW_PLAN_STEPS = 12
#: while the skill a standing decision started (or followed) runs, the decision answers the
#: gate's ceiling itself (a ``continue`` labelled ``<model>+plan``, no call), but the model is
#: asked again at least this often (agent's seconds): asked at every ceiling, the model
#: answered "continue" every time
STANDING_ASK_S = 60.0
#: when the standing decision's skill succeeded and the plan's steps ran out, the controller
#: waits this long (agent's seconds after the skill ended, and never past the gate's ceiling)
#: for the planning module, woken by the same skill event, to write the next steps, and
#: follows the first of them; then it asks (asked at once, a quarter of the skill-end calls
#: came while the plan was being written)
PLAN_WAIT_S = 5.0

# -- planning
REPLAN_MIN_S = 30.0  # with a model: agent's seconds between two re-plans of the steps at least
#: with a model, the steps are planned for at least this many game hours from now: a re-plan
#: late in an hour chunk otherwise covers a few game minutes (an hour of game time is 50 s of
#: the agent's) and runs out before the next hour is planned
STEP_WINDOW_H = 1.0


class ModuleOptions(Strict):
    """A module's options."""


class NoOptions(ModuleOptions):
    """A module without options."""


class MemoryOptions(ModuleOptions):
    decay: float = Field(default=0.995, gt=0, le=1)  # recency decay per game hour
    weights: tuple[float, float, float] = (1.0, 1.0, 1.0)  # recency, importance, relevance
    batch: int = Field(default=BATCH, ge=1)  # memories rated in one model call
    batch_s: float = Field(default=BATCH_S, ge=0)  # longest wait of an unrated memory (0: none)
    remember_ratings: int = Field(default=REMEMBERED_RATINGS, ge=0)  # ratings kept for repeats


class GoalOptions(ModuleOptions):
    kinds: tuple[str, ...] = ()  # the activities this village's agents choose from (): all
    ask_on_change: bool = True  # with a model: asked only when its inputs changed
    max_interval_s: float = Field(default=GOAL_MAX_INTERVAL_S, gt=0)  # ... and at least this often


class ControllerOptions(ModuleOptions):
    deadline_s: float = Field(default=DEADLINE_S, gt=0)  # longest wait for a model slot
    ask_on_change: bool = True  # asked only when the view changed in a way that counts
    max_interval_s: float = Field(
        default=CONTROLLER_MAX_INTERVAL_S, gt=0
    )  # ... and at least this often
    follow_plan_steps: int = Field(default=FOLLOW_PLAN_STEPS, ge=0)  # a standing decision's steps
    standing_ask_s: float = Field(default=STANDING_ASK_S, ge=0)  # its ceiling cover
    plan_wait_s: float = Field(default=PLAN_WAIT_S, ge=0)  # wait for planning's next steps


class PlanningOptions(ModuleOptions):
    replan_min_s: float = Field(default=REPLAN_MIN_S, ge=0)  # with a model: between re-plans
    finish_steps: bool = True  # an hour's steps left are finished before the next hour
    goal_steps: bool = True  # with a model: a goal change re-plans only the steps
    step_window_h: float = Field(default=STEP_WINDOW_H, ge=0)  # steps planned this far ahead (h)


class ReflectionOptions(ModuleOptions):
    threshold: float = Field(default=150.0, gt=0)  # summed importance that reflects (the paper's)


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
