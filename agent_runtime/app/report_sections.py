"""A section of an experiment's ``report.md`` (written by its ``recompute.py``) for the docs."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

__all__ = ["render_report_section"]


def render_report_section(source: Path, options: Mapping[str, str]) -> str:
    """The ``## {section}`` of the report, without its heading, up to the next ``## ``."""
    want = options["section"]
    lines = source.read_text().splitlines()
    starts = [i for i, line in enumerate(lines) if line.strip() == f"## {want}"]
    if not starts:
        raise ValueError(f"no section '## {want}' in {source.name}")
    body = []
    for line in lines[starts[0] + 1 :]:
        if line.startswith("## "):
            break
        body.append(line)
    return "\n".join(body).strip("\n") + "\n"
