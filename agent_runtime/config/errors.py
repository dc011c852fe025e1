"""Configuration errors that name the file, the field path and the problem."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, slots=True)
class FieldProblem:
    path: str  # e.g. "agents[2].name"
    message: str


class ConfigError(Exception):
    """A village file could not be loaded; ``str()`` is the user-facing message."""

    def __init__(
        self, file: Path | str, problems: list[FieldProblem], what: str = "village configuration"
    ) -> None:
        self.file = Path(file)
        self.problems = problems
        self.what = what  # the kind of file: village configuration, topic file, ...
        super().__init__(self.render())

    def render(self) -> str:
        lines = [f"{self.file}: invalid {self.what}"]
        for p in self.problems:
            where = p.path or "<top level>"
            lines.append(f"  {where}: {p.message}")
        return "\n".join(lines)
