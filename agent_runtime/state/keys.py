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
    return f"piano:{run}"


def meta(run: str) -> str:
    return f"piano:{run}:meta"


def agents(run: str) -> str:
    return f"piano:{run}:agents"


def agent_prefix(run: str, agent: str) -> str:
    return f"piano:{run}:agent:{agent}"


def state(run: str, agent: str) -> str:
    return f"piano:{run}:agent:{agent}:state"


def modules(run: str, agent: str) -> str:
    return f"piano:{run}:agent:{agent}:modules"
