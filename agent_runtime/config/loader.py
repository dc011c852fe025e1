"""Load a village YAML file into a :class:`VillageConfig` and expand agent templates.

The topic files a village names (``topics:``, paths relative to the village file) are read
here too (:func:`load_topic`): their data joins the village's, so a run folder's resolved
config holds the topics inline."""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from agent_runtime.config.errors import ConfigError, FieldProblem
from agent_runtime.config.models import AgentSpec, AgentTemplate, Position, VillageConfig
from agent_runtime.config.name_check import check_names
from agent_runtime.config.names import generate_names, generate_personality
from agent_runtime.config.topics import Topic, TopicFile, parse_lexicon


def _loc_to_path(loc: Iterable[int | str]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


def problems_from_validation(err: ValidationError) -> list[FieldProblem]:
    problems = []
    for e in err.errors(include_url=False):
        loc = [p for p in e["loc"] if not (isinstance(p, str) and p.startswith("function-"))]
        msg = e["msg"]
        if e["type"] == "extra_forbidden":
            msg = "unknown field"
        elif e["type"] == "missing":
            msg = "field required"
        elif e["type"] == "value_error":
            msg = msg.removeprefix("Value error, ")
        problems.append(FieldProblem(_loc_to_path(loc), msg))
    return problems


def parse_config(
    data: Any, file: Path | str = "<memory>", base: Path | None = None
) -> VillageConfig:
    """Validate village data; topic files it names are read relative to ``base`` (default:
    the working directory)."""
    if data is None:
        raise ConfigError(file, [FieldProblem("", "the file is empty")])
    if not isinstance(data, Mapping):
        raise ConfigError(file, [FieldProblem("", "the top level must be a mapping of sections")])
    data = resolve_topics(data, base or Path.cwd(), file)
    try:
        cfg = VillageConfig.model_validate(data)
    except ValidationError as err:
        raise ConfigError(file, problems_from_validation(err)) from None
    check_names(cfg, cfg.world.version, file)  # blocks and items at its Minecraft version
    return cfg


def read_yaml(path: Path | str) -> Any:
    """The one way a YAML file is read (village, experiment, override files): its data, or a
    :class:`ConfigError` naming the file and, for a syntax error, the line and column."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(p, [FieldProblem("", "file not found")]) from None
    except (OSError, UnicodeDecodeError) as err:
        why = err.strerror if isinstance(err, OSError) else str(err)
        raise ConfigError(p, [FieldProblem("", f"cannot read file: {why}")]) from None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        problem = getattr(err, "problem", None) or str(err)
        raise ConfigError(p, [FieldProblem(where, f"YAML syntax error: {problem}")]) from None


def load_config(path: Path | str) -> VillageConfig:
    """Read and validate a village file; raises :class:`ConfigError` with field paths."""
    return parse_config(read_yaml(path), Path(path), Path(path).parent)


def load_topic(path: Path, where: str = "topics") -> Topic:
    """A topic file and its lexicon; a :class:`ConfigError` names the file and the field."""
    label = f"{path} ({where})"
    data = read_yaml(path)
    if not isinstance(data, Mapping):
        raise ConfigError(label, [FieldProblem("", "a topic file is a mapping")])
    try:
        spec = TopicFile.model_validate(data)
    except ValidationError as err:
        raise ConfigError(label, problems_from_validation(err)) from None
    lex = path.parent / spec.lexicon
    try:
        mentions, cues = parse_lexicon(lex.read_text("utf-8"), lex.name)
    except OSError as err:
        why = err.strerror or str(err)
        raise ConfigError(label, [FieldProblem("lexicon", f"cannot read {lex}: {why}")]) from None
    except ValueError as err:
        raise ConfigError(label, [FieldProblem("lexicon", str(err))]) from None
    if not cues:
        raise ConfigError(label, [FieldProblem("lexicon", f"{lex.name} has no cue")])
    fields = spec.model_dump(exclude={"lexicon"})
    try:
        return Topic.model_validate({**fields, "mentions": mentions, "cues": cues})
    except ValidationError as err:
        raise ConfigError(label, problems_from_validation(err)) from None


def resolve_topics(
    data: Mapping[str, Any], base: Path, file: Path | str = "<memory>", *, load: bool = True
) -> Mapping[str, Any]:
    """``data`` with each topic file named in ``topics`` read (``load=False``: its path made
    absolute), relative paths from ``base``; inline topics and other data as they are."""
    raw = data.get("topics")
    if raw is None:
        return data
    if not isinstance(raw, list | tuple):
        raise ConfigError(file, [FieldProblem("topics", "a list of topic files or topics")])
    out: list[Any] = []
    for i, entry in enumerate(raw):
        if isinstance(entry, str | Path):
            path = Path(entry) if Path(entry).is_absolute() else base / entry
            out.append(load_topic(path, f"topics[{i}] of {file}") if load else str(path))
        else:
            out.append(entry)
    return {**data, "topics": out}


def with_overrides(
    cfg: VillageConfig, updates: Mapping[str, Any], file: Path | str
) -> VillageConfig:
    """Apply dotted-path overrides (from CLI flags) and re-validate."""
    data = cfg.model_dump(mode="python", exclude_unset=False)
    for dotted, value in updates.items():
        node = data
        keys = dotted.split(".")
        for k in keys[:-1]:
            node = node.setdefault(k, {})
        node[keys[-1]] = value
    return parse_config(data, file)


class ResolvedAgent(BaseModel):
    """An agent after template expansion: the paper's fields plus generated metadata."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    traits: tuple[str, ...]
    location_memories: tuple[str, ...]
    spawn_location: Position | None
    inventory: dict[str, int] = Field(default_factory=dict)
    community_goal: str
    role: str | None = None
    index: int = 0


#: what a template gives each of its agents as it is written (it generates their names and
#: spawn points, and adds a generated personality to the traits when asked)
_AS_GIVEN = (AgentSpec.model_fields.keys() & AgentTemplate.model_fields.keys()) - {"traits"}


def resolve_agents(
    cfg: VillageConfig,
    *,
    place_memories: Iterable[str] = (),
    limit: int | None = None,
    rng: random.Random | None = None,
) -> list[ResolvedAgent]:
    """Expand templates (seeded by ``run.seed``) into a flat list of agents."""
    rng = rng or random.Random(cfg.run.seed)
    places = tuple(place_memories) if cfg.include_place_memories else ()
    out: list[ResolvedAgent] = []

    def add(spec: AgentSpec) -> None:
        out.append(
            ResolvedAgent(
                name=spec.name,
                traits=spec.traits,
                location_memories=tuple(spec.location_memories) + places,
                spawn_location=spec.spawn_location,
                inventory=dict(spec.inventory),
                community_goal=spec.community_goal or cfg.community_goal,
                role=spec.role,
                index=len(out),
            )
        )

    for spec in cfg.agents:
        add(spec)
    taken = {a.name for a in cfg.agents}
    for tpl in cfg.agent_templates:
        names = generate_names(tpl.count, rng, taken, tpl.name_prefix)
        taken.update(names)
        for name in names:
            traits = tpl.traits
            if tpl.random_personality:
                traits = tuple(traits) + generate_personality(rng)
            spawn = None
            if tpl.spawn_area is not None:
                a, b = tpl.spawn_area
                spawn = Position(
                    x=rng.uniform(min(a.x, b.x), max(a.x, b.x)),
                    y=max(a.y, b.y),
                    z=rng.uniform(min(a.z, b.z), max(a.z, b.z)),
                )
            elif tpl.spawn_spread > 0:
                lay = cfg.world.layout
                spawn = Position(
                    x=lay.centre_x + rng.uniform(-tpl.spawn_spread, tpl.spawn_spread),
                    y=float(lay.ground_level + 2),
                    z=lay.centre_z + rng.uniform(-tpl.spawn_spread, tpl.spawn_spread),
                )
            given = tpl.model_dump(include=_AS_GIVEN)
            add(AgentSpec(name=name, traits=traits, spawn_location=spawn, **given))
    if limit is not None:
        out = out[:limit]
    return out
