"""Append-only JSONL log of prompts and replies, written into the run folder.

One line per ``complete()`` call: ``{ts, agent, module, prompt_name, model,
brain, messages, reply, usage, latency_s, attempts, cost_usd, error}``.
Before a line is written, every known secret value (the API keys the service
read) and anything shaped like an OpenAI key (``sk-...``) or a bearer token is
replaced by ``[REDACTED]``. Writes are small, buffered and flushed per line,
like a ``logging.FileHandler``.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterable
from pathlib import Path
from typing import IO, Any

from pydantic import BaseModel

from agent_runtime.clock import wall_time
from agent_runtime.interfaces import LLMRequest, LLMResult

__all__ = ["PromptLog", "redact"]

logger = logging.getLogger(__name__)

REDACTED = "[REDACTED]"
_PATTERNS = (
    re.compile(r"sk-[A-Za-z0-9_\-]{8,}"),
    re.compile(r"(?i)(bearer\s+)[A-Za-z0-9._~+/\-]+=*"),
)


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """Remove secret values and key-shaped strings from ``text``."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, REDACTED)
            escaped = json.dumps(secret)[1:-1]  # the form it takes inside a JSON string
            if escaped != secret:
                text = text.replace(escaped, REDACTED)
    text = _PATTERNS[0].sub(REDACTED, text)
    return _PATTERNS[1].sub(lambda m: m.group(1) + REDACTED, text)


class PromptLog:
    """JSONL prompt/reply log; open with :meth:`open`, close with :meth:`close`."""

    def __init__(self, path: Path, *, secrets: Iterable[str] = ()) -> None:
        self.path = Path(path)
        self._secrets = tuple(s for s in secrets if s)
        self._file: IO[str] | None = None
        self.records = 0

    def add_secret(self, value: str) -> None:
        if value and value not in self._secrets:
            self._secrets = (*self._secrets, value)

    def open(self) -> None:
        if self._file is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._file = self.path.open("a", encoding="utf-8")

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def write(
        self, request: LLMRequest[Any], result: LLMResult[Any], error: str | None = None
    ) -> None:
        """One line for ``request`` and what came of it: its ``result``, or (``error``) what
        a failed call cost, with the raw reply a model gave that did not validate."""
        if self._file is None:
            return
        reply = result.value
        reply_json: Any = reply.model_dump(mode="json") if isinstance(reply, BaseModel) else reply
        record = {
            "ts": round(wall_time(), 3),
            "agent": request.agent,
            "module": request.module,
            "prompt_name": request.prompt_name,
            "model": result.model,
            "brain": result.brain,
            "messages": [{"role": m.role, "content": m.content} for m in request.messages],
            "reply": reply_json,
            "usage": {
                "prompt_tokens": result.usage.prompt_tokens,
                "completion_tokens": result.usage.completion_tokens,
            },
            "latency_s": round(result.latency_s, 6),
            "attempts": result.attempts,
            "cost_usd": round(result.cost_usd, 8),
            "error": error,
        }
        line = redact(json.dumps(record, ensure_ascii=False, default=str), self._secrets)
        try:
            self._file.write(line + "\n")
            self._file.flush()
        except OSError:
            logger.exception("cannot write the prompt log %s; disabling it", self.path)
            self.close()
        else:
            self.records += 1
