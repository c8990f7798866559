"""``tools/call`` served beside the SDK's dispatcher, on stdio: the hot path of every debugging step.

Layer: ``server``. Under the SDK, a request line read goes through a relay task (the SDK's era replay), the
dispatcher's loop and a task of its own with a per-request ``Connection`` and context before our handler
runs, and back through them after: about 0.6 ms of a warm tool call, a ninth of the warm journey
(``bench/journey.py``; issue 10). Here the line's reader hands a ``tools/call`` straight to a task of ours.

The SDK stays the authority on the protocol. Only a call it would serve as a plain call comes here: after
the connection's era is settled (its first request always goes to the SDK, which decides the era by it),
on a modern (2026-07-28) connection a request whose ``_meta`` envelope the SDK's own classifier accepts, on
a handshake-era connection one without an envelope once ``initialize`` was answered and
``notifications/initialized`` has come; its params must pass the SDK's own validation at that version.
Anything else — ``initialize``, ``tools/list``, a malformed or refused call — goes to the SDK, which answers
it as always. The answer is shaped as the SDK shapes a handler's result (``ServerRunner._serialize``: the
per-version sieve of ``mcp_types.methods``, ``resultType`` and the ``serverInfo`` stamp on a modern
connection; made once per version by the SDK's own code, each answer's text and structured content put in
its place) and written through the same stream; ``tests/unit/test_direct_calls.py`` compares it byte for
byte with the SDK's answer on both eras, so an SDK that changes its shaping fails there first. The
JSON-RPC rules the SDK's dispatcher keeps hold here too: a call the client cancelled
(``notifications/cancelled``) is interrupted and never answered; one still running when the input ends is
interrupted and answered ``Connection closed`` before the SDK closes the output.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import anyio
import mcp_types
import pydantic_core
import trio
from mcp.server.lowlevel import Server
from mcp.shared.dispatcher import coerce_request_id
from mcp.shared.inbound import InboundLadderRejection, classify_inbound_request
from mcp.shared.jsonrpc_dispatcher import cancelled_request_id_from_params, handler_exception_to_error_data
from mcp.shared.message import SessionMessage
from mcp_types import methods
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import ValidationError

if TYPE_CHECKING:  # the envelope comes with the engine, at the first call (app.Sessions)
    from .envelope import Answer

log = logging.getLogger("pyjdwp.server")

METHOD = "tools/call"
#: How long the answer to a call interrupted by the end of input may take to write (the SDK's bound).
CLOSING_WRITE_S = 1.0

#: A call's whole handling: the server's state (the lifespan's), the tool's name and arguments to the answer.
Handler = Callable[[Any, str, "dict[str, Any] | None"], Awaitable["Answer"]]


class Writer(Protocol):
    async def send(self, message: SessionMessage, /) -> None: ...

    async def send_line(self, line: bytes, /) -> None: ...


@dataclass
class _Call:
    scope: trio.CancelScope = field(default_factory=trio.CancelScope)
    cancelled_by_client: bool = False  # never answered
    closing: bool = False  # interrupted by the end of input: answered "Connection closed"


class DirectCalls:
    """The ``tools/call`` requests of one stdio connection that pyjdwp serves itself (module docstring).

    The reader offers every message (:meth:`take`) and the writer shows every message it sends
    (:meth:`sent`), in order, so that this follows the connection's era and handshake as the SDK does.
    Calls are served only between :meth:`serving` (entered by the server's lifespan, with its state)
    and the end of input (:meth:`end_of_input`), and only once :meth:`connect` gave the writer.
    """

    def __init__(self) -> None:
        self._server: Server[Any] | None = None
        self._handler: Handler | None = None
        self._writer: Writer | None = None
        self._state: Any = None
        self._nursery: trio.Nursery | None = None
        self._era: str | None = None  # "modern" or "handshake", from the connection's first request
        self._initialize_id: mcp_types.RequestId | None = None
        self._handshake_version: str | None = None  # what the SDK answered to initialize
        self._initialized = False
        self._calls: dict[mcp_types.RequestId, _Call] = {}
        self._shapes: dict[tuple[str, bool], dict[str, Any]] = {}
        self._idle = trio.Event()
        self._idle.set()

    def bind(self, server: Server[Any], handler: Handler) -> None:
        """Serve calls with ``handler`` for ``server``, if the SDK would do nothing more with their results:
        a middleware or a cache hint for ``tools/call`` would, so with either every call stays the SDK's."""
        if server.middleware or METHOD in server.cache_hints:
            log.info("tools/call stays with the SDK's dispatcher (middleware or cache hints are set)")
            return
        self._server, self._handler = server, handler

    def connect(self, writer: Writer) -> None:
        self._writer = writer

    @asynccontextmanager
    async def serving(self, state: Any) -> AsyncIterator[None]:
        """Serve calls with ``state`` until the context ends; calls still running then are cancelled."""
        async with trio.open_nursery() as nursery:
            self._state, self._nursery = state, nursery
            try:
                yield
            finally:
                self._nursery = None
                nursery.cancel_scope.cancel()

    # --- what the reader offers and the writer shows ---------------------------------------------------

    def take(self, message: mcp_types.JSONRPCMessage) -> bool:
        """Whether ``message`` is served here (a call, or the cancellation of one served here); if not, the
        reader hands it to the SDK."""
        if isinstance(message, mcp_types.JSONRPCNotification):
            return self._take_notification(message)
        if not isinstance(message, mcp_types.JSONRPCRequest):
            return False
        if self._era is None:  # the SDK decides the era by this request: it must see it
            modern = message.method != "initialize" and _has_envelope(message.params)
            self._era = "modern" if modern else "handshake"
            if message.method == "initialize":
                self._initialize_id = message.id
            return False
        if message.method == "initialize" and self._era == "handshake":
            self._initialize_id = message.id
            return False
        if message.method != METHOD or self._nursery is None or self._writer is None or self._handler is None:
            return False
        version = self._version_of(message.params)
        if version is None:
            return False
        try:
            methods.validate_client_request(METHOD, version, message.params)
            params = mcp_types.CallToolRequestParams.model_validate(message.params or {}, by_name=False)
        except (ValidationError, KeyError):
            return False  # the SDK answers it with the error it owns
        call = _Call()
        self._calls[coerce_request_id(message.id)] = call  # before the task starts: a cancellation finds it
        self._idle = trio.Event()
        self._nursery.start_soon(self._serve, message.id, version, params, call)
        return True

    def sent(self, message: mcp_types.JSONRPCMessage) -> None:
        """The handshake era's version is what the SDK answered to ``initialize``."""
        if (self._initialize_id is not None and isinstance(message, mcp_types.JSONRPCResponse)
                and message.id == self._initialize_id):
            version = message.result.get("protocolVersion")
            self._handshake_version = version if isinstance(version, str) else None

    async def end_of_input(self) -> None:
        """Interrupt the calls still running and wait until each is answered ``Connection closed`` (the
        SDK's dispatcher does so for its own before it closes the output)."""
        self._nursery = None
        for call in self._calls.values():
            call.closing = True
            call.scope.cancel()
        await self._idle.wait()

    def _take_notification(self, message: mcp_types.JSONRPCNotification) -> bool:
        if message.method == "notifications/initialized":
            self._initialized = True
        elif message.method == "notifications/cancelled":
            request_id = cancelled_request_id_from_params(message.params)
            call = self._calls.get(coerce_request_id(request_id)) if request_id is not None else None
            if call is not None:
                call.cancelled_by_client = True
                call.scope.cancel()
                return True
        return False

    def _version_of(self, params: Mapping[str, Any] | None) -> str | None:
        """The protocol version the SDK would serve this call at, or None if it would refuse it."""
        if self._era == "modern":
            route = classify_inbound_request({"method": METHOD, "params": params})
            return None if isinstance(route, InboundLadderRejection) else route.protocol_version
        if _has_envelope(params) or not self._initialized:
            return None  # refused on a handshake-era connection / not served yet
        return self._handshake_version

    # --- one call ----------------------------------------------------------------------------------------

    async def _serve(self, request_id: mcp_types.RequestId, version: str,
                     params: mcp_types.CallToolRequestParams, call: _Call) -> None:
        assert self._handler is not None
        answered = False
        try:
            with call.scope:
                try:
                    answer = await self._handler(self._state, params.name, params.arguments)
                finally:
                    self._forget(request_id, call)
            if call.cancelled_by_client:
                return
            if call.closing:
                answered = True
                await self._closing_answer(request_id)
                return
            line = self._line(request_id, version, answer)
            answered = True
            await self._write(line)
        except trio.Cancelled:  # the server is going down under the call: answer it if nothing was
            if not answered and not call.cancelled_by_client:
                await self._closing_answer(request_id)
            raise
        except Exception as exc:  # as the SDK's dispatcher: an unexpected failure is answered, not raised
            log.exception("tools/call failed")
            error = handler_exception_to_error_data(exc) or mcp_types.ErrorData(code=0, message=str(exc))
            if not answered and not call.cancelled_by_client:
                await self._write(mcp_types.JSONRPCError(jsonrpc="2.0", id=request_id, error=error))

    def _forget(self, request_id: mcp_types.RequestId, call: _Call) -> None:
        key = coerce_request_id(request_id)
        if self._calls.get(key) is call:
            del self._calls[key]
        if not self._calls:
            self._idle.set()

    def _line(self, request_id: mcp_types.RequestId, version: str, answer: Answer) -> bytes:
        """The answer's JSON-RPC line at ``version``, as the SDK writes a handler's result.

        The SDK validates the result against the version's result model and dumps what that keeps
        (``ServerRunner._serialize``); the result is one text block and the structured content, so its shape
        at a version depends on nothing but ``isError``. That shape is made once by the SDK's own code from
        an empty text and content (:meth:`_shape`), and each answer's two values go in its place: the line
        is then one pass of pydantic's serialiser, the one the SDK's writer uses.
        """
        shape = self._shapes.get((version, answer.is_error))
        if shape is None:
            shape = self._shapes[(version, answer.is_error)] = self._shape(version, answer.is_error)
        result = dict(shape)
        (block,) = shape["content"]  # the one text block (a version drops no content)
        result["content"] = [{**block, "text": answer.text}]
        if "structuredContent" in result:  # a version before structured content has none
            result["structuredContent"] = answer.body
        return pydantic_core.to_json({"jsonrpc": "2.0", "id": request_id, "result": result}) + b"\n"

    def _shape(self, version: str, is_error: bool) -> dict[str, Any]:
        """The wire form, at ``version``, of a result of an empty text and structured content, as
        ``ServerRunner._serialize`` makes it."""
        assert self._server is not None
        empty = mcp_types.CallToolResult(content=[mcp_types.TextContent(type="text", text="")],
                                         structured_content={}, is_error=is_error)
        shaped = methods.serialize_server_result(
            METHOD, version, empty.model_dump(by_alias=True, mode="json", exclude_none=True))
        if version in MODERN_PROTOCOL_VERSIONS:
            if shaped.get("resultType") is None:
                shaped["resultType"] = "complete"
            meta = shaped.get("_meta")
            if meta is None:
                shaped["_meta"] = {mcp_types.SERVER_INFO_META_KEY: self._server.server_info_stamp}
            elif isinstance(meta, dict) and meta.get(mcp_types.SERVER_INFO_META_KEY) is None:
                shaped["_meta"] = {**meta, mcp_types.SERVER_INFO_META_KEY: self._server.server_info_stamp}
        return shaped

    async def _closing_answer(self, request_id: mcp_types.RequestId) -> None:
        with trio.move_on_after(CLOSING_WRITE_S, shield=True):
            await self._write(_error(request_id, mcp_types.CONNECTION_CLOSED, "Connection closed"))

    async def _write(self, message: mcp_types.JSONRPCMessage | bytes) -> None:
        """A message, serialised by the writer as the SDK's messages are; or an answer's line (:meth:`_line`)."""
        assert self._writer is not None
        try:
            if isinstance(message, bytes):
                await self._writer.send_line(message)
            else:
                await self._writer.send(SessionMessage(message=message))
        except (anyio.BrokenResourceError, anyio.ClosedResourceError, trio.BrokenResourceError,
                trio.ClosedResourceError, OSError) as exc:
            log.debug("an answer to tools/call was dropped: the output is closed (%s)", type(exc).__name__)


def _error(request_id: mcp_types.RequestId, code: int, message: str) -> mcp_types.JSONRPCError:
    return mcp_types.JSONRPCError(jsonrpc="2.0", id=request_id, error=mcp_types.ErrorData(code=code, message=message))


def _has_envelope(params: Mapping[str, Any] | None) -> bool:
    """Whether a request carries the 2026-07-28 per-request envelope: the reserved protocol-version key in
    ``_meta`` is the SDK's sign (a bare ``_meta`` carries a progress token in the handshake era)."""
    meta = (params or {}).get("_meta")
    return isinstance(meta, Mapping) and mcp_types.PROTOCOL_VERSION_META_KEY in meta
