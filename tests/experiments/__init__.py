"""Tests of the experiments (metrics on hand-made data; end-to-end smoke runs)."""
