"""The MCP server: the official SDK's low-level ``Server`` with the debugger tools, under trio.

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

from .capabilities import VERSION, capabilities_for
from .debug_session import DebugSession
from .direct_calls import DirectCalls
from .envelope import Answer, SessionFields, envelope, output_schema
from .failures import ErrorBody, ToolFailure, failure_of
from .session_manager import SessionManager
from .targets import Config
from .tools import BY_NAME, Call, Tool

log = logging.getLogger("pyjdwp.server")

INSTRUCTIONS = (
    "Debug a running Java/Kotlin app on an Android device (over adb) or any JVM listening for a debugger, "
    "with no JDK needed. Typical flow: get_debugger_capabilities → attach_debugger → set_debugger_breakpoint → "
    "wait_for_debugger_event (repeat with next_cursor until a stopped event) → get_debugger_stack → "
    "get_debugger_locals → step_debugger or resume_debugger → detach_debugger. A stop suspends the whole app: "
    "resume or detach promptly."
)


def tool_definition(tool: Tool) -> types.Tool:
    schema = tool.model.model_json_schema()
    schema.pop("title", None)
    return types.Tool(
        name=tool.name,
        title=tool.title,
        description=tool.description,
        input_schema=schema,
        output_schema=output_schema(tool.result),
        annotations=types.ToolAnnotations(title=tool.title, read_only_hint=tool.read_only,
                                          destructive_hint=tool.destructive, idempotent_hint=tool.idempotent,
                                          open_world_hint=False),
    )


def session_fields(session: DebugSession | None, *, full: bool) -> SessionFields:
    """The envelope's session fields. Capabilities, limitations and the target's facts go out in full only
    where ``full`` (attach, get_debugger_capabilities): elsewhere by their profile, codes and identity,
    since every response repeats them and tokens are an agent's cost."""
    if session is None:
        return SessionFields()
    target = session.target
    capabilities, texts, codes = capabilities_for(session.config.allow_invoke, target.platform if target else None)
    own = session.facts.limitations  # this target's: a release build, a non-debuggable app
    if full:
        return SessionFields(session.id, session.device, target, session.state, capabilities,
                             texts + tuple(x.text for x in own), session.cleanup)
    return SessionFields(session.id, session.device, target.compact() if target else None, session.state,
                         capabilities.compact(), codes + tuple(x.code for x in own), session.cleanup)


def _json(value: Any) -> str:
    """``value`` as the JSON text a transport writes, without the padding spaces (an agent pays for every
    byte); raises where the SDK's serialisation would fail later, out of our hands (a lone surrogate, an
    object that is not a JSON value, NaN)."""
    text = json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    text.encode("utf-8")
    return text


def answer_of(body: dict[str, Any]) -> Answer:
    """An envelope with its JSON text.

    The SDK serialises a result after the handler returns; a failure there would answer a bare JSON-RPC
    error (or, on stdio, end the server). So the body is serialised here first, and one that cannot be is
    answered as DEBUGGER_WORKER_FAILED in an envelope that keeps only the session's id and state.
    """
    try:
        return Answer(body, _json(body))
    except (TypeError, ValueError, RecursionError) as exc:  # UnicodeEncodeError is a ValueError
        log.error("an answer could not be serialised", exc_info=exc)
        fields = SessionFields(_plain_text(body.get("debug_session_id")), _plain_text(body.get("device")),
                               state=body.get("state") if isinstance(body.get("state"), str) else None)
        body = envelope(fields, error=ErrorBody(
            "DEBUGGER_WORKER_FAILED", f"internal error: the answer could not be written as JSON "
                                      f"({type(exc).__name__}); see the server's log", False))
        return Answer(body, _json(body))


def respond(answer: Answer) -> types.CallToolResult:
    """The MCP result of an answer: its JSON text, and the same object as structured content."""
    return types.CallToolResult(content=[types.TextContent(type="text", text=answer.text)],
                                structured_content=answer.body, is_error=answer.is_error)


def _plain_text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


