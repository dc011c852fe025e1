"""Reading a chat completion: its text and usage, and the reply parsed into the caller's model.

:func:`parse_reply` tolerates ```json fences, surrounding prose, raw control characters
inside strings and a reply cut off at ``max_tokens`` (the members it finished are read);
what still does not match the schema raises :class:`InvalidReply` with a detail the repair
request shows the model.
"""

from __future__ import annotations

import json

from openai.types.chat import ChatCompletion
from pydantic import ValidationError

from agent_runtime.interfaces import Message, T, Usage
from agent_runtime.llm._schema import close_truncated, extract_json
from agent_runtime.llm.tokens import estimate_tokens

__all__ = ["InvalidReply", "parse_reply", "reply_text", "reply_usage"]


class InvalidReply(Exception):
    """A reply that is not valid for the requested model; ``detail`` says why."""

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


def reply_text(completion: ChatCompletion) -> str:
    """The first choice's content ("" if none; a refusal noted as such)."""
    if not completion.choices:
        return ""
    message = completion.choices[0].message
    text = message.content or ""
    if not text and message.refusal:
        text = f"(refused: {message.refusal})"
    return text


def reply_usage(completion: ChatCompletion, messages: list[Message], text: str) -> Usage:
    """The usage the server reported, or an estimate from the texts when it reported none."""
    if completion.usage is not None:
        details = completion.usage.prompt_tokens_details
        cached = details.cached_tokens if details is not None else None
        return Usage(
            completion.usage.prompt_tokens,
            completion.usage.completion_tokens,
            cached or 0,
        )
    return Usage(sum(estimate_tokens(m.content) for m in messages), estimate_tokens(text))


def parse_reply(model: type[T], raw: str) -> T:
    """``raw`` read as an instance of ``model``; raises :class:`InvalidReply`."""
    text = extract_json(raw)
    if not text:
        raise InvalidReply("the reply was empty")
    try:
        return model.model_validate_json(text)
    except ValidationError as exc:
        errors = exc.errors(include_url=False, include_input=False)
    if errors and errors[0].get("type") == "json_invalid":
        # raw newlines or tabs inside strings (some grammars let them through) are
        # harmless: read them leniently instead of asking the model for a repair
        try:
            data = json.loads(text, strict=False)
        except ValueError:
            # a reply cut off at max_tokens (a small model repeating itself inside a
            # string): the members it finished are read, and the schema still decides
            closed = close_truncated(text)
            if closed is None:
                raise InvalidReply(f"not valid JSON: {errors[0].get('msg', '')}") from None
            data = json.loads(closed, strict=False)
        try:
            return model.model_validate(data)
        except ValidationError as exc:
            errors = exc.errors(include_url=False, include_input=False)
    detail = "; ".join(
        f"{'.'.join(str(p) for p in e['loc']) or '<root>'}: {e['msg']}" for e in errors[:8]
    )
    raise InvalidReply(f"does not match the schema: {detail}")
