"""Bot transports: how Python drives the mineflayer bodies in ``bots/body/``.

Public API: :class:`JSPyBridgeTransport` (the mandated one) and
:class:`StdioTransport` (JSON lines to a Node sidecar), both
:class:`agent_runtime.interfaces.BotTransport` s sharing :class:`HostTransport`;
the :class:`MineflayerBody` they create; the exception tree in
:mod:`bots.transport._errors`. May import :mod:`agent_runtime.interfaces`,
:mod:`agent_runtime.world`, :mod:`bots.node` and :mod:`bots.names`; nothing
here does I/O at import time (JSPyBridge is imported lazily, because importing
it starts Node).
"""

from bots.transport._body import MineflayerBody
from bots.transport._errors import (
    BodyClosedError,
    BodyConnectError,
    BodyError,
    BridgeCallError,
)
from bots.transport._host import BODY_DIR, HostTransport
from bots.transport._jspybridge import JSPyBridgeTransport
from bots.transport._stdio import StdioTransport

__all__ = [
    "BODY_DIR",
    "BodyClosedError",
    "BodyConnectError",
    "BodyError",
    "BridgeCallError",
    "HostTransport",
    "JSPyBridgeTransport",
    "MineflayerBody",
    "StdioTransport",
]
