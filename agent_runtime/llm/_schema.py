"""JSON helpers for structured output: schema shaping, reply parsing, synthesis."""

from __future__ import annotations

import copy
import json
import re
from typing import Any

from pydantic import BaseModel

__all__ = [
    "close_truncated",
    "extract_json",
    "grammar_schema",
    "schema_name",
    "strict_json_schema",
    "synthesise",
]

_FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.DOTALL)


def extract_json(text: str) -> str:
    """The JSON document inside a reply: unwraps ```json fences and surrounding prose."""
    s = text.strip()
    m = _FENCE.search(s)
    if m:
        s = m.group(1).strip()
    if s and s[0] not in "{[":
        start, end = s.find("{"), s.rfind("}")
        if start != -1 and end > start:
            s = s[start : end + 1]
    return s


def close_truncated(text: str) -> str | None:
    """A JSON object cut off mid-reply (a small model looping until ``max_tokens``), closed:
    an open string ends where the reply ends, a member without its value is dropped, open
    arrays and objects are closed. None when ``text`` is not an object that was cut off."""
    if not text.startswith("{"):
        return None
    stack: list[str] = []
    in_string = escaped = False
    last_comma = -1  # the last member separator of the outermost object
    for i, ch in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "{[":
            stack.append("}" if ch == "{" else "]")
        elif ch in "}]":
            stack.pop()  # never empty here: the outermost close returns below
            if not stack:
                return None  # complete: nothing was cut off
        elif ch == "," and len(stack) == 1:
            last_comma = i
    whole = text[:-1] if escaped else text
    whole = whole + ('"' if in_string else "")
    candidates = [whole.rstrip().rstrip(",") + "".join(reversed(stack))]
    if last_comma > 0:
        candidates.append(text[:last_comma] + "}")
    for candidate in candidates:
        try:
            json.loads(candidate, strict=False)
        except ValueError:
            continue
        return candidate
    return None


