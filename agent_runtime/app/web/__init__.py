"""The village seen in a browser: a live page beside a running village, and replays.

Importing this package starts nothing and imports no web framework; the server side
(Starlette + uvicorn) is imported by the page's own process only.
"""

from agent_runtime.app.web.view import WebView

__all__ = ["WebView"]
