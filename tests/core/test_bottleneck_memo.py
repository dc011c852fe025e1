"""The bottleneck summarises a section object once: an unchanged section (the same immutable
object) reuses its summary, a rewritten one is summarised again, and the memo forgets
sections nobody holds any more."""

from __future__ import annotations

import gc

from agent_runtime import bottleneck
from agent_runtime.bottleneck import build_view
from agent_runtime.config.models import BottleneckSettings
from agent_runtime.state.sections import Goals, Identity, Section


def test_unchanged_sections_reuse_their_summary_and_changed_ones_do_not() -> None:
    settings = BottleneckSettings()
    snap: dict[str, Section] = {
        "identity": Identity(name="Ann", traits=("You are kind.",)),
        "goals": Goals(current="gather wood"),
    }
    first = build_view(snap, settings, now=1.0)
    again = build_view(snap, settings, now=2.0)
    assert again.sections["goals"] is first.sections["goals"]
    assert again.now == 2.0
    snap["goals"] = snap["goals"].model_copy(update={"current": "build a house"})
    changed = build_view(snap, settings, now=3.0)
    assert changed.sections["goals"] is not first.sections["goals"]
    assert "build a house" in changed.sections["goals"].text
    assert changed.sections["identity"] is first.sections["identity"]
    assert changed == build_view(
        {k: v.model_copy() for k, v in snap.items()}, settings, now=3.0
    )  # the same content as a fresh summary


def test_the_memo_forgets_sections_nobody_holds() -> None:
    settings = BottleneckSettings()
    before = len(bottleneck._MEMO)
    for i in range(50):
        build_view({"goals": Goals(current=f"goal {i}")}, settings)
    gc.collect()
    assert len(bottleneck._MEMO) <= before + 1
