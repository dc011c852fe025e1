"""The chef scenario of the social perception experiment (see README.md)."""
