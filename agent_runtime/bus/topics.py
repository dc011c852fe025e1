"""The MQTT topic layout of a run. Payloads are JSON objects.

| topic                                  | published by          | payload                          |
|----------------------------------------|-----------------------|----------------------------------|
| ``piano/{run}/agent/{a}/decision``     | cognitive controller  | the Decision section             |
| ``piano/{run}/agent/{a}/speech``       | talking               | an Utterance (what was said)     |
| ``piano/{run}/agent/{a}/skill``        | skill execution       | {event: started/finished, call, outcome} |
| ``piano/{run}/agent/{a}/goal``         | goal generation       | {goal, previous, brain}          |
| ``piano/{run}/agent/{a}/event``        | runtime / body        | body events (death, kicked, ...) |
| ``piano/{run}/agent/{a}/status``       | runtime               | {status: started/stopped, ...}   |
| ``piano/{run}/agent/{a}/view3d/open``  | the web page          | {} (asks for a 3D view)          |
| ``piano/{run}/agent/{a}/view3d``       | the body's process    | {url} or {error}                 |
| ``piano/{run}/world/chat``             | perception (heard)    | {sender, message, whisper, to}   |
| ``piano/{run}/world/event``            | experiments / world   | {kind, ...} e.g. tax_season_open |
| ``piano/{run}/run/status``             | village               | {status, agents, t}              |
| ``piano/{run}/run/progress``           | village / each worker | {shard, agents, decisions, ...}  |

Subscribe to ``piano/{run}/#`` to follow a whole run.
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
