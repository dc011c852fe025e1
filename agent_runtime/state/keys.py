"""The Redis key schema. Everything of a run lives under ``piano:{run}:``.

| key                                   | type | contents                                    |
|---------------------------------------|------|---------------------------------------------|
| ``piano:{run}:meta``                  | hash | run metadata: config (JSON), started, status |
| ``piano:{run}:agents``                | set  | names of the run's agents                    |
| ``piano:{run}:agent:{a}:state``       | hash | state section name -> section JSON           |
| ``piano:{run}:agent:{a}:modules``     | hash | module name -> checkpoint JSON (get_state)   |
| ``piano:{run}:agent:{a}:mem:*``       | *    | the memory stream (see ``modules/memory``)   |

Run ids and agent names are restricted to ``[A-Za-z0-9_.-]`` so keys need no escaping.
"""

from __future__ import annotations


def prefix(run: str) -> str:
    """Every key of the run starts with this one; the others are built on it."""
    return f"piano:{run}"


def meta(run: str) -> str:
    """A hash: the run's metadata (config JSON, started)."""
    return f"{prefix(run)}:meta"


def agents(run: str) -> str:
    """A set: the names of the run's agents."""
    return f"{prefix(run)}:agents"


def agent_prefix(run: str, agent: str) -> str:
    """Every key of one agent starts with this one."""
    return f"{prefix(run)}:agent:{agent}"


def state(run: str, agent: str) -> str:
    """A hash: state section name -> section JSON."""
    return f"{agent_prefix(run, agent)}:state"


def modules(run: str, agent: str) -> str:
    """A hash: module name -> checkpoint JSON (``get_state``)."""
    return f"{agent_prefix(run, agent)}:modules"
