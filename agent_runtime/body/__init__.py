"""Bodies shipped with the runtime: :class:`NullBody` (no world) and :class:`FakeBody` (toy world for tests)."""

from agent_runtime.body.null import NullBody

__all__ = ["NullBody"]
