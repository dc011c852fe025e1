"""The run's body key: the secret by which a body of this run proves at login that its
agent's name is its own (``bots/body/lib/login_proof.js``; the server's
``plugins/names.js`` asks for the proof and refuses anyone else under an agent's name).

One key per run, shared by every server of the run (shards, restarts) and every body host.
It lives only in a file of mode 0600 in the run folder: servers and bodies are handed the
file's path, never the key (so it is in no command line, environment or log).
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

__all__ = ["BODY_KEY_FILE_ENV", "BODY_KEY_NAME", "ensure_key_file"]

#: the key file's name in a run folder
BODY_KEY_NAME = "body.key"
#: environment variable with the key file's PATH, for the workers of a run
BODY_KEY_FILE_ENV = "PIANO_BODY_KEY_FILE"


def ensure_key_file(path: Path) -> Path:
    """``path`` holding a key (made now if missing or empty), mode 0600; returns ``path``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or not path.read_text(encoding="utf-8").strip():
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(secrets.token_urlsafe(32))
    os.chmod(path, 0o600)  # also when the file existed with other bits
    return path
