"""The village file, as frozen pydantic models.

A village YAML has these top-level sections (all optional except ``agents``
or ``agent_templates``)::

    run:        seed, duration, time_scale, game_hours_per_second, id, out, cluster
    services:   redis / mqtt: "embedded" or a URL
    world:      kind (embedded | external | none), host, port, version, seed, layout,
                shards (several worlds, one region each: config/shards.py)
    llm:        provider (heuristic | openai), base_url, models per module, limits, budget
    modules:    preset (full | baseline | no_action_awareness | no_social) + per-module overrides
    bottleneck: which state sections the Cognitive Controller sees, with size limits
    gifts:      how much an agent gives to a player who asks (relationship, caps per hour)
    topics:     what the village talks about (topic files an experiment owns: config/topics.py)
    agents:     agents listed one by one (the paper's fields)
    agent_templates: templates with a count and generated names/personalities

See ``configs/README.md`` for a commented example.
"""

from __future__ import annotations

import re
from typing import Any, Literal, get_args

from pydantic import (
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from agent_runtime import mc_names
from agent_runtime.config.game_names import Inventory
from agent_runtime.config.layout import VillageLayout
from agent_runtime.config.llm import LLMSettings
from agent_runtime.config.module_options import MODULE_OPTIONS, ModuleOptions
from agent_runtime.config.module_table import DEFAULT_CADENCES, MODULE_NAMES, PRESETS
from agent_runtime.config.problems import did_you_mean, located, problems_from_validation
from agent_runtime.config.shards import ShardSettings, check_shards
from agent_runtime.config.strict import Strict as Strict  # re-exported: the config base
from agent_runtime.config.topics import Topic

#: Minecraft versions served by both the pinned mineflayer and flying-squid (embedded world)
#: at which our server and body tests pass (tests/server/test_versions.py,
#: tests/bodies/test_body_versions.py; bots/README.md, "Versions").
SUPPORTED_VERSIONS: tuple[str, ...] = ("1.16.5", "1.20.4", "1.21.4", "1.21.11", "26.1")

#: the version a world is served at and bodies speak when nothing names one: the newest at
#: which everything works on the embedded world, the web page's 3D view included (the body
#: translates its blocks into the newest assets prismarine-viewer has: bots/README.md,
#: "Versions"); every default version in the runtime is this one
DEFAULT_VERSION = "26.1"


def external_versions() -> tuple[str, ...]:
    """The versions bodies log in at on an external server (``world.kind: external``): every
    version the pinned mineflayer lists as tested, from the oldest supported one on (our
    bodies' code is not written for older ones), oldest first. What our code needs at each
    (names, drops, recipes, windows) comes from minecraft-data."""
    spoken = mc_names.mineflayer_versions()
    if SUPPORTED_VERSIONS[0] not in spoken:
        return SUPPORTED_VERSIONS
    return spoken[spoken.index(SUPPORTED_VERSIONS[0]) :]


SectionName = Literal[
    "identity",
    "perception",
    "working_memory",
    "goals",
    "plan",
    "social",
    "decision",
    "action",
    "awareness",
    "conversation",
    "reflection",
]
SECTION_NAMES: tuple[SectionName, ...] = get_args(SectionName)

_MC_NAME = re.compile(r"^[A-Za-z0-9_]{3,16}$")


class RunSettings(Strict):
    id: str | None = Field(default=None, pattern=r"^[A-Za-z0-9_.-]{1,64}$")
    seed: int = 0
    duration: float | None = Field(default=300.0, gt=0, description="seconds; null = until stopped")
    time_scale: float = Field(
        default=1.0, gt=0, le=100, description="multiplies every cadence and protocol time"
    )
    game_hours_per_second: float = Field(
        default=0.02, gt=0, description="Minecraft: 24 game hours per 20 minutes = 0.02"
    )
    out: str = "runs"
    progress_every: float = Field(default=10.0, gt=0)
    cluster: str | None = Field(
        default=None,
        pattern=r"^ray(://.+|:.+)?$",
        description="run the workers on a cluster engine: ray (a local Ray for the run), "
        "ray://HOST:PORT or ray:ADDRESS (an existing one); null: child processes",
    )
    embedder: Literal["minilm", "hashing"] = Field(
        default="minilm",
        description="memory's sentence encoder: minilm (all-MiniLM-L6-v2, numpy) or hashing "
        "(a hashed bag of words without semantics, for benchmarks)",
    )


class ServicesSettings(Strict):
    redis: str = "embedded"
    mqtt: str = "embedded"

    @field_validator("redis")
    @classmethod
    def _redis_url(cls, v: str) -> str:
        if v != "embedded" and not v.startswith(("redis://", "rediss://", "unix://")):
            raise ValueError("must be 'embedded' or a redis:// URL")
        return v

    @field_validator("mqtt")
    @classmethod
    def _mqtt_url(cls, v: str) -> str:
        if v != "embedded" and not v.startswith(("mqtt://", "mqtts://")):
            raise ValueError("must be 'embedded' or an mqtt:// URL")
        return v


#: default hearing radius in blocks (configs/README.md, "Hearing")
HEARING_RADIUS = 32.0


class WorldSettings(Strict):
    kind: Literal["embedded", "external", "none"] = "none"
    host: str = "127.0.0.1"
    port: int = Field(default=25565, ge=0, le=65535)
    version: str = DEFAULT_VERSION
    seed: int | None = None  # defaults to run.seed
    layout: VillageLayout = Field(default_factory=VillageLayout)
    bots_per_process: int = Field(default=25, ge=1, le=200)
    admin_port: int | None = Field(default=None, ge=0, le=65535)
    # blocks around the speaker within which public chat is heard (whispers: anywhere);
    # null = everywhere the server delivers it. See configs/README.md ("Hearing").
    hearing_radius: float | None = Field(default=HEARING_RADIUS, gt=0, le=1000)
    # several worlds, one region each (agent_runtime/config/shards.py); empty = one world
    shards: tuple[ShardSettings, ...] = ()
    # ``kind: none`` only: seconds a skill takes before the no-op body answers "no world
    # attached" (each drawn from 0.5x-1.5x; 0 = at once). Benchmarks use it to give
    # controllers a skill's pace instead of an instant failure to react to.
    null_skill_seconds: float = Field(default=0.0, ge=0, le=600)

    @field_validator("shards")
    @classmethod
    def _shards(
        cls, v: tuple[ShardSettings, ...], info: ValidationInfo
    ) -> tuple[ShardSettings, ...]:
        check_shards(v, info.data.get("kind", "none"))
        return v

    @field_validator("version")
    @classmethod
    def _supported(cls, v: str, info: ValidationInfo) -> str:
        if v in SUPPORTED_VERSIONS:
            return v
        spoken = external_versions()
        if info.data.get("kind") == "external" and v in spoken:
            return v
        raise ValueError(
            f"Minecraft {v} is not supported; use one of {list(SUPPORTED_VERSIONS)} "
            "(the versions our bodies and embedded server are tested at: bots/README.md)"
            f"; on an external server the bodies speak {spoken[0]} to {spoken[-1]}"
        )


class ModuleSettings(Strict):
    enabled: bool | None = None  # None = decided by the preset
    cadence: float | None = Field(default=None, gt=0)
    cadence_max: float | None = Field(default=None, gt=0)
    policy: Literal["auto", "heuristic", "llm"] = "auto"
    options: dict[str, Any] = Field(default_factory=dict)


class ModulesSettings(Strict):
    preset: Literal["full", "baseline", "no_action_awareness", "no_social"] = "full"
    overrides: dict[str, ModuleSettings] = Field(default_factory=dict)

    @field_validator("overrides")
    @classmethod
    def _known(cls, v: dict[str, ModuleSettings]) -> dict[str, ModuleSettings]:
        # every problem of every module at once, each at its own path (name.options.key)
        found: list[tuple[tuple[int | str, ...], str, Any]] = []
        for name, ov in v.items():
            if name not in MODULE_NAMES:
                hint = did_you_mean(name, MODULE_NAMES) or f"; known: {', '.join(MODULE_NAMES)}"
                found.append(((name,), f"unknown module {name!r}{hint}", name))
                continue
            options = MODULE_OPTIONS[name]
            try:
                options.model_validate(ov.options)
            except ValidationError as err:
                for p in problems_from_validation(err, options):
                    found.append(((name, "options", *p.path.split(".")), p.message, ov.options))
            cad = ov.cadence if ov.cadence is not None else DEFAULT_CADENCES[name][0]
            if cad is not None and ov.cadence_max is not None and ov.cadence_max < cad:
                why = f"{ov.cadence_max} is below the cadence {cad}"
                found.append(((name, "cadence_max"), why, ov.cadence_max))
        if found:
            raise located("ModulesSettings", found)
        return v

    def enabled(self) -> tuple[str, ...]:
        base = PRESETS[self.preset]
        out = []
        for name in MODULE_NAMES:
            ov = self.overrides.get(name)
            on = ov.enabled if ov is not None and ov.enabled is not None else name in base
            if on:
                out.append(name)
        return tuple(out)

    def cadence(self, name: str) -> tuple[float | None, float | None]:
        cad, cad_max = DEFAULT_CADENCES[name]
        ov = self.overrides.get(name)
        if ov is not None:
            if ov.cadence is not None:
                cad = ov.cadence
                cad_max = ov.cadence_max if ov.cadence_max is not None else None
            elif ov.cadence_max is not None:
                cad_max = ov.cadence_max
        return cad, cad_max

    def settings(self, name: str) -> ModuleSettings:
        return self.overrides.get(name, ModuleSettings())

    def options(self, name: str) -> ModuleOptions:
        """Module ``name``'s options, typed (validated when the file was read)."""
        return MODULE_OPTIONS[name].model_validate(self.settings(name).options)


class BottleneckSection(Strict):
    section: str
    fields: tuple[str, ...] | None = None  # None = the section's default summary fields
    max_chars: int = Field(default=600, ge=16, le=20000)
    max_items: int = Field(default=8, ge=1, le=200)
    always: bool = False  # always-through channel: never cut by the total budget

    @field_validator("section")
    @classmethod
    def _known(cls, v: str) -> str:
        if v not in SECTION_NAMES:
            raise ValueError(f"unknown state section {v!r}; known: {list(SECTION_NAMES)}")
        return v


#: the characters of the controller's view in a model's prompt: every section's ``## name``
#: header and text, the separators included (~4 characters a token: ~450 tokens a call);
#: the size the prompt's view had before the view was written from typed data, so the
#: model's bill did not grow with it
VIEW_CHARS = 1800


def _default_bottleneck() -> tuple[BottleneckSection, ...]:
    # the characters of each section's text in the controller's prompt: what the agent is
    # doing and for what, what it holds and sees and what was said to it get the most; with
    # their headers they fit VIEW_CHARS, so no default section is ever left out and the
    # heuristic decides from all of them (the limits cut the text, not the typed data)
    return (
        BottleneckSection(section="identity", max_chars=160),
        BottleneckSection(section="social", max_chars=280, always=True),
        BottleneckSection(section="conversation", max_chars=280, max_items=6, always=True),
        BottleneckSection(section="perception", max_chars=290),
        BottleneckSection(section="goals", max_chars=100),
        BottleneckSection(section="plan", max_chars=190),
        BottleneckSection(section="awareness", max_chars=110),
        BottleneckSection(section="action", max_chars=100),
        BottleneckSection(section="working_memory", max_chars=160, max_items=8),
    )


class BottleneckSettings(Strict):
    sections: tuple[BottleneckSection, ...] = Field(default_factory=_default_bottleneck)
    #: the one size budget of the controller's view (see :data:`VIEW_CHARS`): sections past
    #: it are left out, the ``always`` ones aside
    max_total_chars: int = Field(default=VIEW_CHARS, ge=100, le=100000)

    @field_validator("sections")
    @classmethod
    def _unique(cls, v: tuple[BottleneckSection, ...]) -> tuple[BottleneckSection, ...]:
        names = [s.section for s in v]
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise ValueError(f"section(s) listed twice: {dup}")
        if "decision" in names:
            raise ValueError("the controller's own decision cannot feed its bottleneck")
        return v


class GiftTier(Strict):
    """From ``min_sentiment`` (the agent's own 0..10 feeling about the player) up: at most
    ``max_per_gift`` items in one gift."""

    min_sentiment: float = Field(ge=0, le=10)
    max_per_gift: int = Field(ge=0, le=64)


def _default_tiers() -> tuple[GiftTier, ...]:
    return (
        GiftTier(min_sentiment=8.0, max_per_gift=8),  # close friend
        GiftTier(min_sentiment=6.5, max_per_gift=4),  # friendly
        GiftTier(min_sentiment=5.0, max_per_gift=1),  # neutral: a stranger starts here
    )


class GiftSettings(Strict):
    """How much an agent gives to a player who asks (``modules/heuristics/gifts.py``).

    Every gift (heuristic or LLM decision) is bounded by all of these, from the agent's own
    view only: its sentiment about the player (Social), its own gift log, inventory and goal."""

    stranger_sentiment: float = Field(
        default=5.0, ge=0, le=10, description="sentiment for a player it has no memory of"
    )
    trust_after: int = Field(
        default=5,
        ge=0,
        le=1000,
        description="lines heard from a player before its sentiment may rise above a stranger's",
    )
    tiers: tuple[GiftTier, ...] = Field(default_factory=_default_tiers)
    max_share: float = Field(
        default=0.5,
        ge=0,
        lt=1,
        description="never more than this share of what it holds of an item",
    )
    goal_reserve: int = Field(
        default=8, ge=0, le=2304, description="an item its current goal uses: keep this many"
    )
    min_gap_s: float = Field(default=120.0, ge=0, description="between two gifts to one player")
    items_per_player_per_hour: int = Field(default=8, ge=0, le=2304)
    gifts_per_player_per_hour: int = Field(
        default=3, ge=0, le=100, description="requests honoured per player per hour"
    )
    items_per_hour: int = Field(
        default=32, ge=0, le=100, description="all players together (the gift log keeps 100)"
    )

    @field_validator("tiers")
    @classmethod
    def _distinct(cls, v: tuple[GiftTier, ...]) -> tuple[GiftTier, ...]:
        levels = [t.min_sentiment for t in v]
        if len(set(levels)) != len(levels):
            raise ValueError(f"two tiers with the same min_sentiment: {sorted(levels)}")
        return tuple(sorted(v, key=lambda t: -t.min_sentiment))


class Position(Strict):
    x: float
    y: float
    z: float


def check_minecraft_name(v: str) -> str:
    """Return ``v`` if it is a valid Minecraft account name (3-16 of ``[A-Za-z0-9_]``),
    else raise ValueError saying what is wrong with it."""
    if not isinstance(v, str):
        raise ValueError(f"Minecraft name must be a string, got {type(v).__name__}")
    if _MC_NAME.match(v):
        return v
    if not 3 <= len(v) <= 16:
        raise ValueError(
            f"{v!r} is not a valid Minecraft name: must be 3-16 characters long (got {len(v)})"
        )
    bad = sorted({ch for ch in v if not (ch.isascii() and (ch.isalnum() or ch == "_"))})
    raise ValueError(
        f"{v!r} is not a valid Minecraft name: only letters A-Z/a-z, digits and '_' are allowed "
        f"(found {', '.join(repr(c) for c in bad)})"
    )


class AgentSpec(Strict):
    """One agent, with the paper's fields."""

    name: str
    traits: tuple[str, ...] = ()
    location_memories: tuple[str, ...] = ()
    spawn_location: Position | None = None
    inventory: Inventory = Field(default_factory=dict)
    community_goal: str | None = None  # None = the village's community goal
    # a label for the experiment's ledger and metrics (e.g. "influencer"); never part of the
    # agent's own state, so no policy can read it (what an agent is, it knows from its traits)
    role: str | None = None

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        return check_minecraft_name(v)

    @field_validator("inventory")
    @classmethod
    def _counts(cls, v: dict[str, int]) -> dict[str, int]:
        bad = {k: c for k, c in v.items() if c < 0 or c > 2304}
        if bad:
            raise ValueError(f"item counts must be 0..2304: {bad}")
        return v


class AgentTemplate(Strict):
    """``count`` agents with generated names (and, optionally, generated personalities)."""

    count: int = Field(ge=1, le=2000)
    name_prefix: str | None = Field(default=None, pattern=r"^[A-Za-z0-9_]{0,10}$")
    traits: tuple[str, ...] = ()
    random_personality: bool = False
    location_memories: tuple[str, ...] = ()
    spawn_area: tuple[Position, Position] | None = None  # opposite corners
    spawn_spread: float = Field(default=0.0, ge=0)  # random offset around the village centre
    inventory: Inventory = Field(default_factory=dict)
    community_goal: str | None = None
    role: str | None = None


class VillageConfig(Strict):
    run: RunSettings = Field(default_factory=RunSettings)
    services: ServicesSettings = Field(default_factory=ServicesSettings)
    world: WorldSettings = Field(default_factory=WorldSettings)
    llm: LLMSettings = Field(default_factory=LLMSettings)
    modules: ModulesSettings = Field(default_factory=ModulesSettings)
    bottleneck: BottleneckSettings = Field(default_factory=BottleneckSettings)
    gifts: GiftSettings = Field(default_factory=GiftSettings)
    community_goal: str = (
        "Survive together and build an efficient, thriving village that looks after everyone."
    )
    include_place_memories: bool = True  # add the world's named places to location memories
    # what the village talks about (an experiment's vocabulary, config/topics.py): handed to
    # every agent in its Identity; a file path in the YAML is loaded by config/loader.py
    topics: tuple[Topic, ...] = ()
    agents: tuple[AgentSpec, ...] = ()
    agent_templates: tuple[AgentTemplate, ...] = ()

    @model_validator(mode="after")
    def _has_agents(self) -> VillageConfig:
        if not self.agents and not self.agent_templates:
            raise ValueError("a village needs at least one entry in 'agents' or 'agent_templates'")
        names = [a.name for a in self.agents]
        lowered = [n.lower() for n in names]
        dup = sorted({n for n in names if lowered.count(n.lower()) > 1})
        if dup:
            raise ValueError(f"agent names must be unique (case-insensitive): {dup}")
        topics = [t.name for t in self.topics]
        twice = sorted({t for t in topics if topics.count(t) > 1})
        if twice:
            raise ValueError(f"topics listed twice: {twice}")
        budget = sum(s.max_bots for s in self.world.shards)
        count = len(self.agents) + sum(t.count for t in self.agent_templates)
        if self.world.shards and count > budget:
            raise ValueError(f"{count} agents exceed the shards' bot budget ({budget} max_bots)")
        return self
