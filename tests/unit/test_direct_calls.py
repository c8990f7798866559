"""``tools/call`` served beside the SDK's dispatcher (``server.direct_calls``), compared with the SDK serving
the same lines: the whole server over real pipes, once with the direct calls and once without.

- the answers are byte for byte the SDK's (but the clock in ``captured_at_ms``), on a modern (2026-07-28)
  connection and on a handshake-era one, for a success, a failed envelope and an unknown tool;
- what the SDK must answer still goes to it: the connection's first request (it decides the era), a call
  before the handshake is complete, a call whose params or envelope the SDK refuses, ``initialize`` on a
  modern connection — with the SDK's own errors;
- a call the client cancels is never answered, and one still running when the input ends is answered
  ``Connection closed``, as the SDK's dispatcher does.
"""

from __future__ import annotations

import json
import os
import re
from typing import Any

import mcp_types
import trio
from mcp_types.version import LATEST_HANDSHAKE_VERSION, LATEST_MODERN_VERSION

from server.app import build_server
from server.direct_calls import DirectCalls
from server.stdio import FdWriter, PipeLines, wire
from server.targets import Config
from support.pipes import pipe

ENVELOPE = {"io.modelcontextprotocol/protocolVersion": LATEST_MODERN_VERSION,
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "1"}}
CAPABILITIES = ("get_debugger_capabilities", {"platform": "jvm", "address": "127.0.0.1:1"})
NOT_FOUND = ("get_debugger_state", {"debugSessionId": "nope"})
UNKNOWN = ("no_such_tool", {})
#: Text the answer echoes, beyond ASCII: JSON's escapes, a character outside the BMP, a line separator.
UNUSUAL = ("get_debugger_state", {"debugSessionId": 'n\u00e9-\u2028-\U0001f600-"q"-\\-\t'})


class CountedCalls(DirectCalls):
    """The direct calls, counting what they took (the test's only view inside)."""

    def __init__(self) -> None:
        super().__init__()
        self.taken: list[str] = []

    def take(self, message: mcp_types.JSONRPCMessage) -> bool:
        took = super().take(message)
        if took:
            self.taken.append(getattr(message, "method", "?"))
        return took


def line(value: dict[str, Any]) -> bytes:
    return json.dumps(value).encode() + b"\n"


def call(number: int | str, tool: tuple[str, dict[str, Any]], *, modern: bool) -> bytes:
    params: dict[str, Any] = {"name": tool[0], "arguments": tool[1]}
    if modern:
        params["_meta"] = ENVELOPE
    return line({"jsonrpc": "2.0", "id": number, "method": "tools/call", "params": params})


def handshake(number: int = 1) -> list[bytes]:
    return [line({"jsonrpc": "2.0", "id": number, "method": "initialize", "params": {
                 "protocolVersion": LATEST_HANDSHAKE_VERSION, "capabilities": {},
                 "clientInfo": {"name": "test", "version": "1"}}}),
            line({"jsonrpc": "2.0", "method": "notifications/initialized"})]


def discover(number: int = 1) -> bytes:
    """A modern connection's first request: the SDK's client opens with ``server/discover``."""
    return line({"jsonrpc": "2.0", "id": number, "method": "server/discover", "params": {"_meta": ENVELOPE}})


async def serve(lines: list[bytes], *, direct: bool, after: float = 0.0) -> tuple[list[str], list[str]]:
    """The server's output lines for ``lines`` (the input ends ``after`` seconds after they were written),
    and the methods the direct calls took."""
    calls = CountedCalls() if direct else None
    server = build_server(Config(), calls=calls)
    output = bytearray()
    with pipe() as (in_read, in_write), pipe() as (out_read, out_write):

        async def feed() -> None:
            os.write(in_write, b"".join(lines))
            await trio.sleep(after)
            os.close(in_write)

        async def drain() -> None:
            while True:
                await trio.lowlevel.wait_readable(out_read)
                chunk = os.read(out_read, 1 << 16)
                if not chunk:
                    return
                output.extend(chunk)

        with trio.fail_after(20):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(drain)
                nursery.start_soon(feed)
                out = FdWriter(os.dup(out_write))
                async with wire(PipeLines(os.dup(in_read)), out, calls) as (reader, writer):
                    await server.run(reader, writer, server.create_initialization_options())
                await out.aclose()
                os.close(out_write)
    return output.decode().splitlines(), calls.taken if calls else []


def steady(lines: list[str]) -> list[str]:
    """The lines without the one thing that differs between two runs: the clock."""
    return [re.sub(r'(\\?"captured_at_ms\\?":)\d+', r"\1 0", text) for text in lines]


def answers(lines: list[str]) -> dict[Any, dict[str, Any]]:
    return {(answer := json.loads(text))["id"]: answer for text in lines}


async def compare(lines: list[bytes], **kwargs: Any) -> tuple[list[str], list[str]]:
    sdk, _ = await serve(lines, direct=False, **kwargs)
    ours, taken = await serve(lines, direct=True, **kwargs)
    assert sorted(steady(ours)) == sorted(steady(sdk))  # two calls may be answered in either order
    return ours, taken


