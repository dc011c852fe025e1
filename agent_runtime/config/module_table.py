"""The PIANO modules' names, ablation presets and default cadences, in one place.

The module classes live in ``modules/``; their triggers are declared next to them in the
registry. This table is what the config validates against and what ablations select.
"""

from __future__ import annotations

MODULE_NAMES: tuple[str, ...] = (
    "perception",
    "memory",
    "action_awareness",
    "goal_generation",
    "social_awareness",
    "talking",
    "skill_execution",
    "cognitive_controller",
    "planning",
    "reflection",
)

#: Ablation presets: which modules run (paper's baseline = skill execution, memory, CC).
PRESETS: dict[str, frozenset[str]] = {
    "full": frozenset(MODULE_NAMES),
    "baseline": frozenset({"perception", "memory", "skill_execution", "cognitive_controller"}),
    "no_action_awareness": frozenset(MODULE_NAMES) - {"action_awareness"},
    "no_social": frozenset(MODULE_NAMES) - {"social_awareness"},
}

#: Default cadence (seconds) and jitter ceiling per module; None = trigger-only.
DEFAULT_CADENCES: dict[str, tuple[float | None, float | None]] = {
    "perception": (1.0, None),
    "memory": (3.0, None),
    "action_awareness": (None, None),
    "goal_generation": (5.0, 10.0),
    "social_awareness": (4.0, None),
    "talking": (None, None),
    "skill_execution": (None, None),
    "cognitive_controller": (3.0, None),
    "planning": (60.0, None),
    "reflection": (10.0, None),
}
