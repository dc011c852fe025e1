"""The base of every config model, view and record: frozen, and an unknown field is an error."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

__all__ = ["Strict"]


class Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
