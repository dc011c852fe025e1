"""Block and item names in a validated config, checked at its Minecraft version.

Every field typed :data:`~agent_runtime.config.game_names.ItemName` (an :data:`Inventory`'s
keys too) of a model, at any depth, is looked up in minecraft-data at the run's
``world.version`` (:mod:`agent_runtime.mc_names`). A name the version does not know is a
:class:`ConfigError` naming the file, the field path and the name, with a close match when
there is one: a name another supported version knows is matched among the names this version
has and that one lacks (``grass`` at 1.21.4 -> ``short_grass``: Mojang renamed it in 1.20.3),
any other by spelling (``oak_plank`` -> ``oak_planks``).
"""

from __future__ import annotations

import types
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import BaseModel

from agent_runtime import mc_names
from agent_runtime.config.errors import ConfigError, FieldProblem
from agent_runtime.config.game_names import GAME_NAME
from agent_runtime.config.models import SUPPORTED_VERSIONS
from agent_runtime.config.problems import closest

__all__ = ["check_names", "close_match", "game_names"]


def game_names(model: BaseModel, path: str = "") -> Iterator[tuple[str, str]]:
    """(field path, name) of every block or item name ``model`` holds, fields in order."""
    for field, info in type(model).model_fields.items():
        where = f"{path}.{field}" if path else field
        value = getattr(model, field)
        if GAME_NAME in info.metadata:
            if isinstance(value, str):
                yield where, value
            continue
        yield from _walk(value, info.annotation, where)


def _walk(value: Any, tp: Any, path: str) -> Iterator[tuple[str, str]]:
    if isinstance(value, BaseModel):
        yield from game_names(value, path)
        return
    origin, args = get_origin(tp), get_args(tp)
    if origin is Annotated:
        if GAME_NAME in args[1:]:
            if isinstance(value, str):
                yield path, value
        else:
            yield from _walk(value, args[0], path)
    elif origin in (Union, types.UnionType):
        for arg in args:
            if arg is not type(None):
                yield from _walk(value, arg, path)
    elif isinstance(value, dict) and len(args) == 2:
        for key, item in value.items():
            yield from _walk(key, args[0], f"{path}.{key}")
            yield from _walk(item, args[1], f"{path}.{key}")
    elif isinstance(value, tuple | list) and args:
        each = args[0] if len(args) == 1 or args[-1] is Ellipsis else None
        for i, item in enumerate(value):
            arg = each if each is not None else args[i] if i < len(args) else Any
            yield from _walk(item, arg, f"{path}[{i}]")


def _known(version: str) -> frozenset[str]:
    return mc_names.items(version) | mc_names.blocks(version)


def close_match(version: str, name: str) -> str | None:
    """The name ``version`` most likely means by ``name``, which it does not know (or None)."""
    known = _known(version)
    for other in SUPPORTED_VERSIONS:
        if other != version and name in _known(other):  # renamed: among what only this one has
            renamed = closest(name, known - _known(other), 0.5)
            if renamed:
                return renamed
    return closest(name, known)


def check_names(model: BaseModel, version: str, file: Path | str, prefix: str = "") -> None:
    """Raise :class:`ConfigError` naming ``file`` and each field whose block or item name
    Minecraft ``version`` does not know; ``prefix``: the model's path in the file. A version
    we do not support is not looked up: ``world.version``'s own check refuses it."""
    if version not in SUPPORTED_VERSIONS:
        return
    known = _known(version)
    problems = []
    for where, name in game_names(model, prefix):
        if name in known:
            continue
        match = close_match(version, name)
        hint = f"; did you mean {match!r}?" if match else ""
        problems.append(
            FieldProblem(where, f"{name!r} is not a block or item at Minecraft {version}{hint}")
        )
    if problems:
        raise ConfigError(file, problems)
