"""Load a village YAML file into a :class:`VillageConfig` and expand agent templates.

The topic files a village names (``topics:``, paths relative to the village file) are read
here too (:func:`load_topic`): their data joins the village's, so a run folder's resolved
config holds the topics inline."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from agent_runtime.config.errors import ConfigError, FieldProblem
from agent_runtime.config.models import AgentSpec, AgentTemplate, Position, VillageConfig
from agent_runtime.config.name_check import check_names
from agent_runtime.config.names import generate_names, generate_personality
from agent_runtime.config.problems import problems_from_validation
from agent_runtime.config.topics import Topic, TopicFile, parse_lexicon

__all__ = [
    "ResolvedAgent",
    "load_config",
    "load_topic",
    "parse_config",
    "problems_from_validation",
    "read_yaml",
    "read_yaml_documents",
    "resolve_agents",
    "resolve_topics",
    "with_overrides",
]


T = TypeVar("T")


def parse_config(
    data: Any, file: Path | str = "<memory>", base: Path | None = None
) -> VillageConfig:
    """Validate village data; topic files it names are read relative to ``base`` (default:
    the working directory)."""
    if data is None:
        raise ConfigError(file, [FieldProblem("", "the file is empty")])
    if not isinstance(data, Mapping):
        raise ConfigError(file, [FieldProblem("", "the top level must be a mapping of sections")])
    topic_problems: list[FieldProblem] = []
    data = resolve_topics(data, base or Path.cwd(), file, problems=topic_problems)
    try:
        cfg = VillageConfig.model_validate(data)
    except ValidationError as err:
        problems = topic_problems + problems_from_validation(err, VillageConfig)
        raise ConfigError(file, problems) from None
    if topic_problems:
        raise ConfigError(file, topic_problems)
    check_names(cfg, cfg.world.version, file)  # blocks and items at its Minecraft version
    return cfg


def read_yaml(path: Path | str) -> Any:
    """The one way a YAML file is read (village, experiment, override files): its data, or a
    :class:`ConfigError` naming the file and, for a syntax error, the line and column."""
    p = Path(path)
    return _parsed(p, _text(p), yaml.safe_load)


def read_yaml_documents(path: Path | str) -> list[Any]:
    """Every document of a YAML file (``---`` between them, as Kubernetes manifests have);
    errors as :func:`read_yaml`'s."""
    p = Path(path)
    return _parsed(p, _text(p), lambda text: list(yaml.safe_load_all(text)))


def _text(p: Path) -> str:
    try:
        return p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(p, [FieldProblem("", "file not found")]) from None
    except (OSError, UnicodeDecodeError) as err:
        why = err.strerror if isinstance(err, OSError) else str(err)
        raise ConfigError(p, [FieldProblem("", f"cannot read file: {why}")]) from None


def _parsed(p: Path, text: str, load: Callable[[str], T]) -> T:
    try:
        return load(text)
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        problem = getattr(err, "problem", None) or str(err)
        raise ConfigError(p, [FieldProblem(where, f"YAML syntax error: {problem}")]) from None


def load_config(path: Path | str) -> VillageConfig:
    """Read and validate a village file; raises :class:`ConfigError` with field paths."""
    return parse_config(read_yaml(path), Path(path), Path(path).parent)


def load_topic(path: Path, where: str = "") -> Topic:
    """A topic file and its lexicon; a :class:`ConfigError` names the file (``where``: the
    village file and field that name it) and the field."""
    label = f"{path} ({where})" if where else path
    try:
        data = read_yaml(path)
    except ConfigError as err:
        raise ConfigError(label, err.problems, "topic file") from None
    if not isinstance(data, Mapping):
        raise ConfigError(label, [FieldProblem("", "a topic file is a mapping")], "topic file")
    try:
        spec = TopicFile.model_validate(data)
    except ValidationError as err:
        problems = problems_from_validation(err, TopicFile)
        raise ConfigError(label, problems, "topic file") from None
    lex = path.parent / spec.lexicon
    try:
        mentions, cues = parse_lexicon(lex.read_text("utf-8"), lex.name)
    except OSError as err:
        why = err.strerror or str(err)
        problem = FieldProblem("lexicon", f"cannot read {lex}: {why}")
        raise ConfigError(label, [problem], "topic file") from None
    except ValueError as err:
        raise ConfigError(label, [FieldProblem("lexicon", str(err))], "topic file") from None
    if not cues:
        problem = FieldProblem("lexicon", f"{lex.name} has no cue")
        raise ConfigError(label, [problem], "topic file")
    fields = spec.model_dump(exclude={"lexicon"})
    try:
        return Topic.model_validate({**fields, "mentions": mentions, "cues": cues})
    except ValidationError as err:
        problems = problems_from_validation(err, Topic)
        raise ConfigError(label, problems, "topic file") from None


def resolve_topics(
    data: Mapping[str, Any],
    base: Path,
    file: Path | str = "<memory>",
    *,
    load: bool = True,
    problems: list[FieldProblem] | None = None,
) -> Mapping[str, Any]:
    """``data`` with each topic file named in ``topics`` read (``load=False``: its path made
    absolute), relative paths from ``base``; inline topics and other data as they are. A topic
    file that cannot be read is a problem at ``topics[i]`` naming it: raised, or, given
    ``problems``, added there (the entry left out) so that the village's other problems are
    reported with it."""
    raw = data.get("topics")
    if raw is None:
        return data
    if not isinstance(raw, list | tuple):
        raise ConfigError(file, [FieldProblem("topics", "a list of topic files or topics")])
    out: list[Any] = []
    found: list[FieldProblem] = []
    for i, entry in enumerate(raw):
        if not isinstance(entry, str | Path):
            out.append(entry)
            continue
        path = Path(entry) if Path(entry).is_absolute() else base / entry
        if not load:
            out.append(str(path))
            continue
        try:
            out.append(load_topic(path, f"topics[{i}] of {file}"))
        except ConfigError as err:
            found += [
                FieldProblem(
                    f"topics[{i}]", f"{path}: {p.path + ': ' if p.path else ''}{p.message}"
                )
                for p in err.problems
            ]
    if found and problems is None:
        raise ConfigError(file, found)
    if problems is not None:
        problems += found
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
