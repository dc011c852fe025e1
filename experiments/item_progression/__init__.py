"""The item_progression experiment (see README.md)."""
