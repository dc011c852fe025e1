"""Bot transports: how Python drives the mineflayer bodies in ``bots/body/``.

Public API: :class:`JSPyBridgeTransport` (a :class:`agent_runtime.interfaces.BotTransport`)
and the :class:`MineflayerBody` it creates, plus the exception tree in
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
from bots.transport._jspybridge import BODY_DIR, JSPyBridgeTransport

__all__ = [
    "BODY_DIR",
    "BodyClosedError",
    "BodyConnectError",
    "BodyError",
    "BridgeCallError",
    "JSPyBridgeTransport",
    "MineflayerBody",
]
