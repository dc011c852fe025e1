"""Credentials for Redis and the MQTT broker when they listen beyond loopback.

A service that only listens on loopback is reachable only from this machine. One that
listens on another address (a village over several machines) must ask for a password:
:class:`~agent_runtime.services.service.LoopbackService` refuses to start such a listener
without one. :meth:`Credentials.generate` makes fresh ones per run; they reach the workers
in their environment (:meth:`Credentials.env`, read back by :meth:`Credentials.from_env`),
never on a command line, and are never logged (their ``repr`` hides them).

The broker's password file holds a salted PBKDF2-SHA512 hash in mosquitto's own ``$7$``
format (:func:`mosquitto_password_line`), so no ``mosquitto_passwd`` command line ever
carries the password.
"""

from __future__ import annotations

import base64
import hashlib
import ipaddress
import os
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote, urlsplit, urlunsplit

__all__ = [
    "MQTT_PASSWORD_ENV",
    "MQTT_USER_ENV",
    "REDIS_PASSWORD_ENV",
    "Credentials",
    "is_loopback",
    "mosquitto_password_line",
    "with_redis_password",
    "write_private",
]

REDIS_PASSWORD_ENV = "PIANO_REDIS_PASSWORD"
MQTT_USER_ENV = "PIANO_MQTT_USER"
MQTT_PASSWORD_ENV = "PIANO_MQTT_PASSWORD"

#: mosquitto's PBKDF2-SHA512 iterations for ``$7$`` entries (its ``mosquitto_passwd`` default)
PBKDF2_ITERATIONS = 101


def is_loopback(host: str) -> bool:
    """``host`` names this machine's loopback only (``localhost``, 127.0.0.0/8, ``::1``)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # a name: it may resolve to anything


@dataclass(frozen=True)
class Credentials:
    """A Redis password and an MQTT user with its password (``repr`` shows no secret)."""

    redis_password: str = field(repr=False)
    mqtt_user: str
    mqtt_password: str = field(repr=False)

    @classmethod
    def generate(cls, mqtt_user: str = "piano") -> Credentials:
        return cls(secrets.token_urlsafe(24), mqtt_user, secrets.token_urlsafe(24))

    def env(self) -> dict[str, str]:
        """The environment variables that hand these to a worker."""
        return {
            REDIS_PASSWORD_ENV: self.redis_password,
            MQTT_USER_ENV: self.mqtt_user,
            MQTT_PASSWORD_ENV: self.mqtt_password,
        }

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Credentials | None:
        """The credentials in ``environ`` (default: this process's), if it has them."""
        env = os.environ if environ is None else environ
        redis_pw, mqtt_pw = env.get(REDIS_PASSWORD_ENV), env.get(MQTT_PASSWORD_ENV)
        if not redis_pw or not mqtt_pw:
            return None
        return cls(redis_pw, env.get(MQTT_USER_ENV) or "piano", mqtt_pw)


def with_redis_password(url: str, password: str) -> str:
    """``redis://host:port/0`` -> ``redis://:PASSWORD@host:port/0`` (a URL's own user kept)."""
    parts = urlsplit(url)
    host = parts.netloc.rsplit("@", 1)[-1]
    user = parts.netloc.rsplit("@", 1)[0].split(":", 1)[0] if "@" in parts.netloc else ""
    return urlunsplit(parts._replace(netloc=f"{user}:{quote(password, safe='')}@{host}"))


def mosquitto_password_line(user: str, password: str, salt: bytes | None = None) -> str:
    """One line of a mosquitto password file: ``user:$7$101$SALT$HASH`` (base64)."""
    if ":" in user or not user:
        raise ValueError("an MQTT user name must be non-empty and have no ':'")
    salt = salt if salt is not None else secrets.token_bytes(12)
    digest = hashlib.pbkdf2_hmac("sha512", password.encode(), salt, PBKDF2_ITERATIONS, 64)
    b64 = base64.b64encode
    return f"{user}:$7${PBKDF2_ITERATIONS}${b64(salt).decode()}${b64(digest).decode()}"


def write_private(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` readable by this user only (created 0600, never wider)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    os.chmod(path, 0o600)
