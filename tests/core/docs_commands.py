"""The commands and links of the README and the pages under docs/, read from their Markdown.

A command is a line of a ```` ```bash ```` block (backslash continuations joined, ``# ...``
comments and a trailing ``&`` dropped) whose program is ``piano`` (or ``.venv/bin/piano``) or
``make``; other programs (``ray``, ``redis-server``, ``export``, ...) are shown, not ours to
check. A link is a Markdown ``[text](target)`` that is not a URL.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: the README and every page it sends a newcomer to
DOCS = (ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")))

_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


@dataclass(frozen=True)
class Command:
    doc: Path
    line: int  # 1-based, of the command's first line
    argv: tuple[str, ...]  # program first, ``.venv/bin/`` dropped

    def __str__(self) -> str:
        return f"{self.doc.relative_to(ROOT)}:{self.line}: {shlex.join(self.argv)}"


def commands(doc: Path, text: str | None = None) -> Iterator[Command]:
    """Every ``piano`` and ``make`` command of ``doc``'s ``bash`` blocks."""
    lines = (doc.read_text() if text is None else text).splitlines()
    in_bash, i = False, 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("```"):
            in_bash = not in_bash and line.strip() == "```bash"
            i += 1
            continue
        start = i
        while line.endswith("\\") and i + 1 < len(lines):
            i += 1
            line = line[:-1] + lines[i]
        i += 1
        if not in_bash:
            continue
        argv = shlex.split(line, comments=True)
        if argv and argv[-1] == "&":
            argv = argv[:-1]
        if argv and argv[0].removeprefix(".venv/bin/") in ("piano", "make"):
            yield Command(doc, start + 1, (argv[0].removeprefix(".venv/bin/"), *argv[1:]))


def links(doc: Path) -> Iterator[tuple[int, str]]:
    """``(line, target)`` of every link that is not a URL or an anchor of the same page."""
    for n, line in enumerate(doc.read_text().splitlines(), 1):
        for target in _LINK.findall(line):
            if not re.match(r"[a-z]+:", target) and not target.startswith("#"):
                yield n, target.split("#", 1)[0]
