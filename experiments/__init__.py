"""Civilisation experiments: one folder per experiment (config, runner, metrics, README)."""
