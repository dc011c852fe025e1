"""Reading a JSON-lines file that another process may be appending to (a run's ``events.jsonl``).

A line is a record once its newline is written: the writer appends a record and its newline
in one write, but a reader can see the file between two pieces of a long write (a plan event of
a few hundred characters was read cut at character 797: the README-village test, CI of
a69d3d0). The unterminated last line is left for the next read; a complete line that is not
JSON is an error, as before.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

__all__ = ["records"]


def records(path: Path) -> list[dict[str, Any]]:
    """The complete records of ``path`` ([] while it does not exist)."""
    if not path.exists():
        return []
    text = path.read_text()
    complete = text[: text.rfind("\n") + 1]
    return [json.loads(x) for x in complete.splitlines() if x.strip()]
