"""Typed models of what crosses between an agent and its body in the world.

These are the Python half of the body contract: observation snapshots, skill
requests with typed arguments, skill outcomes, and body events. The JS bodies
(``bots/body/``) produce and accept exactly these field names; a contract test
compares :data:`SKILLS` with the JS skill table.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from agent_runtime.clock import wall_time
from agent_runtime.config.strict import Strict


class Vec3(Strict):
    x: float
    y: float
    z: float

    def distance_to(self, other: Vec3) -> float:
        return float(
            ((self.x - other.x) ** 2 + (self.y - other.y) ** 2 + (self.z - other.z) ** 2) ** 0.5
        )

    def __str__(self) -> str:
        return f"({self.x:.0f}, {self.y:.0f}, {self.z:.0f})"


class ItemStack(Strict):
    name: str
    count: int = Field(ge=0)
    slot: int | None = None


class NearbyPlayer(Strict):
    name: str
    position: Vec3
    distance: float


class NearbyEntity(Strict):
    id: int
    kind: str  # e.g. "cow", "zombie", "item"
    position: Vec3
    distance: float


class NotableBlock(Strict):
    name: str  # e.g. "oak_log", "iron_ore", "chest", "crafting_table"
    position: Vec3
    distance: float


class HeardChat(Strict):
    sender: str
    message: str
    whisper: bool = False
    at: float = Field(default_factory=wall_time)


class SkillProgress(Strict):
    skill: str
    started_at: float
    progress: float = 0.0  # 0..1 where measurable
    detail: str = ""


class Observation(Strict):
    """One snapshot of the world as the body sees it (one coarse bridge call)."""

    at: float = Field(default_factory=wall_time)
    connected: bool = True
    position: Vec3 | None = None
    health: float = 20.0
    food: float = 20.0
    time_of_day: int = 0  # 0..24000 ticks
    inventory: dict[str, int] = Field(default_factory=dict)
    held_item: str | None = None
    players: tuple[NearbyPlayer, ...] = ()
    entities: tuple[NearbyEntity, ...] = ()
    blocks: tuple[NotableBlock, ...] = ()
    chat: tuple[HeardChat, ...] = ()
    skill: SkillProgress | None = None


# --- skills -----------------------------------------------------------------


class SkillArgs(Strict):
    """Base of every skill's argument model."""


class GoToArgs(SkillArgs):
    x: float | None = None
    y: float | None = None
    z: float | None = None
    player: str | None = None
    range: float = 2.0


class FollowArgs(SkillArgs):
    player: str
    range: float = 3.0
    duration: float = 30.0


class ExploreArgs(SkillArgs):
    distance: float = 32.0


class CollectArgs(SkillArgs):
    block: str  # block name, e.g. "oak_log" or a family such as "log"
    count: int = Field(default=1, ge=1, le=64)


class CraftArgs(SkillArgs):
    item: str
    count: int = Field(default=1, ge=1, le=64)


class SmeltArgs(SkillArgs):
    item: str  # input item, e.g. "iron_ore"
    count: int = Field(default=1, ge=1, le=64)
    fuel: str | None = None


class PlaceArgs(SkillArgs):
    block: str
    x: float | None = None
    y: float | None = None
    z: float | None = None


class ChestArgs(SkillArgs):
    item: str
    count: int = Field(default=1, ge=1)
    x: float | None = None  # chest position; nearest chest when omitted
    y: float | None = None
    z: float | None = None


class GiveArgs(SkillArgs):
    player: str
    item: str
    count: int = Field(default=1, ge=1)


class EatArgs(SkillArgs):
    item: str | None = None


class EquipArgs(SkillArgs):
    item: str
    destination: Literal["hand", "off-hand", "head", "torso", "legs", "feet"] = "hand"


class AttackArgs(SkillArgs):
    target: str  # mob kind or player name


class IdleArgs(SkillArgs):
    seconds: float = Field(default=5.0, ge=0.0, le=600.0)


class ChatArgs(SkillArgs):
    # a line starting with "/" would be a server command: words are never commands
    message: str = Field(max_length=256, pattern=r"^\s*[^/\s]")


class WhisperArgs(SkillArgs):
    player: str = Field(pattern=r"^[A-Za-z0-9_]{1,16}$")  # goes into a /tell command
    message: str = Field(max_length=256)


#: The skills that act in the world (everything but speech).
ActingSkill = Literal[
    "go_to",
    "follow",
    "explore",
    "collect",
    "craft",
    "smelt",
    "place",
    "deposit",
    "withdraw",
    "give",
    "eat",
    "equip",
    "attack",
    "idle",
]
SkillName = Literal[ActingSkill, "chat", "whisper"]

#: Every skill a Python module may request, with its argument model.
SKILLS: dict[str, type[SkillArgs]] = {
    "go_to": GoToArgs,
    "follow": FollowArgs,
    "explore": ExploreArgs,
    "collect": CollectArgs,
    "craft": CraftArgs,
    "smelt": SmeltArgs,
    "place": PlaceArgs,
    "deposit": ChestArgs,
    "withdraw": ChestArgs,
    "give": GiveArgs,
    "eat": EatArgs,
    "equip": EquipArgs,
    "attack": AttackArgs,
    "idle": IdleArgs,
    "chat": ChatArgs,
    "whisper": WhisperArgs,
}

