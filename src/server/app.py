"""The MCP server: the official SDK's low-level ``Server`` with the debugger tools, under trio.

Layer: ``server`` — the only layer that knows MCP. docs/design.md §5.

Every call is handled by :mod:`.handling` (input validated, handler under its deadline, the envelope), and
answered as JSON text in the first content block and the same object as structured content, ``isError``
on failure. ``initialize`` and ``tools/list`` need neither the engine nor ``android``, and every MCP client
starts its servers when it starts: so this module imports neither, ``tools/list`` is read from a file
(:mod:`.tool_list`), and the session manager, with the engine, comes at the first tool call (docs/design.md
§5.9: the start; ``tests/unit/test_startup_imports.py``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

import mcp_types as types
import trio
from mcp.server.lowlevel import Server

from .answers.tool_list import listed_tools
from .prompts import get_prompt, listed_prompts
from .session.config import VERSION, Config

if TYPE_CHECKING:
    from .answers.envelope import Answer
    from .session.manager import SessionManager

#: What every tool shares, said once here rather than in each definition (docs/design.md §5.8: the definitions a
#: model carries every turn are ≤ 12 KB); docs/tools.md has every tool in full.
INSTRUCTIONS = (
    "Debug a running Java/Kotlin app on Android (adb) or any JVM with a JDWP agent; no JDK needed. Fewest "
    "calls: attach_debugger → set_debugger_breakpoint or set_debugger_exception_breakpoint with capture "
    "{locals: true, expressions: [...]} → wait_for_debugger_event with until: stopped (the stop brings frame "
    "0's frame_id, frames, locals and values) → detach_debugger; a freeze: attach_debugger → pause_debugger "
    "(threads, monitors, deadlocks) → detach_debugger. The prompts debug_crash, debug_wrong_value and "
    "debug_freeze spell these out. A target is {platform: android, deviceId (adb serial), appId (package), "
    "processId? (if several)} or {platform: jvm, address: host:port} (loopback). capture (breakpoints, steps, "
    "resume) is {stack: frames 0-20 (default 1), locals: true, expressions: [<=10]}, read as the stop is made. "
    "Inputs: camelCase, unknown fields rejected; a field without a type is a string (1-512 chars); integers "
    ">= 0 (one over its limit is refused, naming the limit); a field left out is false, 0, none or its enum's "
    "first value unless the schema gives a default; debugSessionId is attach's debug_session_id; every tool "
    "takes timeoutMs 100-30000 (default 10000; attach up to 120000), its deadline. Answers: {success, "
    "debug_session_id, device, target, state, captured_at_ms, capabilities, limitations, cleanup} with result, "
    "or error {code, message, retryable}. A "
    "stop suspends every thread (a breakpoint with suspend: thread holds only its own) until resume, step or "
    "detach, which expire its stop, thread and frame IDs (DEBUGGER_STALE_REFERENCE); resume or detach "
    "promptly: a stop left alone detaches after the pause limit. Values are read without running app code "
    "(method calls only with --allow-invoke); strings are cut at 256 chars (length tells the full size). "
    "Every tool in full: docs/tools.md."
)


class Sessions:
    """The server's state (its lifespan's): the session manager, made at the first tool call.

    Until then nothing of the engine or ``android`` is imported; a server that is only started and listed
    (an MCP client's start) never imports them.
    """

    def __init__(self, config: Config, nursery: trio.Nursery, adb: Any) -> None:
        self._config = config
        self._nursery = nursery
        self._adb = adb
        self._manager: SessionManager | None = None
        self._call: Callable[[SessionManager, str, dict[str, Any] | None], Awaitable[dict[str, Any]]] | None = None
        self._written: Callable[[dict[str, Any]], Answer] | None = None

    async def answer(self, name: str, arguments: dict[str, Any] | None) -> Answer:
        """A ``tools/call`` request's answer."""
        if self._manager is None or self._call is None or self._written is None:
            from .session.manager import SessionManager
            from .transport import handling  # the engine, android and the tool table: at the first call

            self._manager = SessionManager(self._config, self._nursery, self._adb)
            self._call, self._written = handling.call_tool, handling.answer_of
        return self._written(await self._call(self._manager, name, arguments))

    async def shutdown(self) -> None:
        """Detach every session (each within its cleanup deadline)."""
        if self._manager is not None:
            await self._manager.shutdown()


def respond(answer: Answer) -> types.CallToolResult:
    """The MCP result of an answer: its JSON text, and the same object as structured content."""
    return types.CallToolResult(content=[types.TextContent(type="text", text=answer.text)],
                                structured_content=answer.body, is_error=answer.is_error)


def build_server(config: Config, *, adb: Any = None) -> Server[Sessions]:
    """The MCP server; its lifespan owns the session manager and cleans every session up on exit."""

    @asynccontextmanager
    async def lifespan(_: Server[Sessions]) -> AsyncIterator[Sessions]:
        async with trio.open_nursery() as nursery:
            sessions = Sessions(config, nursery, adb)
            try:
                yield sessions
            finally:
                await sessions.shutdown()
                nursery.cancel_scope.cancel()

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=list(listed_tools()))

    async def handle_call(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        return respond(await ctx.lifespan_context.answer(params.name, params.arguments))

    async def list_prompts(ctx: Any, params: Any) -> types.ListPromptsResult:
        return types.ListPromptsResult(prompts=listed_prompts())

    async def handle_prompt(ctx: Any, params: types.GetPromptRequestParams) -> types.GetPromptResult:
        return get_prompt(params.name, params.arguments)

    server: Server[Sessions] = Server(
        "pyjdwp", version=VERSION, title="pyjdwp Java debugger", instructions=INSTRUCTIONS, lifespan=lifespan,
        on_list_tools=list_tools, on_call_tool=handle_call, on_list_prompts=list_prompts,
        on_get_prompt=handle_prompt)
    # The SDK wraps every message in an OpenTelemetry span by default (its documented opt-out is to empty
    # this list). Nothing in pyjdwp-mcp installs an exporter, so the spans go nowhere, yet they cost about
    # 0.13 ms of a warm tool call that takes 0.4-0.6 ms in memory (issue 10: the warm journey).
    server.middleware.clear()
    return server
