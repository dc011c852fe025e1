"""The MQTT topic layout of a run. Each topic carries one frozen model (its JSON on the wire).

| topic                                  | published by                | model (``messages``)  |
|----------------------------------------|-----------------------------|-----------------------|
| ``piano/{run}/agent/{a}/decision``     | cognitive controller        | ``Decision``          |
| ``piano/{run}/agent/{a}/speech``       | talking                     | ``Speech``            |
| ``piano/{run}/agent/{a}/heard``        | perception                  | ``Heard``             |
| ``piano/{run}/agent/{a}/skill``        | skill execution             | ``SkillEvent``        |
| ``piano/{run}/agent/{a}/goal``         | goal generation             | ``GoalChange``        |
| ``piano/{run}/agent/{a}/event``        | runtime (the body's events) | ``BodyEvent``         |
| ``piano/{run}/agent/{a}/status``       | runtime                     | ``AgentStatus``       |
| ``piano/{run}/agent/{a}/view3d/open``  | the web page                | ``View3dRequest``     |
| ``piano/{run}/agent/{a}/view3d``       | the body's process          | ``View3dAnswer``      |
| ``piano/{run}/world/event``            | experiments / world         | ``WorldEvent``        |
| ``piano/{run}/run/status``             | village                     | ``RunStatus``         |
| ``piano/{run}/run/progress``           | village / each worker       | ``Progress``          |

Heard chat is per agent (``agent/{a}/heard``): each body hears only what is said within
its hearing radius. The models and this table are one list: ``messages.TOPICS``, checked
against this table by ``tests/core/test_messages.py``. Subscribe to ``piano/{run}/#`` to
follow a whole run.
"""

from __future__ import annotations


def root(run: str) -> str:
    """Every topic of the run starts with this one; the others are built on it."""
    return f"piano/{run}"


def agent(run: str, name: str, kind: str) -> str:
    return f"{root(run)}/agent/{name}/{kind}"


def view3d_request(run: str, name: str) -> str:
    """Someone (the web page) asks for a 3D view from agent ``name``'s eyes."""
    return agent(run, name, "view3d/open")


def view3d(run: str, name: str) -> str:
    """The answer to a ``view3d_request``: the viewer's loopback URL, or an error."""
    return agent(run, name, "view3d")


def world(run: str, kind: str) -> str:
    return f"{root(run)}/world/{kind}"


def run(run: str, kind: str) -> str:
    """A topic of the whole run: ``status`` or ``progress``."""
    return f"{root(run)}/run/{kind}"


def run_wildcard(run: str) -> str:
    return f"{root(run)}/#"


def matches(pattern: str, topic: str) -> bool:
    """MQTT wildcard matching: ``+`` one level, ``#`` the rest (including none)."""
    p = pattern.split("/")
    t = topic.split("/")
    for i, part in enumerate(p):
        if part == "#":
            return True
        if i >= len(t):
            return False
        if part != "+" and part != t[i]:
            return False
    return len(p) == len(t)
