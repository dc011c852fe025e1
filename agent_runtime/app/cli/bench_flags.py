"""Flags that more than one benchmark takes, written once."""

from __future__ import annotations

import argparse

__all__ = ["add_bots_per_process"]


def add_bots_per_process(p: argparse.ArgumentParser, default: int) -> None:
    """``--bots-per-process``: the bodies' host option of the same name."""
    p.add_argument(
        "--bots-per-process",
        type=int,
        default=default,
        help="bodies per Node worker process (0: all in the JSPyBridge process)",
    )
