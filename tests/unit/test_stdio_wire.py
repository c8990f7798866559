"""The server over the SDK's stdio transport with stdin read by trio (``pyjdwp_server.transport.stdio``), over real
pipes: initialize, a garbled line (dropped, as by the SDK's transport), a tool call — answered in order; a stopped
input ends as at EOF; a call the client cancels is never answered, and one still running when the input ends
is answered ``Connection closed`` (the SDK's dispatcher, as it ships).
"""

from __future__ import annotations

import json
import os

import anyio
import mcp_types
import trio
import trio.testing
from mcp_types.version import LATEST_HANDSHAKE_VERSION, LATEST_MODERN_VERSION

from pyjdwp_server.app import build_server
from pyjdwp_server.session.targets import Config
from pyjdwp_server.transport.stdio import PipeLines, wire
from support.pipes import pipe


def request(number: int, method: str, params: dict[str, object]) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": number, "method": method, "params": params}).encode() + b"\n"


async def test_the_server_answers_every_line_in_order_over_pipes() -> None:
    server = build_server(Config())
    with pipe() as (in_read, in_write), pipe() as (out_read, out_write):
        os.write(in_write, request(1, "initialize", {
            "protocolVersion": LATEST_HANDSHAKE_VERSION, "capabilities": {},
            "clientInfo": {"name": "test", "version": "1"}}))
        os.write(in_write, b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n{garbled\n')
        os.write(in_write, request(2, "tools/call", {"name": "get_debugger_state", "arguments": {
            "debugSessionId": "nope"}}))
        out = anyio.wrap_file(os.fdopen(os.dup(out_write), "w", encoding="utf-8"))
        received = bytearray()

        async def read_two_answers_then_end_the_input() -> None:
            while received.count(b"\n") < 2:
                await trio.lowlevel.wait_readable(out_read)
                received.extend(os.read(out_read, 1 << 20))
            os.close(in_write)  # a client that ends its input gives up the calls still running

        with trio.fail_after(10):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(read_two_answers_then_end_the_input)
                async with wire(PipeLines(os.dup(in_read)), out) as (reader, writer):
                    await server.run(reader, writer, server.create_initialization_options())
            await out.aclose()
        lines = received.decode().splitlines()
    answers = [json.loads(line) for line in lines]
    assert [answer["id"] for answer in answers] == [1, 2]  # the garbled line is dropped, as by the SDK's
    assert "serverInfo" in answers[0]["result"]  # own transport, and the server serves on
    body = answers[1]["result"]["structuredContent"]
    assert body["success"] is False and body["error"]["code"] == "DEBUGGER_NOT_FOUND"


async def test_a_stopped_input_ends_as_at_eof() -> None:
    """SIGTERM stops stdin (``cli.serve``): a read waiting for a line ends, and the server shuts down as at EOF."""
    with pipe() as (read_fd, write_fd):
        lines = PipeLines(os.dup(read_fd))
        os.write(write_fd, b'{"jsonrpc":"2.0","method":"ping","id":1}\n')
        assert await lines.__anext__() == '{"jsonrpc":"2.0","method":"ping","id":1}\n'
        ended: list[bool] = []

        async def read_on() -> None:
            try:
                await lines.__anext__()
            except StopAsyncIteration:
                ended.append(True)

        with trio.fail_after(5):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(read_on)
                await trio.testing.wait_all_tasks_blocked()
                lines.stop()
    assert ended == [True] and lines.ended


ENVELOPE = {"io.modelcontextprotocol/protocolVersion": LATEST_MODERN_VERSION,
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "1"}}


def modern(number: int, method: str, params: dict[str, object]) -> bytes:
    return request(number, method, {**params, "_meta": ENVELOPE})


async def serve(lines: list[bytes], after: float) -> dict[object, dict[str, object]]:
    """The server's answers by id to ``lines``; its input ends ``after`` seconds after they were written."""
    server = build_server(Config())
    output = bytearray()
    with pipe() as (in_read, in_write), pipe() as (out_read, out_write):

        async def feed() -> None:
            os.write(in_write, b"".join(lines))
            await trio.sleep(after)
            os.close(in_write)

        async def drain() -> None:
            while chunk := await _read(out_read):
                output.extend(chunk)

        with trio.fail_after(20):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(drain)
                nursery.start_soon(feed)
                out = anyio.wrap_file(os.fdopen(os.dup(out_write), "w", encoding="utf-8"))
                async with wire(PipeLines(os.dup(in_read)), out) as (reader, writer):
                    await server.run(reader, writer, server.create_initialization_options())
                await out.aclose()
                os.close(out_write)
    return {(answer := json.loads(text))["id"]: answer for text in output.decode().splitlines()}


async def _read(fd: int) -> bytes:
    await trio.lowlevel.wait_readable(fd)
    return os.read(fd, 1 << 16)


async def silent_vm() -> tuple[trio.SocketListener, str]:
    """A listener that never answers the JDWP handshake: an attach to it waits for its own timeout."""
    [listener] = await trio.open_tcp_listeners(0, host="127.0.0.1")
    host, port = listener.socket.getsockname()[:2]
    return listener, f"{host}:{port}"


def attach(number: int, address: str) -> bytes:
    return modern(number, "tools/call", {"name": "attach_debugger", "arguments": {
        "platform": "jvm", "address": address, "timeoutMs": 15_000}})


def discover() -> bytes:
    """A modern connection's first request: the SDK's client opens with ``server/discover``."""
    return modern(1, "server/discover", {})


async def test_a_call_the_client_cancels_is_never_answered() -> None:
    listener, address = await silent_vm()
    with listener.socket:
        cancel = json.dumps({"jsonrpc": "2.0", "method": "notifications/cancelled",
                             "params": {"requestId": 2}}).encode() + b"\n"
        not_found = modern(3, "tools/call", {"name": "get_debugger_state", "arguments": {"debugSessionId": "no"}})
        got = await serve([discover(), attach(2, address), cancel, not_found], after=0.5)
    assert sorted(got) == [1, 3]


async def test_a_call_running_when_the_input_ends_is_answered_connection_closed() -> None:
    listener, address = await silent_vm()
    with listener.socket:
        got = await serve([discover(), attach(2, address)], after=0.5)
    assert got[2]["error"] == {"code": mcp_types.CONNECTION_CLOSED, "message": "Connection closed"}
