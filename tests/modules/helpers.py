"""Building typed views for policy tests: an agent's own sections -> the bottleneck view;
an agent's stored state for module tests; the experiments' topics a village hands its
agents (read from the experiments' own topic files, as a village file names them)."""

from __future__ import annotations

import functools
from pathlib import Path

from agent_runtime.agent_services import AgentServices
from agent_runtime.bottleneck import BottleneckView, build_view
from agent_runtime.config.loader import load_topic
from agent_runtime.config.models import BottleneckSettings
from agent_runtime.config.topics import Topic
from agent_runtime.state.sections import SECTION_WRITERS, Identity, Section
from agent_runtime.state.store import AgentState

NOW = 1_000_000.0
ROOT = Path(__file__).resolve().parents[2]
#: the topic files of the experiments that own them
TOPIC_FILES = {
    "tax": ROOT / "experiments" / "tax" / "topics" / "tax.yaml",
    "religion": ROOT / "experiments" / "culture" / "topics" / "religion.yaml",
}


@functools.cache
def topic(name: str) -> Topic:
    """The experiment's topic ``name`` (tax, religion) as a village hands it to its agents."""
    return load_topic(TOPIC_FILES[name])


def bview(now: float = NOW, **sections: Section) -> BottleneckView:
    """The default bottleneck over ``sections`` (identity "Ann" unless given)."""
    sections.setdefault("identity", Identity(name="Ann", community_goal="Thrive."))
    return build_view(dict(sections), BottleneckSettings(), now=now)


def agent_state(svc: AgentServices, name: str = "Ann", **sections: Section) -> AgentState:
    """``name``'s stored state with ``sections`` written by their own writers (the identity
    by the runtime: ``Identity(name=name)`` unless given)."""
    sections.setdefault("identity", Identity(name=name))
    st = svc.store.agent(name)
    for section, value in sections.items():
        st.set(section, value, writer=SECTION_WRITERS[section])
    return st
