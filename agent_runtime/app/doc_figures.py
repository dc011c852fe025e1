"""Figures in the docs rendered from committed result files, and the check that they agree.

A Markdown document holds a rendered block as::

    <!-- figures: RENDERER PATH [KEY=VALUE ...] -->
    ... what RENDERER made of the file at PATH (relative to the document) ...
    <!-- /figures -->

:func:`render_docs` re-renders every block of every document under a folder (``piano docs``
writes them; ``piano docs --check`` only compares): a block whose text differs from its
file's rendering, names a file that does not exist or a renderer nobody registered is a
:class:`Disagreement`. The renderers themselves live beside the benchmarks that write the
files (the CLI floor registers them), so this module knows no result format.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "Block",
    "Disagreement",
    "Renderer",
    "blocks",
    "documents",
    "markdown_table",
    "render_docs",
    "result_files",
]

#: (the result file, the block's KEY=VALUE options) -> the Markdown to show
Renderer = Callable[[Path, Mapping[str, str]], str]

_OPEN = re.compile(r"^<!-- figures: (?P<spec>.+?) -->\s*$")
_CLOSE = "<!-- /figures -->"
#: folders never searched for documents
_SKIP = {".git", ".venv", "node_modules", "runs", "__pycache__"}


def result_files(source: Path, options: Mapping[str, str]) -> list[Path]:
    """A block's result files: ``source``, then those its ``with=B.json,C.json`` names beside it
    (a name may lead to another results folder: ``../other/B.json``)."""
    names = [f for f in options.get("with", "").split(",") if f]
    return [source, *(Path(os.path.normpath(source.parent / f)) for f in names)]


def markdown_table(head: str, rows: Iterable[str]) -> str:
    """A Markdown table: its ``head`` row (``| a | b |``), the rule under it, then ``rows``."""
    return "\n".join([head, "|" + "---|" * (head.count(" | ") + 1), *rows]) + "\n"


@dataclass(frozen=True)
class Block:
    doc: Path
    line: int  # 1-based line of the opening comment
    renderer: str
    source: Path
    options: dict[str, str]
    body: str  # the text between the comments, as the document has it
    start: int  # offsets of ``body`` in the document's text
    end: int


@dataclass(frozen=True)
class Disagreement:
    doc: Path
    line: int
    reason: str

    def __str__(self) -> str:
        return f"{self.doc}:{self.line}: {self.reason}"


def documents(root: Path) -> Iterator[Path]:
    """Every Markdown file under ``root`` but the installed and generated folders."""
    for path in sorted(root.rglob("*.md")):
        if not _SKIP.intersection(path.relative_to(root).parts):
            yield path


def blocks(doc: Path, text: str) -> Iterator[Block | Disagreement]:
    """The rendered blocks of one document (a malformed one as a :class:`Disagreement`)."""
    offset = 0
    lines = text.splitlines(keepends=True)
    i = 0
    while i < len(lines):
        m = _OPEN.match(lines[i])
        if m is None:
            offset += len(lines[i])
            i += 1
            continue
        opened_at, start = i + 1, offset + len(lines[i])
        try:
            words = shlex.split(m["spec"])  # a value with spaces in quotes: section="Body ledger"
        except ValueError:
            words = []
        j, end = i + 1, start
        while j < len(lines) and lines[j].strip() != _CLOSE:
            end += len(lines[j])
            j += 1
        if j == len(lines):
            yield Disagreement(doc, opened_at, f"no {_CLOSE} after this block")
            return
        if len(words) < 2 or any("=" not in w for w in words[2:]):
            yield Disagreement(
                doc, opened_at, "want <!-- figures: RENDERER PATH [KEY=VALUE ...] -->"
            )
        else:
            options = dict(w.split("=", 1) for w in words[2:])
            source = (doc.parent / words[1]).resolve()
            yield Block(doc, opened_at, words[0], source, options, text[start:end], start, end)
        offset = end + len(lines[j])
        i = j + 1


def render_docs(
    root: Path, renderers: Mapping[str, Renderer], *, write: bool
) -> tuple[int, list[Disagreement]]:
    """Render every block under ``root``; with ``write`` the documents are updated in place.
    Returns the number of blocks and what disagreed (with ``write``: what could not render)."""
    count, problems = 0, []
    for doc in documents(root):
        text = doc.read_text()
        new, last = [], 0
        for b in blocks(doc, text):
            if isinstance(b, Disagreement):
                problems.append(b)
                continue
            count += 1
            try:
                rendered = _render(b, renderers)
            except (OSError, ValueError, KeyError, TypeError) as err:
                problems.append(Disagreement(doc, b.line, f"{b.renderer} {b.source}: {err!r}"))
                continue
            if rendered != b.body and not write:
                problems.append(Disagreement(doc, b.line, _differs(b, rendered)))
            new += [text[last : b.start], rendered]
            last = b.end
        if write and new:
            updated = "".join([*new, text[last:]])
            if updated != text:
                doc.write_text(updated)
    return count, problems


def _render(b: Block, renderers: Mapping[str, Renderer]) -> str:
    if b.renderer not in renderers:
        raise KeyError(f"no renderer {b.renderer!r} (known: {', '.join(sorted(renderers))})")
    if not b.source.is_file():
        raise FileNotFoundError(f"no result file {b.source}")
    out = renderers[b.renderer](b.source, b.options)
    return out if out.endswith("\n") else out + "\n"


def _differs(b: Block, rendered: str) -> str:
    have, want = b.body.splitlines(), rendered.splitlines()
    for n, (h, w) in enumerate(zip(have, want, strict=False)):
        if h != w:
            return (
                f"block line {n + 1} disagrees with {b.source.name} ({b.renderer}): "
                f"the document has {h!r}, the file gives {w!r} (`piano docs` re-renders it)"
            )
    return (
        f"block has {len(have)} lines, {b.source.name} ({b.renderer}) gives {len(want)} "
        "(`piano docs` re-renders it)"
    )