async def test_modern_answers_are_the_sdks_byte_for_byte() -> None:
    lines, taken = await compare([discover(), *(call(n, tool, modern=True)
                                                for n, tool in enumerate((CAPABILITIES, NOT_FOUND, UNKNOWN), 2)),
                                  call("id-\u00e9", UNUSUAL, modern=True)])
    assert taken == ["tools/call"] * 4
    got = answers(lines)
    assert "\U0001f600" in got["id-\u00e9"]["result"]["content"][0]["text"]  # echoed as the character
    assert got[2]["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "pyjdwp"
    assert got[2]["result"]["resultType"] == "complete" and got[2]["result"]["isError"] is False
    assert got[3]["result"]["structuredContent"]["error"]["code"] == "DEBUGGER_NOT_FOUND"


async def test_handshake_era_answers_are_the_sdks_byte_for_byte() -> None:
    lines, taken = await compare([*handshake(), *(call(n, tool, modern=False)
                                                  for n, tool in enumerate((CAPABILITIES, NOT_FOUND, UNKNOWN), 2)),
                                  call("id-\u00e9", UNUSUAL, modern=False)])
    assert taken == ["tools/call"] * 4
    got = answers(lines)
    assert "resultType" not in got[2]["result"] and "_meta" not in got[2]["result"]  # 2025-era shape
    assert got[4]["result"]["structuredContent"]["error"]["code"] == "INVALID_ARGUMENT"


async def test_what_the_sdk_must_answer_goes_to_it() -> None:
    # A call as the connection's first request decides the era (the SDK's to see); before the handshake is
    # complete, and with the other era's envelope, the SDK answers it (or refuses it) as always.
    lines, taken = await compare([call(1, NOT_FOUND, modern=False),
                                  line({"jsonrpc": "2.0", "id": 2, "method": "initialize", "params": {
                                      "protocolVersion": LATEST_HANDSHAKE_VERSION, "capabilities": {},
                                      "clientInfo": {"name": "test", "version": "1"}}}),
                                  call(3, NOT_FOUND, modern=False),
                                  line({"jsonrpc": "2.0", "method": "notifications/initialized"}),
                                  call(4, NOT_FOUND, modern=True),
                                  call(5, NOT_FOUND, modern=False)])
    assert taken == ["tools/call"]  # only the last one
    got = answers(lines)
    assert got[1]["error"]["code"] == mcp_types.INVALID_PARAMS  # not initialized yet
    assert got[4]["error"]["code"] == mcp_types.INVALID_REQUEST  # an envelope on a handshake-era connection
    assert got[5]["result"]["structuredContent"]["error"]["code"] == "DEBUGGER_NOT_FOUND"


async def test_refused_params_and_envelopes_are_the_sdks_to_answer() -> None:
    bad_version = {**ENVELOPE, "io.modelcontextprotocol/protocolVersion": "1999-01-01"}
    lines, taken = await compare([
        discover(),
        line({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"arguments": {}, "_meta": ENVELOPE}}),
        line({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "get_debugger_capabilities",
                                                                            "_meta": bad_version}}),
        line({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "get_debugger_capabilities"}}),
        *handshake(5)])
    assert taken == []
    got = answers(lines)
    assert got[2]["error"]["code"] == mcp_types.INVALID_PARAMS  # no tool name
    assert got[3]["error"]["code"] == mcp_types.UNSUPPORTED_PROTOCOL_VERSION
    assert got[4]["error"]["code"] == mcp_types.INVALID_PARAMS  # no envelope on a modern connection
    assert got[5]["error"]["code"] == mcp_types.UNSUPPORTED_PROTOCOL_VERSION  # initialize on a modern one


async def silent_vm() -> tuple[trio.SocketListener, str]:
    """A listener that never answers the JDWP handshake: an attach to it waits for its own timeout."""
    [listener] = await trio.open_tcp_listeners(0, host="127.0.0.1")
    host, port = listener.socket.getsockname()[:2]
    return listener, f"{host}:{port}"


def attach(number: int, address: str) -> bytes:
    return call(number, ("attach_debugger", {"platform": "jvm", "address": address, "timeoutMs": 15_000}),
                modern=True)


async def test_a_call_the_client_cancels_is_never_answered() -> None:
    listener, address = await silent_vm()
    with listener.socket:
        cancel = line({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2}})
        lines, taken = await compare([discover(), attach(2, address), cancel, call(3, NOT_FOUND, modern=True)],
                                     after=0.5)
    assert taken == ["tools/call", "notifications/cancelled", "tools/call"]
    assert sorted(answers(lines)) == [1, 3]


async def test_a_call_running_when_the_input_ends_is_answered_connection_closed() -> None:
    listener, address = await silent_vm()
    with listener.socket:
        lines, taken = await compare([discover(), attach(2, address)], after=0.5)
    assert taken == ["tools/call"]
    closed = answers(lines)[2]["error"]
    assert closed == {"code": mcp_types.CONNECTION_CLOSED, "message": "Connection closed"}
