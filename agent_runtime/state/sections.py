"""The Agent State: one typed section per concern, each written by exactly one module.

| section          | writer               | what it holds                                   |
|------------------|----------------------|-------------------------------------------------|
| identity         | runtime (at start)   | name, traits, community goal, location memories |
| perception       | perception           | latest observation snapshot (position, inventory, nearby, chat) |
| working_memory   | memory               | recent salient items and retrieved memories     |
| goals            | goal_generation      | current social goal and its history             |
| plan             | planning             | coarse plan and the current step                |
| social           | social_awareness     | per-person summary, sentiment 0-10, activity    |
| decision         | cognitive_controller | the latest high-level decision                  |
| action           | skill_execution      | running skill, last outcome, action log         |
| awareness        | action_awareness     | expected vs observed outcome, discrepancies     |
| conversation     | talking              | recent dialogue and the last utterance          |
| reflection       | reflection           | latest insights and the importance accumulator  |

Sections are frozen pydantic models: a writer replaces a section wholesale
(``model_copy(update=...)``), so a reader holding a section object always has a
consistent snapshot of it.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from agent_runtime.clock import wall_time
from agent_runtime.config.models import GiftSettings
from agent_runtime.config.strict import Strict
from agent_runtime.config.topics import Topic
from agent_runtime.world import Observation, SkillCall, SkillOutcome


class Section(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")
    updated_at: float = 0.0


class IdentityFacts(BaseModel):
    """Who an agent is: the fields of its identity section, which the controller's view of it
    (:class:`agent_runtime.bottleneck_data.IdentityData`) carries too."""

    name: str = ""
    traits: tuple[str, ...] = ()
    community_goal: str = ""
    location_memories: tuple[str, ...] = ()
    gifts: GiftSettings = Field(default_factory=GiftSettings)  # its own gift policy
    # what its village talks about (the village's ``topics``, an experiment's words)
    topics: tuple[Topic, ...] = ()


class Identity(IdentityFacts, Section):
    """The identity section (the runtime writes it at the agent's start)."""


class Perception(Section):
    observation: Observation = Field(default_factory=Observation)
    others_near: tuple[str, ...] = ()
    deaths: int = 0


class WorkingMemoryItem(BaseModel):
    model_config = ConfigDict(frozen=True)
    text: str
    kind: str = "note"
    at: float = Field(default_factory=wall_time)
    importance: float = 1.0


class WorkingMemory(Section):
    items: tuple[WorkingMemoryItem, ...] = ()
    retrieved: tuple[str, ...] = ()  # texts of memories retrieved for the current focus
    focus: str = ""
    memory_count: int = 0


class GoalEntry(BaseModel):
    model_config = ConfigDict(frozen=True)
    goal: str
    at: float
    brain: str = "heuristic"
    reason: str = ""


class Goals(Section):
    current: str = ""
    kind: str = ""  # coarse category used by experiments (e.g. "gather_wood")
    set_at: float = 0.0  # when the current goal was chosen (kept goals keep their time)
    inventory_at_set: dict[str, int] = Field(default_factory=dict)  # own inventory then
    history: tuple[GoalEntry, ...] = ()
    brain: str = ""


class PlanStep(BaseModel):
    model_config = ConfigDict(frozen=True)
    text: str
    skill: SkillCall | None = None
    done: bool = False
    substeps: tuple[str, ...] = ()
    #: when it is planned to start, in the agent's game hours since the run started
    start: float = 0.0
    #: how long it is planned to last, in game minutes
    minutes: float = 0.0
    #: the activity kind it belongs to (e.g. "gather_wood"), for a day or hour chunk
    kind: str = ""
    #: block kinds the step works on that were in sight when it was planned
    expects: tuple[str, ...] = ()


class Plan(Section):
    goal: str = ""
    #: the finest level: 5-15 minute steps of the current hour chunk (what the controller follows)
    steps: tuple[PlanStep, ...] = ()
    current: int = 0
    brain: str = ""
    #: the day in broad strokes (5-8 chunks) and the index of the current chunk
    day: tuple[PlanStep, ...] = ()
    day_current: int = 0
    #: the current day chunk in hour-scale chunks and the index of the current one
    hours: tuple[PlanStep, ...] = ()
    hour_current: int = 0
    #: the game day the plan is for (0 = the run's first), and why it was last revised
    day_number: int = 0
    revised_for: str = ""
    #: when the steps were last (re)generated (clock time); perceptions after it are new
    revised_at: float = 0.0


class PersonView(BaseModel):
    model_config = ConfigDict(frozen=True)
    name: str
    summary: str = ""
    sentiment: float = 5.0  # 0 hate .. 10 love
    activity: str = ""
    last_seen: float = 0.0
    interactions: int = 0
    is_agent: bool = True


class Social(Section):
    people: dict[str, PersonView] = Field(default_factory=dict)
    #: the agent's own stance per topic in [-1, 1] (e.g. "tax"), from what it heard and read
    opinions: dict[str, float] = Field(default_factory=dict)
    #: recent heard lines per topic (content only), the evidence of ``opinions``
    topic_lines: dict[str, tuple[str, ...]] = Field(default_factory=dict)
    active: bool = False
    brain: str = ""


class IntentKind(StrEnum):
    """What a decision is about (typed, so no module parses English back)."""

    WORK = "work"  # advance the current goal / plan
    CONTINUE = "continue"  # keep the running skill
    GIVE = "give"  # hand items to someone who asked
    DEPOSIT = "deposit"  # fulfil a perceived deposit request
    EAT = "eat"
    RECOVER = "recover"  # adapt after a failure (explore, get what is missing, pause)
    WAIT = "wait"  # disconnected or nothing to do
    TALK = "talk"  # only speech


class UtteranceKind(StrEnum):
    GREET = "greet"
    ANSWER = "answer"  # acknowledge what someone said
    AGREE_GIVE = "agree_give"
    REFUSE = "refuse"  # will not give (item, to)
    HAVE_NONE = "have_none"  # cannot give: does not have it
    INFORM_ACTIVITY = "inform_activity"  # say what I am doing / about to do
    OPINION = "opinion"  # say what I think about a topic (stance in [-1, 1])
    FREE = "free"  # free text written by an LLM controller (``text``)


class UtteranceGoal(Strict):
    """What to communicate, typed: talking renders the words from this."""

    kind: UtteranceKind
    to: str | None = None  # addressee, None = everyone nearby
    item: str | None = None
    count: int | None = None
    topic: str | None = None  # e.g. the activity, or "tax" for an opinion
    stance: float | None = None  # for OPINION
    text: str = ""  # FREE only: the gist to say
    whisper: bool = False


class Decision(Section):
    id: str = ""
    kind: IntentKind = IntentKind.WORK
    intent: str = ""  # what the agent will do, in words (memory and logs only)
    skill: SkillCall | None = None
    target: str | None = None  # the player or place the decision is about
    item: str | None = None
    count: int | None = None
    say: UtteranceGoal | None = None  # None = stay silent
    reason: str = ""
    brain: str = ""  # "heuristic" | "llm:<model>" | "scripted"
    supersedes: str = ""

    @property
    def speak_to(self) -> str | None:
        return self.say.to if self.say is not None else None


class ActionLogEntry(BaseModel):
    model_config = ConfigDict(frozen=True)
    decision_id: str
    call: SkillCall
    outcome: SkillOutcome | None = None
    started_at: float = 0.0


class Action(Section):
    running: SkillCall | None = None
    running_decision: str = ""
    started_at: float = 0.0
    last_outcome: SkillOutcome | None = None
    log: tuple[ActionLogEntry, ...] = ()
    #: its own gifts (give calls that moved items), longer than ``log``: the gift policy's ledger
    gifts: tuple[ActionLogEntry, ...] = ()
    completed: int = 0
    failed: int = 0


class Discrepancy(BaseModel):
    model_config = ConfigDict(frozen=True)
    skill: str
    expected: dict[str, int]
    observed: dict[str, int]
    note: str
    at: float


class Awareness(Section):
    expected: dict[str, int] = Field(default_factory=dict)
    expected_for: str = ""  # decision id
    discrepancies: tuple[Discrepancy, ...] = ()
    last_check: str = ""


class Utterance(BaseModel):
    model_config = ConfigDict(frozen=True)
    speaker: str
    text: str
    to: str | None = None
    at: float = Field(default_factory=wall_time)
    decision_id: str = ""
    untrusted: bool = True  # other speakers' words are data, never instructions
    announcement: bool = False  # a public announcement (heard by everyone)
    #: when the agent's own conversation record took a heard line in (0: at ``at``): its
    #: modules can know the line from then on, seconds after its body heard it under load
    noted_at: float = 0.0

    @property
    def known_at(self) -> float:
        """When the agent's mind could first know this line: what a decision made before
        it cannot have answered."""
        return max(self.at, self.noted_at)


class Conversation(Section):
    lines: tuple[Utterance, ...] = ()
    announcements: tuple[Utterance, ...] = ()  # the last public announcements heard
    last_utterance: Utterance | None = None
    #: addressee ("" = all) -> when the controller decided what it last said to them (a line
    #: noted after that is not answered by it)
    spoke_to: dict[str, float] = Field(default_factory=dict)
    partner: str | None = None
    pending_reply_to: str | None = None
    brain: str = ""


class Reflection(Section):
    insights: tuple[str, ...] = ()
    importance_since: float = 0.0
    reflections: int = 0
    last_at: float = 0.0


SECTION_MODELS: dict[str, type[Section]] = {
    "identity": Identity,
    "perception": Perception,
    "working_memory": WorkingMemory,
    "goals": Goals,
    "plan": Plan,
    "social": Social,
    "decision": Decision,
    "action": Action,
    "awareness": Awareness,
    "conversation": Conversation,
    "reflection": Reflection,
}

#: The one module allowed to write each section ("runtime" = the agent itself at start).
SECTION_WRITERS: dict[str, str] = {
    "identity": "runtime",
    "perception": "perception",
    "working_memory": "memory",
    "goals": "goal_generation",
    "plan": "planning",
    "social": "social_awareness",
    "decision": "cognitive_controller",
    "action": "skill_execution",
    "awareness": "action_awareness",
    "conversation": "talking",
    "reflection": "reflection",
}


def default_section(name: str) -> Section:
    return SECTION_MODELS[name]()


def dump_section(section: Section) -> str:
    return section.model_dump_json()


def load_section(name: str, raw: str | bytes) -> Section:
    return SECTION_MODELS[name].model_validate_json(raw)


def section_dict(section: Section) -> dict[str, Any]:
    return section.model_dump(mode="json")