async def answer(manager: SessionManager, name: str, arguments: dict[str, Any] | None) -> Answer:
    """A ``tools/call`` request's answer, whichever dispatcher got it (the SDK's, or :mod:`.direct_calls`)."""
    return answer_of(await call_tool(manager, name, arguments))


async def call_tool(manager: SessionManager, name: str, arguments: dict[str, Any] | None) -> dict[str, Any]:
    """Run one tool call to its envelope (the whole behaviour of the server, without MCP framing).

    Every exception becomes an envelope, including one raised after the handler (building the answer,
    tearing an uncertain session down); only cancellation propagates.
    """
    try:
        return await _call_tool(manager, name, arguments)
    except Exception as exc:
        return envelope(SessionFields(), error=failure_of(exc).body())


async def _call_tool(manager: SessionManager, name: str, arguments: dict[str, Any] | None) -> dict[str, Any]:
    tool = BY_NAME.get(name)
    if tool is None:
        return envelope(SessionFields(), error=ErrorBody("INVALID_ARGUMENT", f"unknown tool {name!r}", False))
    try:
        parsed: Any = tool.model.model_validate(arguments or {})
    except ValidationError as exc:
        return envelope(SessionFields(), error=failure_of(exc).body())
    call = Call(manager, parsed)
    try:
        if tool.waits:
            result = await tool.handler(call)
        else:
            with trio.fail_after(parsed.timeoutMs / 1000):
                result = await tool.handler(call)
    except BaseException as exc:
        if tool.uncertain_on_interrupt:
            _tear_down_uncertain(manager, call, exc)
        if not isinstance(exc, Exception):  # a cancellation, KeyboardInterrupt or SystemExit goes on up
            raise
        failure = failure_of(exc)
        if isinstance(exc, trio.TooSlowError):
            failure = ToolFailure("DEBUGGER_TIMEOUT", f"{tool.name} did not finish within {parsed.timeoutMs} ms" +
                                  ("; its outcome is unknown, so the session was detached"
                                   if tool.uncertain_on_interrupt else "; nothing was changed"),
                                  retryable=not tool.uncertain_on_interrupt)
        log.info("%s failed: %s", tool.name, failure.code)
        return envelope(session_fields(call.session, full=tool.full_envelope), error=failure.body())
    session = call.session
    if session is not None and session.engine is not None and session.engine.uncertain:
        _tear_down_uncertain(manager, call, None)
    log.info("%s ok", tool.name)
    return envelope(session_fields(session, full=tool.full_envelope), result=result)


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


def build_server(config: Config, *, adb: Any = None, calls: DirectCalls | None = None) -> Server[SessionManager]:
    """The MCP server; its lifespan owns the session manager and cleans every session up on exit.

    ``calls``: the stdio connection's tool calls served beside the SDK's dispatcher (:mod:`.direct_calls`;
    the same handling, fewer task hops); without it, the SDK dispatches every call.
    """

    @asynccontextmanager
    async def lifespan(_: Server[SessionManager]) -> AsyncIterator[SessionManager]:
        async with trio.open_nursery() as nursery:
            manager = SessionManager(config, nursery, adb)
            try:
                if calls is None:
                    yield manager
                else:
                    async with calls.serving(manager):  # its calls end before the sessions are cleaned up
                        yield manager
            finally:
                await manager.shutdown()
                nursery.cancel_scope.cancel()

    definitions = [tool_definition(t) for t in BY_NAME.values()]  # schemas derived once per server

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=definitions)

    async def handle_call(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        return respond(await answer(ctx.lifespan_context, params.name, params.arguments))

    server: Server[SessionManager] = Server(
        "pyjdwp", version=VERSION, title="pyjdwp Java debugger", instructions=INSTRUCTIONS, lifespan=lifespan,
        on_list_tools=list_tools, on_call_tool=handle_call)
    # The SDK wraps every message in an OpenTelemetry span by default (its documented opt-out is to empty
    # this list). Nothing in pyjdwp-mcp installs an exporter, so the spans go nowhere, yet they cost about
    # 0.13 ms of a warm tool call that takes 0.4-0.6 ms in memory (issue 10: the warm journey).
    server.middleware.clear()
    if calls is not None:
        calls.bind(server, answer)
    return server
