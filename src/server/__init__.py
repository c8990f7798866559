"""``server``: pyjdwp's MCP server (``pyjdwp-mcp``) — the debugger tools over the official SDK.

Layer: the top; the only package that knows MCP. It drives ``jdwp.debugger`` and ``android`` and never
touches ``jdwp.protocol``. Contract: docs/design.md §5.
"""

from .app import build_server
from .session.config import Config

__all__ = ["Config", "build_server"]  # the server to run (pyjdwp-mcp, or in memory), and its flags
