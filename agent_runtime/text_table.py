"""A table as plain text lines (for the end of a run, logs and ``piano llm check``): columns
aligned by ``rich``, no box, no colour, the same on a terminal and in a file."""

from __future__ import annotations

import io
from collections.abc import Sequence

from rich.console import Console
from rich.table import Table

__all__ = ["text_table"]


def text_table(
    header: Sequence[str] | None, rows: Sequence[Sequence[str]], *, width: int = 200
) -> list[str]:
    """``header`` (None: no header line) and ``rows`` as lines, each column left-aligned to
    its widest cell, two spaces between columns, no trailing spaces; a cell is never wrapped
    (lines up to ``width``)."""
    columns = header if header is not None else [""] * max((len(r) for r in rows), default=0)
    table = Table(
        box=None,
        show_header=header is not None,
        header_style="",
        pad_edge=False,
        padding=(0, 2, 0, 0),
    )
    for name in columns:
        table.add_column(name, no_wrap=True, overflow="ignore")
    for row in rows:
        table.add_row(*row)
    out = io.StringIO()
    console = Console(file=out, width=width, color_system=None, force_terminal=False)
    console.print(table, highlight=False, markup=False)
    return [line.rstrip() for line in out.getvalue().splitlines()]
