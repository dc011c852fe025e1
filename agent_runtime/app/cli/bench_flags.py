"""Flags that more than one command takes, written once.

Every duration a flag takes is in seconds, with the unit in its help: one unit per quantity
across commands (``--llm-latency 0.3`` is 300 ms in ``piano plan``, ``bench runtime``,
``bench cost`` and ``bench llm`` alike).
"""

from __future__ import annotations

import argparse

from agent_runtime.config.llm import LLMSettings

__all__ = ["MAX_LLM_LATENCY_S", "add_bots_per_process", "add_llm_latency", "seconds"]

#: the longest call latency a flag takes: the LLM client's default request timeout, past which
#: every call would time out (a larger figure was most likely meant in milliseconds)
MAX_LLM_LATENCY_S: float = LLMSettings.model_fields["timeout_s"].default


def add_bots_per_process(p: argparse.ArgumentParser, default: int) -> None:
    """``--bots-per-process``: the bodies' host option of the same name."""
    p.add_argument(
        "--bots-per-process",
        type=int,
        default=default,
        help="bodies per Node worker process (0: all in the JSPyBridge process)",
    )


def seconds(text: str) -> float:
    """A duration flag's value: seconds, 0 or more."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text}: seconds must be 0 or more")
    return value


def _llm_latency(text: str) -> float:
    value = seconds(text)
    if value > MAX_LLM_LATENCY_S:
        raise argparse.ArgumentTypeError(
            f"{text} s is longer than an LLM request may take ({MAX_LLM_LATENCY_S:g} s); "
            f"the latency is in seconds (300 ms is 0.3)"
        )
    return value


def add_llm_latency(
    p: argparse.ArgumentParser, default: float | list[float], what: str, *, many: bool = False
) -> None:
    """``--llm-latency SECONDS`` (``many``: one or more): ``what`` the latency is for."""
    shown = ", ".join(f"{d:g}" for d in default) if isinstance(default, list) else f"{default:g}"
    p.add_argument(
        "--llm-latency",
        type=_llm_latency,
        nargs="+" if many else None,
        default=default,
        metavar="SECONDS",
        help=f"{what}, in seconds (default {shown}; 300 ms is 0.3)",
    )
