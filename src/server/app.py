"""The MCP server: the official SDK's low-level ``Server`` with the eleven tools, under trio.

Layer: ``server`` — the only layer that knows MCP. DESIGN.md §5.

Every call: validate the input with its pydantic model (unknown fields rejected), run the handler under
the call's ``timeoutMs``, and answer with the envelope — as JSON text in the first content block and the
same object as structured content, ``isError`` on failure. A timeout or cancellation of a call that
changes what the VM does (attach, step, resume) leaves its outcome unknown, so the session is torn down;
of an inspection or a wait, it changes nothing.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import mcp_types as types
import trio
from mcp.server.lowlevel import Server
from pydantic import ValidationError

from .capabilities import CAPABILITIES, LIMITATIONS
from .envelope import SessionFields, ToolFailure, envelope, failure_of
from .session import DebugSession
from .sessions import SessionManager
from .targets import Config
from .tools import BY_NAME, TOOLS, Call, Tool

log = logging.getLogger("pyjdwp.server")

VERSION = "0.1.0"
INSTRUCTIONS = (
    "Debug a running Java/Kotlin app on an Android device (over adb) or any JVM listening for a debugger, "
    "with no JDK needed. Typical flow: get_debugger_capabilities → attach_debugger → set_debugger_breakpoint → "
    "wait_for_debugger_event (repeat with next_cursor until a stopped event) → get_debugger_stack → "
    "get_debugger_locals → step_debugger or resume_debugger → detach_debugger. A stop suspends the whole app: "
    "resume or detach promptly."
)

def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    # anyOf rather than a list of types: some MCP clients only understand one type per schema.
    return {"anyOf": [schema, {"type": "null"}]}


ENVELOPE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "success": {"type": "boolean"},
        "debug_session_id": _nullable({"type": "string"}),
        "device": _nullable({"type": "string"}),
        "target": _nullable({"type": "object"}),
        "state": _nullable({"type": "string", "enum": ["attaching", "running", "paused", "detaching", "detached",
                                                      "disconnected", "failed"]}),
        "captured_at_ms": {"type": "integer"},
        "capabilities": _nullable({"type": "object"}),
        "limitations": _nullable({"type": "array", "items": {"type": "string"}}),
        "cleanup": _nullable({"type": "object"}),
        "result": {"type": "object"},
        "events": {"type": "array", "items": {"type": "object"}},
        "next_cursor": {"type": "integer"},
        "overflow": {"type": "boolean"},
        "timed_out": {"type": "boolean"},
        "error": {"type": "object", "properties": {"code": {"type": "string"}, "message": {"type": "string"},
                                                   "retryable": {"type": "boolean"}},
                  "required": ["code", "message", "retryable"]},
    },
    "required": ["success", "debug_session_id", "device", "target", "state", "captured_at_ms", "capabilities",
                 "limitations", "cleanup"],
}


def tool_definition(tool: Tool) -> types.Tool:
    schema = tool.model.model_json_schema()
    schema.pop("title", None)
    return types.Tool(
        name=tool.name,
        title=tool.title,
        description=tool.description,
        input_schema=schema,
        output_schema=ENVELOPE_SCHEMA,
        annotations=types.ToolAnnotations(title=tool.title, read_only_hint=tool.read_only,
                                          destructive_hint=tool.destructive, idempotent_hint=tool.read_only,
                                          open_world_hint=False),
    )


def session_fields(session: DebugSession | None) -> SessionFields:
    if session is None:
        return SessionFields()
    return SessionFields(session.id, session.device, session.target, session.state, CAPABILITIES, LIMITATIONS,
                         session.cleanup)


def _json(value: Any) -> str:
    """``value`` as the JSON text a transport writes; raises where the SDK's serialisation would fail
    later, out of our hands (a lone surrogate, an object that is not a JSON value, NaN)."""
    text = json.dumps(value, ensure_ascii=False, allow_nan=False)
    text.encode("utf-8")
    return text


def respond(body: dict[str, Any]) -> types.CallToolResult:
    """The MCP result of an envelope: its JSON text, and the same object as structured content.

    The SDK serialises the result after this returns; a failure there would answer a bare JSON-RPC error
    (or, on stdio, end the server). So the body is serialised here first, and one that cannot be is
    answered as DEBUGGER_WORKER_FAILED in an envelope, keeping the session fields that do serialise.
    """
    try:
        text = _json(body)
    except (TypeError, ValueError, RecursionError) as exc:  # UnicodeEncodeError is a ValueError
        log.error("an answer could not be serialised", exc_info=exc)
        fields = {}
        for name in ("debug_session_id", "device", "target", "state", "capabilities", "limitations", "cleanup"):
            try:
                _json(body.get(name))
                fields[name] = body.get(name)
            except (TypeError, ValueError, RecursionError):
                fields[name] = None
        body = envelope(SessionFields(**fields), error=ToolFailure(
            "DEBUGGER_WORKER_FAILED", f"internal error: the answer could not be written as JSON "
                                      f"({type(exc).__name__}); see the server's log"))
        text = _json(body)
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)],
                                structured_content=body, is_error=not body["success"])


async def call_tool(manager: SessionManager, name: str, arguments: dict[str, Any] | None) -> dict[str, Any]:
    """Run one tool call to its envelope (the whole behaviour of the server, without MCP framing).

    Every exception becomes an envelope, including one raised after the handler (building the answer,
    tearing an uncertain session down); only cancellation propagates.
    """
    try:
        return await _call_tool(manager, name, arguments)
    except Exception as exc:
        return envelope(SessionFields(), error=failure_of(exc))


async def _call_tool(manager: SessionManager, name: str, arguments: dict[str, Any] | None) -> dict[str, Any]:
    tool = BY_NAME.get(name)
    if tool is None:
        return envelope(SessionFields(), error=ToolFailure("INVALID_ARGUMENT", f"unknown tool {name!r}"))
    try:
        parsed: Any = tool.model.model_validate(arguments or {})
    except ValidationError as exc:
        return envelope(SessionFields(), error=failure_of(exc))
    call = Call(manager, parsed)
    finished = False
    try:
        if tool.waits:
            result = await tool.handler(call)
        else:
            with trio.fail_after(parsed.timeoutMs / 1000):
                result = await tool.handler(call)
        finished = True
    except BaseException as exc:
        if tool.uncertain_on_interrupt and not finished:
            _tear_down_uncertain(manager, call, exc)
        if isinstance(exc, trio.Cancelled | KeyboardInterrupt | SystemExit):
            raise
        if not isinstance(exc, Exception):
            raise
        failure = failure_of(exc)
        if isinstance(exc, trio.TooSlowError):
            failure = ToolFailure("DEBUGGER_TIMEOUT", f"{tool.name} did not finish within {parsed.timeoutMs} ms" +
                                  ("; its outcome is unknown, so the session was detached"
                                   if tool.uncertain_on_interrupt else "; nothing was changed"),
                                  retryable=not tool.uncertain_on_interrupt)
        log.info("%s failed: %s", tool.name, failure.code)
        return envelope(session_fields(call.session), error=failure)
    session = call.session
    if session is not None and session.engine is not None and session.engine.uncertain:
        _tear_down_uncertain(manager, call, None)
    log.info("%s ok", tool.name)
    return envelope(session_fields(session), result=result, extra=call.extra)


def _tear_down_uncertain(manager: SessionManager, call: Call, exc: BaseException | None) -> None:
    """A step, resume or attach whose outcome is unknown: detach that session (never retry it)."""
    session = call.session
    if session is None or session.is_terminal:
        return
    if exc is not None and not isinstance(exc, trio.Cancelled | trio.TooSlowError):
        engine = session.engine
        if engine is None or not engine.uncertain:
            return  # a clean failure (stale ID, not paused…): nothing was changed
    log.warning("session %s: outcome of a state change is unknown; detaching", session.id)
    manager.spawn(session.close, "failed")


def build_server(config: Config, *, adb: Any = None) -> Server[SessionManager]:
    """The MCP server; its lifespan owns the session manager and cleans every session up on exit."""

    @asynccontextmanager
    async def lifespan(_: Server[SessionManager]) -> AsyncIterator[SessionManager]:
        async with trio.open_nursery() as nursery:
            manager = SessionManager(config, nursery, adb)
            try:
                yield manager
            finally:
                await manager.shutdown()
                nursery.cancel_scope.cancel()

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[tool_definition(t) for t in TOOLS])

    async def handle_call(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        return respond(await call_tool(ctx.lifespan_context, params.name, params.arguments))

    return Server("pyjdwp", version=VERSION, title="pyjdwp Java debugger", instructions=INSTRUCTIONS,
                  lifespan=lifespan, on_list_tools=list_tools, on_call_tool=handle_call)
