"""PIANO modules: the concurrent cognitive modules of an agent, one package per module."""
