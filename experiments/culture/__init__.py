"""Culture and religion (see README.md)."""
