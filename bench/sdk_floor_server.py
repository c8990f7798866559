"""The smallest MCP server the SDK makes: one tool that returns a constant envelope, nothing else.

Run by ``bench/journey.py`` (way ``mcp floor``) over stdio, on the streams ``pyjdwp-mcp`` serves
(:mod:`pyjdwp_server.transport.stdio`: the SDK's stdio transport, stdin read by trio), to measure what a tool call costs
before any debugging: the SDK's client and server machinery, JSON-RPC framing, the output schema's validation in the
client and two pipe hops. The journey's seven calls on this server are what the SDK alone costs them.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))  # a checkout runs without installing

from pyjdwp_server.transport.stdio import stdin_lines, wire

#: The envelope of a small answer (a resume's): the size of what the journey's calls return, roughly.
ANSWER = ('{"success":true,"debug_session_id":"dbg-0","device":"127.0.0.1:5005","target":{"platform":"jvm"},'
          '"state":"running","captured_at_ms":0,"capabilities":{"profile":"jvm"},"limitations":[],"cleanup":null,'
          '"result":{"note":null}}')
STRUCTURED = json.loads(ANSWER)
SCHEMA = {"type": "object", "properties": {"success": {"type": "boolean"}}, "required": ["success"]}


async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
    return types.ListToolsResult(tools=[types.Tool(name="constant", description="answers a constant envelope",
                                                   input_schema={"type": "object"}, output_schema=SCHEMA)])


async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=ANSWER)],
                                structured_content=STRUCTURED)


async def main() -> None:
    server: Server[Any] = Server("sdk-floor", on_list_tools=list_tools, on_call_tool=call_tool)
    server.middleware.clear()  # as pyjdwp-mcp does (app.py): no tracing spans
    async with wire(stdin_lines()) as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main, backend="trio")
