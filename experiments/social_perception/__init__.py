"""The social_perception experiment (see README.md)."""
