"""PIANO-style agent runtime for Minecraft: typed Agent State in Redis, concurrent modules,
a bottlenecked Cognitive Controller broadcasting over MQTT, and an LLM layer with a heuristic brain.

Public entry points: :class:`agent_runtime.app.village.Village`, :mod:`agent_runtime.config`,
:mod:`agent_runtime.interfaces` (the seams), :mod:`agent_runtime.world` (the body contract).
Nothing is started or read at import time.
"""