#: Walking pace a body's walk to a far target is planned at: 4.5 blocks/s measured
#: (bots/body/BENCH.md, session 3: goto_100 p50 22.3 s, one body), halved for detours around
#: obstacles, other bodies in the way and a busy machine. Skill execution gives a far target
#: this much time; an agent judges from it whether it can get somewhere in time.
WALK_BLOCKS_PER_S = 2.25

#: Default timeout (seconds) per skill; the CC may pass another.
SKILL_TIMEOUTS: dict[str, float] = {
    "go_to": 60.0,
    "follow": 60.0,
    "explore": 60.0,
    "collect": 90.0,
    "craft": 45.0,
    "smelt": 90.0,
    "place": 20.0,
    "deposit": 30.0,
    "withdraw": 30.0,
    "give": 30.0,
    "eat": 10.0,
    "equip": 5.0,
    "attack": 30.0,
    "idle": 600.0,
    "chat": 5.0,
    "whisper": 5.0,
}


class CheckedArgs(dict[str, Any]):
    """A skill call's arguments as :func:`validate_skill` returned them, validated against the
    skill's model in this process. The type is the mark: a copy of the call that keeps its
    arguments stays checked, one with other arguments (or validated anew from data) is not,
    and no other call pays for the mark (a private attribute on :class:`SkillCall` would make
    every call's construction twice as slow, and the planners build dozens a step)."""

    __slots__ = ()


class SkillCall(Strict):
    """A request to run one skill: name plus arguments (validated by :func:`validate_skill`
    where the call enters: the controller's decision, talking's line, or the body for a call
    that comes unvalidated)."""

    skill: SkillName
    args: dict[str, Any] = Field(default_factory=dict)
    timeout: float | None = None

    @property
    def checked(self) -> bool:
        """Its arguments were validated against the skill's model in this process."""
        return type(self.args) is CheckedArgs

    def __eq__(self, other: object) -> bool:
        """The same call: skill, arguments and timeout (whether it was checked aside)."""
        if not isinstance(other, SkillCall):
            return NotImplemented
        return (self.skill, self.args, self.timeout) == (other.skill, other.args, other.timeout)

    def __hash__(self) -> int:
        return hash((self.skill, self.timeout))

    def typed_args(self) -> SkillArgs:
        return SKILLS[self.skill].model_validate(self.args)

    def describe(self) -> str:
        parts = ", ".join(f"{k}={v}" for k, v in self.args.items() if v is not None)
        return f"{self.skill}({parts})"


def validate_skill(call: SkillCall) -> SkillCall:
    """Validate ``call.args`` against its model and return a call with normalised args; a
    call already validated in this process is returned as it is (validated once)."""
    if call.checked:
        return call
    args = call.typed_args()
    return call.model_copy(update={"args": CheckedArgs(args.model_dump(exclude_none=True))})


FailureReason = Annotated[str, Field(max_length=300)]

FailureKind = Literal[
    "bad_arguments",
    "not_connected",
    "target_not_found",  # no such player/block/place in sight or within the search radius
    "target_out_of_reach",  # it exists but no path leads there
    "item_missing",  # the inventory lacks what the skill needs
    "tool_missing",  # the block needs a tool the inventory lacks
    "receiver_not_picking_up",  # a hand-over landed by the receiver, who did not take it (full?)
    "taken_by_other",  # a hand-over or a drop was picked up by someone else
    "drops_not_reached",  # blocks were dug but their drops did not reach the inventory
    "block_gone",  # the target block was taken by someone else
    "server_refused",  # the server did not apply an action (toss, click, place)
    "timed_out",
    "stuck",
    "cancelled",
    "disconnected",
    "other",
]
"""Machine-readable kind of a failed skill (``SkillOutcome.failure``), beside the prose reason."""


class SkillOutcome(Strict):
    """What a skill did. On failure ``reason`` is something a model can act on."""

    skill: str
    success: bool
    reason: FailureReason = ""
    failure: FailureKind | None = None
    inventory_delta: dict[str, int] = Field(default_factory=dict)
    position: Vec3 | None = None
    started_at: float = 0.0
    ended_at: float = 0.0
    cancelled: bool = False
    timed_out: bool = False
    detail: dict[str, Any] = Field(default_factory=dict)


# --- events -----------------------------------------------------------------

BodyEventKind = Literal[
    "chat",
    "whisper",
    "death",
    "respawn",
    "kicked",
    "disconnected",
    "reconnected",
    "spawn",
    "hurt",
    "player_joined",
    "player_left",
    "item_picked_up",
]


class BodyEvent(Strict):
    kind: BodyEventKind
    bot: str
    at: float = Field(default_factory=wall_time)
    data: dict[str, Any] = Field(default_factory=dict)
