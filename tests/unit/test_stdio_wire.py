"""The server's own MCP streams over stdin and stdout (``server.stdio``): what the SDK's stdio transport did
with a reader and a writer task, done in the dispatcher's and the handler's task, over real pipes.

- a request line becomes the SDK's message; a line that is not JSON-RPC is handed on as the exception
  (as by the SDK's reader); the end of input ends the iteration;
- a message goes out as the SDK's serialisation, one line, at once (not after other ready tasks); a sender
  cancelled while its line is being written still finishes the line (a torn line would make the rest of the
  wire unreadable);
- the whole server over two pipes: initialize, a garbled line (dropped, as by the SDK's transport), a
  tool call — answered in order.
"""

from __future__ import annotations

import json
import os

import anyio
import mcp_types
import pytest
import trio
from mcp.shared.message import SessionMessage
from mcp_types.version import LATEST_HANDSHAKE_VERSION

from server.app import build_server
from server.stdio import FdWriter, MessageReader, MessageWriter, PipeLines
from server.targets import Config
from support.pipes import pipe


def request(number: int, method: str, params: dict[str, object]) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": number, "method": method, "params": params}).encode() + b"\n"


async def test_reader_parses_lines_passes_on_garbage_and_ends_at_eof() -> None:
    with pipe() as (read_fd, write_fd):
        os.write(write_fd, request(1, "ping", {}) + b"not json\n")
        os.close(write_fd)
        reader = MessageReader(PipeLines(os.dup(read_fd)))
        items = [item async for item in reader]
    assert len(items) == 2
    first, second = items
    assert isinstance(first, SessionMessage) and isinstance(first.message, mcp_types.JSONRPCRequest)
    assert first.message.method == "ping"
    assert isinstance(second, Exception)


async def test_writer_writes_the_sdk_serialisation_and_finishes_a_cancelled_line() -> None:
    big = "x" * 200_000  # more than a pipe holds: the write must wait for the reader
    message = SessionMessage(mcp_types.JSONRPCResponse(jsonrpc="2.0", id=7, result={"text": big}))
    with pipe() as (read_fd, write_fd):
        writer = MessageWriter(FdWriter(os.dup(write_fd)))
        received = bytearray()
        sender = trio.CancelScope()

        async def send() -> None:
            with sender:
                await writer.send(message)

        async with trio.open_nursery() as nursery:
            nursery.start_soon(send)
            await trio.sleep(0.05)  # the pipe is full and the send waits
            sender.cancel()  # the sender is cancelled mid-line
            with trio.fail_after(5):
                while not received.endswith(b"\n"):
                    await trio.lowlevel.wait_readable(read_fd)
                    received += os.read(read_fd, 1 << 16)
    expected = message.message.model_dump_json(by_alias=True, exclude_unset=True) + "\n"
    assert received.decode() == expected
    await writer.aclose()
    with pytest.raises(anyio.ClosedResourceError):
        await writer.send(message)


async def test_an_answer_is_in_the_pipe_before_any_other_ready_task_runs() -> None:
    """trio's own ``send_all`` takes a scheduler pass before it writes: an answer that was ready waited while
    every other ready task ran (the VM's next event being read and handled, say)."""
    message = SessionMessage(mcp_types.JSONRPCResponse(jsonrpc="2.0", id=3, result={}))
    ran: list[str] = []

    async def other() -> None:
        ran.append("other")

    with pipe() as (read_fd, write_fd):
        writer = MessageWriter(FdWriter(os.dup(write_fd)))
        async with trio.open_nursery() as nursery:
            nursery.start_soon(other)
            await writer.send(message)
            assert ran == []
            assert os.read(read_fd, 1 << 16).decode() == message.message.model_dump_json(
                by_alias=True, exclude_unset=True) + "\n"
        await writer.aclose()


async def test_the_server_answers_every_line_in_order_over_pipes() -> None:
    server = build_server(Config())
    with pipe() as (in_read, in_write), pipe() as (out_read, out_write):
        os.write(in_write, request(1, "initialize", {
            "protocolVersion": LATEST_HANDSHAKE_VERSION, "capabilities": {},
            "clientInfo": {"name": "test", "version": "1"}}))
        os.write(in_write, b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n{garbled\n')
        os.write(in_write, request(2, "tools/call", {"name": "get_debugger_state", "arguments": {
            "debugSessionId": "nope"}}))
        os.close(in_write)
        reader, writer = MessageReader(PipeLines(os.dup(in_read))), MessageWriter(FdWriter(os.dup(out_write)))
        with trio.fail_after(10):
            await server.run(reader, writer, server.create_initialization_options())
        lines = os.read(out_read, 1 << 20).decode().splitlines()
    answers = [json.loads(line) for line in lines]
    assert [answer["id"] for answer in answers] == [1, 2]  # the garbled line is dropped, as by the SDK's
    assert "serverInfo" in answers[0]["result"]  # own transport, and the server serves on
    body = answers[1]["result"]["structuredContent"]
    assert body["success"] is False and body["error"]["code"] == "DEBUGGER_NOT_FOUND"
