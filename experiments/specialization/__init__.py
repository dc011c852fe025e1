"""The specialization experiment (see README.md)."""
