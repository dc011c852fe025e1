"""The Minecraft version of a village on an external server, read from the server's status ping
before any body joins.

``world.version`` set in the file and the server speaking another protocol: one line naming the
file, the field and the server's version (exit 2). Left unset (the model defaults it; whether
the file set it is read from ``model_fields_set`` before any override), the bodies use the
server's version when it is one they speak (``external_versions``: what the pinned mineflayer
lists as tested, from the oldest supported version on), else one line with the reason (exit 2).
A server that cannot be reached is reported by the village's own check as before
(``agent_runtime/app/world_setup.py``: the run folder is written first).
A sharded world's servers are each checked against ``world.version`` as they open
(``agent_runtime/app/world_setup.py``); its version is not read from them.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

from agent_runtime import mc_names
from agent_runtime.app.world_setup import WorldError
from agent_runtime.config.loader import with_overrides
from agent_runtime.config.models import SUPPORTED_VERSIONS, VillageConfig, external_versions
from bots.status_ping import ServedVersion, protocol_of, served_version, status_ping

log = logging.getLogger(__name__)

PING_WITHIN = 5.0  # seconds the status ping may take


def version_set_in(cfg: VillageConfig) -> bool:
    """The file set ``world.version`` (read before :func:`with_overrides`, which sets all)."""
    return "version" in cfg.world.model_fields_set


async def server_version(host: str, port: int, *, within: float = PING_WITHIN) -> ServedVersion:
    """Which Minecraft the server at ``host:port`` speaks; raises :class:`WorldError` (one line)
    when it cannot be reached or does not answer as a Minecraft server."""
    try:
        status = await status_ping(host, port, within=within)
    except (OSError, TimeoutError, asyncio.IncompleteReadError) as err:
        reason = str(err) or type(err).__name__
        raise WorldError(f"cannot reach the Minecraft server at {host}:{port}: {reason}") from None
    except ValueError as err:  # the ping's own protocol errors, a status that is not JSON
        raise WorldError(f"{host}:{port} did not answer as a Minecraft server: {err}") from None
    return served_version(status)


def settle_version(
    cfg: VillageConfig, file: Path | str, served: ServedVersion, *, version_set: bool
) -> VillageConfig:
    """``cfg`` with the version its bodies log in with on a server that speaks ``served``;
    raises :class:`WorldError` (one line, naming ``file`` and ``world.version``) when they
    cannot."""
    w = cfg.world
    where = f"the Minecraft server at {w.host}:{w.port} runs {served.shown}"
    if version_set:
        if served.protocol == protocol_of(w.version):
            return cfg
        raise WorldError(
            f"{file}: world.version is {w.version} but {where}: use a {w.version} server, "
            "or leave world.version unset to play at the server's version"
        )
    spoken = external_versions()
    if served.version is None or served.version not in spoken:
        raise WorldError(
            f"{file}: world.version is unset and {where}, which our bodies do not speak "
            f"({_unspoken(served)}; they speak {spoken[0]} to {spoken[-1]}: bots/README.md, "
            "Versions)"
        )
    if served.version not in SUPPORTED_VERSIONS:
        log.info(
            "the bodies speak the server's %s, which mineflayer lists as tested; our whole "
            "tests run at %s",
            served.version,
            ", ".join(SUPPORTED_VERSIONS),
        )
    if served.version != w.version:
        log.info("world.version unset: the bodies speak the server's %s", served.version)
        return with_overrides(cfg, {"world.version": served.version}, file)
    return cfg


def _unspoken(served: ServedVersion) -> str:
    """Why the bodies cannot log in at ``served``."""
    if served.protocol is None:
        return "its status answer names no protocol number"
    if served.version is None:
        return f"minecraft-data knows no release of protocol {served.protocol}"
    if served.version in mc_names.mineflayer_versions():
        return f"our bodies' code starts at {SUPPORTED_VERSIONS[0]}"
    return f"the bodies' mineflayer does not list {served.version} as tested"


def resolve_external_version(
    cfg: VillageConfig, file: Path | str, *, version_set: bool
) -> VillageConfig:
    """On an external (unsharded) world: :func:`settle_version` with the server's answer to a
    status ping; any other world: ``cfg`` as it is."""
    if cfg.world.kind != "external" or cfg.world.shards:
        return cfg
    try:
        served = asyncio.run(server_version(cfg.world.host, cfg.world.port))
    except WorldError as err:  # the village's own check says so, after writing its run folder
        log.info("the server's version is not known: %s", err)
        return cfg
    return settle_version(cfg, file, served, version_set=version_set)