def schema_name(model: type[BaseModel]) -> str:
    """A name acceptable to ``response_format.json_schema.name`` (``^[A-Za-z0-9_-]{1,64}$``)."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", model.__name__)[:64] or "Reply"


def strict_json_schema(model: type[BaseModel]) -> tuple[dict[str, Any], bool]:
    """The model's JSON schema shaped for OpenAI structured outputs.

    Returns ``(schema, strict)``. Every object gets ``additionalProperties:
    false`` and lists all its properties as required; ``oneOf`` becomes
    ``anyOf``; defaults are dropped; ``$ref`` with sibling keywords is inlined.
    ``strict`` is False when the model has free-form mappings (``dict[str,
    X]``), which strict mode cannot express; the schema is then sent as a hint.
    """
    schema = copy.deepcopy(model.model_json_schema())
    defs: dict[str, Any] = schema.get("$defs", {})
    strict = True

    def walk(node: Any) -> Any:
        nonlocal strict
        if isinstance(node, list):
            return [walk(n) for n in node]
        if not isinstance(node, dict):
            return node
        node = dict(node)
        if "$ref" in node and len(node) > 1:
            ref = node.pop("$ref")
            target = defs.get(ref.rsplit("/", 1)[-1], {})
            node = {**target, **node}
        node.pop("default", None)
        if "oneOf" in node:
            node["anyOf"] = node.pop("oneOf")
            node.pop("discriminator", None)
        if node.get("type") == "object" or "properties" in node:
            extra = node.get("additionalProperties")
            if isinstance(extra, dict) or (extra is True and not node.get("properties")):
                strict = False
            else:
                node["additionalProperties"] = False
                node["required"] = list(node.get("properties", {}))
        for key in ("properties", "$defs"):
            if isinstance(node.get(key), dict):
                node[key] = {k: walk(v) for k, v in node[key].items()}
        for key in ("items", "additionalProperties", "not"):
            if isinstance(node.get(key), dict):
                node[key] = walk(node[key])
        for key in ("anyOf", "allOf", "prefixItems"):
            if isinstance(node.get(key), list):
                node[key] = walk(node[key])
        return node

    shaped: dict[str, Any] = walk(schema)
    return shaped, strict


def _nullable(node: Any) -> bool:
    return isinstance(node, dict) and (
        node.get("type") == "null"
        or any(isinstance(a, dict) and a.get("type") == "null" for a in node.get("anyOf", ()))
    )


def grammar_schema(strict: dict[str, Any]) -> dict[str, Any]:
    """A strict schema (:func:`strict_json_schema`) for a server that turns it into a grammar
    (llama.cpp's ``json_object`` with ``schema``): a field that may be null is no longer
    required, so the model may leave it out (the default, null, is filled in on parsing)
    instead of writing ``"x": null`` for each; a slow local model pays for every token it
    generates."""

    def walk(node: Any) -> Any:
        if isinstance(node, list):
            return [walk(n) for n in node]
        if not isinstance(node, dict):
            return node
        node = {k: walk(v) for k, v in node.items()}
        props = node.get("properties")
        if isinstance(props, dict) and isinstance(node.get("required"), list):
            node["required"] = [k for k in node["required"] if not _nullable(props.get(k))]
        return node

    shaped: dict[str, Any] = walk(strict)
    return shaped


# --- synthesis (for the simulated model) ----------------------------------------------


def synthesise(model: type[BaseModel]) -> dict[str, Any]:
    """A JSON object that validates as ``model``, built from its schema and defaults.

    Strings are "..." padded to ``minLength``; numbers sit at their lower
    bound; arrays have ``minItems`` elements; optional unions pick ``null``;
    enums and literals pick their first value. Raises ``TypeError`` if the
    result does not validate (e.g. a ``pattern`` constraint without default).
    """
    schema = model.model_json_schema()
    defs: dict[str, Any] = schema.get("$defs", {})

    def value(node: dict[str, Any], depth: int) -> Any:
        if depth > 20:
            return None
        if "default" in node:
            return copy.deepcopy(node["default"])
        if "const" in node:
            return node["const"]
        if node.get("enum"):
            return node["enum"][0]
        if "$ref" in node:
            return value(defs.get(node["$ref"].rsplit("/", 1)[-1], {}), depth + 1)
        for key in ("anyOf", "oneOf"):
            if key in node:
                options: list[dict[str, Any]] = node[key]
                if any(o.get("type") == "null" for o in options):
                    return None
                return value(options[0], depth + 1)
        if node.get("allOf"):
            return value(node["allOf"][0], depth + 1)
        kind = node.get("type")
        if isinstance(kind, list):
            kind = "null" if "null" in kind else kind[0]
        if kind == "string":
            n = int(node.get("minLength", 0))
            text = "..." if n <= 3 else "." * n
            return text[: node.get("maxLength", len(text))]
        if kind in ("integer", "number"):
            lo = node.get("minimum")
            if lo is None and "exclusiveMinimum" in node:
                lo = node["exclusiveMinimum"] + 1
            if lo is None:
                hi = node.get("maximum", node.get("exclusiveMaximum"))
                lo = 0 if hi is None or hi > 0 else hi - 1
            return int(lo) if kind == "integer" else float(lo)
        if kind == "boolean":
            return False
        if kind == "null":
            return None
        if kind == "array":
            if "prefixItems" in node:
                return [value(item, depth + 1) for item in node["prefixItems"]]
            item = node.get("items", {})
            return [value(item, depth + 1) for _ in range(int(node.get("minItems", 0)))]
        if kind == "object" or "properties" in node:
            props: dict[str, Any] = node.get("properties", {})
            required = node.get("required", [])
            return {
                k: value(v, depth + 1) for k, v in props.items() if k in required or "default" in v
            }
        return None

    data = value(schema, 0)
    if not isinstance(data, dict):
        raise TypeError(f"{model.__name__}: the schema's root is not an object")
    try:
        model.model_validate(data)
    except ValueError as exc:
        raise TypeError(
            f"cannot synthesise a valid {model.__name__} from its schema; "
            f"give the offending fields defaults ({exc})"
        ) from exc
    out: dict[str, Any] = json.loads(json.dumps(data))
    return out
