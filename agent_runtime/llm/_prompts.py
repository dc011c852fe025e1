"""Loads the layer's own prompt files (``prompts/*.txt``) by name, once."""

from __future__ import annotations

import functools
from importlib import resources

__all__ = ["load", "render"]


@functools.cache
def load(name: str) -> str:
    return (resources.files("agent_runtime.llm") / "prompts" / f"{name}.txt").read_text("utf-8")


def render(name: str, **fields: str) -> str:
    return load(name).format(**fields).strip()
