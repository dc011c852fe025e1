"""What pydantic found wrong with a file's data, said plainly: one :class:`FieldProblem` per
error, each with its field path (``agents[2].name``) and a sentence a reader of the YAML
understands (``must be greater than 0 (got 0)``, not ``Input should be greater than 0``). An
unknown field names the close one the model has (``did you mean 'duration'?``), by the same
matcher as unknown block and item names (:func:`did_you_mean`)."""

from __future__ import annotations

import difflib
import types
from collections.abc import Collection, Iterable, Mapping
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import BaseModel, ValidationError
from pydantic_core import InitErrorDetails, PydanticCustomError

from agent_runtime.config.errors import FieldProblem

__all__ = [
    "closest",
    "did_you_mean",
    "field_path",
    "located",
    "problems_from_validation",
]


def closest(name: str, known: Iterable[str], cutoff: float = 0.6) -> str | None:
    """The one of ``known`` that ``name`` most likely means (a misspelling), or None."""
    match = difflib.get_close_matches(name, sorted(known), 1, cutoff)
    return match[0] if match else None


def did_you_mean(name: str, known: Iterable[str], cutoff: float = 0.6) -> str:
    """``"; did you mean 'x'?"`` for the close one of ``known``, else ``""``."""
    match = closest(name, known, cutoff)
    return f"; did you mean {match!r}?" if match else ""


def field_path(loc: Iterable[int | str]) -> str:
    """``("agents", 2, "name")`` -> ``agents[2].name``."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


def _models_in(tp: Any) -> list[type[BaseModel]]:
    """The models a field's type holds at its own level (``X | None``, ``Annotated[X, ...]``)."""
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        return [tp]
    origin, args = get_origin(tp), get_args(tp)
    if origin is Annotated:
        return _models_in(args[0])
    if origin in (Union, types.UnionType):
        return [m for a in args for m in _models_in(a)]
    return []


def _items_of(tp: Any) -> Any:
    """The type of one item of a list, tuple or dict value type (``None``: not a container)."""
    origin, args = get_origin(tp), get_args(tp)
    if origin is Annotated:
        return _items_of(args[0])
    if origin in (Union, types.UnionType):
        inner = [a for a in args if a is not type(None)]
        return _items_of(inner[0]) if len(inner) == 1 else None
    if origin in (list, tuple) and args:
        return args[0]
    if origin is dict and len(args) == 2:
        return args[1]
    return None


def _fields_at(model: type[BaseModel] | None, loc: tuple[int | str, ...]) -> Collection[str]:
    """The field names of the model found at ``loc`` from ``model`` (empty when unknown)."""
    tp: Any = model
    for part in loc:
        models = _models_in(tp)
        if isinstance(part, str) and models and part in models[0].model_fields:
            tp = models[0].model_fields[part].annotation
        else:  # an index or a dict key: the item's type
            tp = _items_of(tp)
            if tp is None:
                return ()
    models = _models_in(tp)
    return models[0].model_fields.keys() if models else ()


def _got(e: Mapping[str, Any]) -> str:
    value = e.get("input")
    if isinstance(value, dict | list | tuple):
        return f" (got a {'mapping' if isinstance(value, dict) else 'list'})"
    return f" (got {value!r})"


def _plain(e: Mapping[str, Any], model: type[BaseModel] | None, loc: tuple[int | str, ...]) -> str:
    """One pydantic error as a sentence about the YAML."""
    kind, ctx, msg = e["type"], e.get("ctx") or {}, str(e["msg"])
    if kind == "extra_forbidden":
        return "unknown field" + did_you_mean(str(loc[-1]), _fields_at(model, loc[:-1]))
    bounds = {
        "greater_than": ("greater than", "gt"),
        "greater_than_equal": ("at least", "ge"),
        "less_than": ("less than", "lt"),
        "less_than_equal": ("at most", "le"),
    }
    if kind in bounds:
        word, key = bounds[kind]
        limit = ctx.get(key)
        shown = f"{limit:g}" if isinstance(limit, float) else limit
        return f"must be {word} {shown}{_got(e)}"
    sentences = {
        "missing": "field required",
        "int_parsing": "must be a whole number",
        "int_type": "must be a whole number",
        "int_from_float": "must be a whole number",
        "float_parsing": "must be a number",
        "float_type": "must be a number",
        "bool_parsing": "must be true or false",
        "bool_type": "must be true or false",
        "string_type": "must be text",
        "dict_type": "must be a mapping (key: value lines)",
        "model_type": "must be a mapping (key: value lines)",
        "model_attributes_type": "must be a mapping (key: value lines)",
        "list_type": "must be a list",
        "tuple_type": "must be a list",
    }
    if kind in sentences:
        return sentences[kind] + ("" if kind == "missing" else _got(e))
    if kind == "literal_error":
        return f"must be one of {ctx.get('expected')}{_got(e)}"
    if kind == "string_pattern_mismatch":
        return f"{e.get('input')!r} is not allowed here (it must match {ctx.get('pattern')})"
    if kind == "string_too_short":
        return "must not be empty" if ctx.get("min_length") == 1 else msg.replace("String", "it")
    if kind == "too_short":
        return f"needs at least {ctx.get('min_length')} entries"
    if kind == "too_long":
        return f"takes at most {ctx.get('max_length')} entries"
    if kind == "value_error":
        return msg.removeprefix("Value error, ")
    return msg.replace("Input should be", "must be")


def problems_from_validation(
    err: ValidationError, model: type[BaseModel] | None = None
) -> list[FieldProblem]:
    """Every error of ``err`` as a located, plain problem; ``model`` (the type validated)
    lets an unknown field name the close field it has."""
    problems = []
    for e in err.errors(include_url=False):
        loc = tuple(p for p in e["loc"] if not (isinstance(p, str) and p.startswith("function-")))
        problems.append(FieldProblem(field_path(loc), _plain(e, model, loc)))
    return problems


def located(
    title: str,
    found: Iterable[tuple[tuple[int | str, ...], str, Any]],
    also: ValidationError | None = None,
) -> ValidationError:
    """Several problems a validator found, as one error each at its own location below the
    field it validates: ``(loc, message, the value)``, with ``also``'s errors (what the
    field's own validation found) -> raise the result."""
    details = [
        InitErrorDetails(
            type=PydanticCustomError("config", "{message}", {"message": message}),
            loc=loc,
            input=value,
        )
        for loc, message, value in found
    ]
    for e in also.errors(include_url=False) if also is not None else ():
        kept = InitErrorDetails(type=e["type"], loc=e["loc"], input=e["input"])
        if "ctx" in e:
            kept["ctx"] = e["ctx"]
        details.append(kept)
    return ValidationError.from_exception_data(title, details)
