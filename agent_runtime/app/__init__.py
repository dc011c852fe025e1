"""The assembly: the one place that wires the core to ``modules``, ``bots`` and ``experiments``.

The ``piano`` CLI (:mod:`agent_runtime.app.cli`), the :class:`~agent_runtime.app.village.Village`
(services, world, bodies, agents), world setup, run metrics, benchmarks and the in-process
test harness live here. The rest of ``agent_runtime`` is the core and imports nothing from
``modules``, ``bots`` or ``experiments``.
"""
