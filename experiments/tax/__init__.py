"""The tax experiment (see README.md)."""
