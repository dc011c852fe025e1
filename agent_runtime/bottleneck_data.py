"""What each section of the controller's view holds for the heuristic policy: typed facts.

Every section of the bottleneck (:mod:`agent_runtime.bottleneck`) is summarised twice: as
text for the LLM policy and as one of these frozen models for the heuristic policy, with the
same selected facts. An absent section reads as the model's empty default.
"""

from __future__ import annotations

from pydantic import Field

from agent_runtime.config.strict import Strict
from agent_runtime.state.sections import IdentityFacts, Utterance
from agent_runtime.world import SkillCall, SkillOutcome, Vec3

__all__ = [
    "ActionData",
    "ActionRecord",
    "AwarenessData",
    "ConversationData",
    "Data",
    "DiscrepancyNote",
    "GoalsData",
    "IdentityData",
    "PerceptionData",
    "PersonData",
    "PlanData",
    "ReflectionData",
    "SectionData",
    "SocialData",
    "WorkingMemoryData",
]


class Data(Strict):
    """The frozen base of every section's data."""


class IdentityData(IdentityFacts, Data):
    """The identity section's facts (its places cut to the section's ``max_items``)."""


class PerceptionData(Data):
    position: Vec3 | None = None
    health: float = 20.0
    food: float = 20.0
    time_of_day: int | None = None
    inventory: dict[str, int] = Field(default_factory=dict)
    players: tuple[str, ...] = ()
    player_distance: dict[str, float] = Field(default_factory=dict)
    blocks: dict[str, float] = Field(default_factory=dict)  # kind -> nearest distance
    connected: bool = True
    observed_at: float = 0.0  # when the body took the snapshot (unix s)


class GoalsData(Data):
    current: str = ""
    kind: str = ""
    set_at: float = 0.0


class PlanData(Data):
    goal: str = ""
    current: int = 0
    current_step: str = ""
    current_skill: SkillCall | None = None
    next_skill: SkillCall | None = None  # the step after the current one
    steps: tuple[str, ...] = ()
    done: tuple[bool, ...] = ()  # which of the steps are done
    updated_at: float = 0.0  # when its own plan was last written (a step marked done, a re-plan)


class PersonData(Data):
    name: str
    sentiment: float = 5.0
    activity: str = ""
    summary: str = ""
    interactions: int = 0  # lines heard from them


class SocialData(Data):
    people: tuple[PersonData, ...] = ()
    opinions: dict[str, float] = Field(default_factory=dict)

    def sentiment(self, name: str, default: float = 5.0) -> float:
        return next((p.sentiment for p in self.people if p.name == name), default)


class ConversationData(Data):
    lines: tuple[Utterance, ...] = ()
    announcements: tuple[Utterance, ...] = ()
    pending_reply_to: str | None = None
    spoke_to: dict[str, float] = Field(default_factory=dict)  # addressee ("" = all) -> when
    last_said_at: float = 0.0


class ActionRecord(Data):
    call: SkillCall
    started_at: float = 0.0
    success: bool | None = None  # None while running / unknown
    ended_at: float = 0.0
    reason: str = ""
    failure: str | None = None  # the outcome's failure kind (FailureKind), if it failed
    delta: dict[str, int] = Field(default_factory=dict)  # its own inventory change


class ActionData(Data):
    running: SkillCall | None = None
    started_at: float = 0.0
    last_outcome: SkillOutcome | None = None
    recent: tuple[ActionRecord, ...] = ()  # oldest first
    gifts: tuple[ActionRecord, ...] = ()  # its own gifts (the gift policy's ledger), oldest first
    completed: int = 0
    failed: int = 0


class DiscrepancyNote(Data):
    skill: str
    note: str
    at: float


class AwarenessData(Data):
    discrepancies: tuple[DiscrepancyNote, ...] = ()
    last_check: str = ""


class WorkingMemoryData(Data):
    items: tuple[str, ...] = ()
    retrieved: tuple[str, ...] = ()


class ReflectionData(Data):
    insights: tuple[str, ...] = ()


SectionData = (
    IdentityData
    | PerceptionData
    | GoalsData
    | PlanData
    | SocialData
    | ConversationData
    | ActionData
    | AwarenessData
    | WorkingMemoryData
    | ReflectionData
)
