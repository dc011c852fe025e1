"""An experiment's run with its agents in worker processes (``piano experiment ... --workers N``).

The coordinator of ``piano run --workers N`` (:func:`agent_runtime.app.coordinator.coordinate`)
opens Redis, the broker and the world (every shard), and N ``piano worker`` children host the
agents; they load the run's ``config.resolved.yaml`` (the village of this run: condition, seed,
time scale, the experiment's agents), so every worker resolves the same agents and hosts those
whose index is K modulo N. What the protocols get is the coordinating village:

- ``village.resolved`` lists every agent of the run (checked against the names the workers
  registered in Redis); protocols iterate :func:`experiments.common.agent_names`;
- ``village.store`` is the coordinator's cache of the shared Redis: protocols call
  :func:`experiments.common.fresh_state` before they read agents' state;
- ``village.events`` gets every worker's event records as they are written (the run's
  ``events.jsonl`` and in-process listeners see the whole village; each record gains
  ``worker: K``);
- the bus, the world (its admin APIs) and the LLM service are the coordinator's own.

The protocol's clock starts when every agent runs (as in process, where the village opens
only once every body has joined). Objects cannot cross into a worker process: a model or an
encoder given to the options (tests) is refused; name them in the village file instead
(``llm``, ``run.embedder``).
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import math
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from agent_runtime.config.loader import resolve_agents

if TYPE_CHECKING:
    from agent_runtime.app.village import Village, VillageOptions
    from experiments.spec import ExperimentOptions, RunSpec

log = logging.getLogger(__name__)

READY_BASE_S = 120.0  # start-up of a worker (its bridge, its first bodies) ...
READY_PER_AGENT_S = 5.0  # ... plus each of its agents' bodies joining


def ready_timeout(agents: int, workers: int) -> float:
    """How long the workers may take to bring ``agents`` up: bodies join a few at a time per
    worker, so the time grows with the agents of one worker."""
    return READY_BASE_S + READY_PER_AGENT_S * math.ceil(agents / max(1, workers))


@contextlib.asynccontextmanager
async def worker_village(
    spec: RunSpec, opts: ExperimentOptions, vopts: VillageOptions
) -> AsyncIterator[Village]:
    """The coordinating village of one run whose agents ``opts.workers`` workers host."""
    from agent_runtime.app.coordinator import coordinate, village_agents

    if opts.llm_override is not None or opts.embedder is not None:
        raise ValueError(
            "--workers: a model or encoder object cannot be handed to worker processes; "
            "name them in the village file (llm, run.embedder)"
        )
    limit = vopts.agent_limit
    if limit is not None and limit >= len(resolve_agents(spec.config)):
        limit = None  # `piano worker --agents N` would add generated agents beyond the file's
    progress = vopts.progress
    async with coordinate(
        spec.config,
        dataclasses.replace(vopts, progress=None),
        workers=opts.workers,
        config=spec.run_dir / "config.resolved.yaml",  # written when the village opened
        agents=limit,
        follow_events=True,
        progress=progress,
    ) as coord:
        village = coord.village
        assert village.world is not None
        everyone = village_agents(spec.config, village.world, limit)
        village.resolved = everyone
        up = await coord.ready(everyone, ready_timeout(len(everyone), opts.workers), opts.stop)
        if up:
            log.info("run %s: %d agents up on %d workers", spec.label, len(everyone), opts.workers)
        yield village
