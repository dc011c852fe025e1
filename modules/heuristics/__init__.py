"""Heuristic (non-LLM) policies of the modules: functions ``(view, rng) -> output``."""
