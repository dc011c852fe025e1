"""Structured-output modes: what an endpoint is asked for, what it was found to accept.

Best first (``structured_output: auto`` walks down :data:`MODES` per (endpoint, model)):
``json_schema`` (``response_format`` with the schema), ``json_object_schema`` (JSON mode
with a schema the server turns into a grammar; the prompt names the fields),
``json_object`` (JSON mode, the schema in the prompt) and ``prompt`` (no
``response_format``, the schema in the prompt). :class:`EndpointState` remembers what each
mode did; :func:`is_format_rejection` tells an HTTP error about the ``response_format`` from
any other; :func:`response_format` is what a request sends in a mode and
:func:`with_instruction` adds the mode's JSON instruction to the messages.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Literal

import openai

from agent_runtime.interfaces import Message
from agent_runtime.llm._schema import grammar_schema
from agent_runtime.prompts import prompt_path, render_text

__all__ = [
    "MODES",
    "NEXT_MODE",
    "EndpointState",
    "Mode",
    "StructuredOutput",
    "is_format_rejection",
    "response_format",
    "with_instruction",
]

Mode = Literal["json_schema", "json_object_schema", "json_object", "prompt"]
StructuredOutput = Literal["auto", "json_schema", "json_object_schema", "json_object", "prompt"]
#: Best first; ``auto`` walks down this list per (endpoint, model).
MODES: tuple[Mode, ...] = ("json_schema", "json_object_schema", "json_object", "prompt")
NEXT_MODE: dict[Mode, Mode | None] = {
    "json_schema": "json_object_schema",
    "json_object_schema": "json_object",
    "json_object": "prompt",
    "prompt": None,
}
_FORMAT_STATUSES = frozenset({400, 422, 500})
_FORMAT_WORDS = re.compile(
    r"response_format|response format|json_schema|json_object|schema|grammar|"
    r"input should be 'text'|'text' or",
    re.IGNORECASE,
)


def estimate_tokens(text: str) -> int:
    """Rough token count (4 characters per token) for limits and for servers that omit usage."""
    return max(1, len(text) // 4) if text else 0


@dataclass(slots=True)
class EndpointState:
    """What has been learned about one (endpoint, model); shared by every module using it."""

    base_url: str
    model: str = ""
    modes: dict[str, bool | None] = field(default_factory=dict)  # mode -> supported (None: ?)

    @property
    def json_schema(self) -> bool | None:
        return self.modes.get("json_schema")

    def supports(self, mode: Mode) -> bool | None:
        return True if mode == "prompt" else self.modes.get(mode)

    def learn(self, mode: Mode, supported: bool | None) -> bool:
        """Record what ``mode`` did; True if that is news (the caller logs it once)."""
        if mode == "prompt":
            return False
        old = self.modes.get(mode)
        self.modes[mode] = supported
        return old != supported and supported is not None

    @property
    def working_mode(self) -> Mode | None:
        """The best mode known to work, if any."""
        for mode in MODES:
            if self.supports(mode):
                return mode
        return None

    def snapshot(self) -> dict[str, Any]:
        return {
            "base_url": self.base_url,
            "model": self.model,
            "modes": {m: self.modes.get(m) for m in MODES if m != "prompt"},
            "working_mode": self.working_mode,
        }


def is_format_rejection(exc: BaseException) -> bool:
    """True if an HTTP error says the endpoint does not accept the ``response_format`` sent."""
    if not isinstance(exc, openai.APIStatusError) or exc.status_code not in _FORMAT_STATUSES:
        return False
    text = exc.message
    body = exc.body
    if body is not None:
        text += " " + json.dumps(body, default=str)
    return _FORMAT_WORDS.search(text) is not None


def response_format(
    mode: Mode, schema: dict[str, Any], name: str, strict: bool
) -> dict[str, Any] | None:
    """The request's ``response_format`` in ``mode`` (None: send none)."""
    if mode == "json_schema":
        return {
            "type": "json_schema",
            "json_schema": {"name": name, "schema": schema, "strict": strict},
        }
    if mode == "json_object_schema":
        return {"type": "json_object", "schema": grammar_schema(schema)}
    if mode == "json_object":
        return {"type": "json_object"}
    return None


def with_instruction(turns: list[Message], mode: Mode, schema: dict[str, Any]) -> list[Message]:
    """``turns`` with the JSON instruction ``mode`` needs, after the leading system turns."""
    if mode == "json_schema":
        return turns
    if mode == "json_object_schema":
        # the server's grammar enforces the schema; the field names tell the model what
        # it is filling in, at a fraction of the schema's prompt tokens
        props = schema.get("properties", {})
        required = set(grammar_schema(schema).get("required", ()))
        fields = ", ".join(k for k in props if k in required) or "(none)"
        optional = ", ".join(k for k in props if k not in required) or "(none)"
        text = render_text(
            prompt_path("agent_runtime.llm", "json_fields"), {"fields": fields, "optional": optional}
        )
    else:
        # JSON mode / prompt mode: the whole schema travels as an instruction
        # (OpenAI's JSON mode also requires the word "JSON" in the messages).
        text = render_text(
            prompt_path("agent_runtime.llm", "json_reply"),
            {"schema": json.dumps(schema, separators=(",", ":"))},
        )
    instruction = Message("system", text)
    lead = 0
    while lead < len(turns) and turns[lead].role == "system":
        lead += 1
    return [*turns[:lead], instruction, *turns[lead:]]
