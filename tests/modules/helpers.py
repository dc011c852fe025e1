"""Building typed views for policy tests: an agent's own sections -> the bottleneck view."""

from __future__ import annotations

from agent_runtime.bottleneck import BottleneckView, build_view
from agent_runtime.config.models import BottleneckSettings
from agent_runtime.state.sections import Identity, Section

NOW = 1_000_000.0


def bview(now: float = NOW, **sections: Section) -> BottleneckView:
    """The default bottleneck over ``sections`` (identity "Ann" unless given)."""
    sections.setdefault("identity", Identity(name="Ann", community_goal="Thrive."))
    return build_view(dict(sections), BottleneckSettings(), now=now)
