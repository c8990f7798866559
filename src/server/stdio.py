"""stdin and stdout of ``pyjdwp-mcp`` served by trio itself, not by the SDK's worker threads.

Layer: ``server``. The SDK reads stdin and writes stdout through ``anyio.wrap_file``: each line read and
each response written is a hop to a worker thread and back (two for a write: ``write``, then ``flush``),
about 0.3 ms per response — a tenth of a warm tool call — and a thread blocked in ``read`` cannot be
cancelled. Pipes, sockets and terminals can be polled, so trio serves them directly; anything else (a
regular file) is left to the SDK.
"""

from __future__ import annotations

import os
import stat
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, Self

import anyio
import mcp_types
import trio
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage

from .direct_calls import DirectCalls

#: How long a response already being written may finish after its request was cancelled (shutdown, the
#: client's cancellation): cut short, the line would be torn and the wire unreadable after it.
WRITE_GRACE_S = 5.0


def _pollable(fd: int) -> bool:
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or stat.S_ISCHR(mode)


class PipeLines:
    """stdin's lines read by trio, not by a worker thread, and an end of input on demand.

    The SDK reads stdin in a thread, and a thread blocked in ``read`` cannot be cancelled; ``stop()`` (on
    SIGTERM) ends the input here instead, so the server shuts down exactly as on EOF.
    """

    def __init__(self, fd: int) -> None:
        self._stream = trio.lowlevel.FdStream(fd)  # owns the fd, and made it non-blocking
        self._fd = fd
        self._buffer = b""
        self._reading: trio.CancelScope | None = None
        self.stopped = False
        self.ended = False

    def stop(self) -> None:
        self.stopped = True
        if self._reading is not None:
            self._reading.cancel()

    def __aiter__(self) -> PipeLines:
        return self

    async def __anext__(self) -> str:
        if self.ended:  # its fd is closed, and may be another file's by now
            raise StopAsyncIteration
        while b"\n" not in self._buffer:
            chunk = b""
            with trio.CancelScope() as self._reading:
                if not self.stopped:
                    chunk = await self._receive()
            self._reading = None
            if not chunk:
                if not self._buffer or self.stopped:
                    self.ended = True
                    await self._stream.aclose()
                    raise StopAsyncIteration
                line, self._buffer = self._buffer, b""
                return line.decode("utf-8", errors="replace")
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line.decode("utf-8", errors="replace") + "\n"

    async def _receive(self) -> bytes:
        # Wait first: a line is asked for after the last one was taken, so the pipe is most likely drained,
        # and ``receive_some`` would spend a scheduler pass and a failing read before it waits.
        await trio.lowlevel.wait_readable(self._fd)
        while True:
            try:
                return os.read(self._fd, 65536)
            except BlockingIOError:
                await trio.lowlevel.wait_readable(self._fd)
            except OSError as exc:
                raise trio.BrokenResourceError from exc


def stdin_lines() -> PipeLines | None:
    """A pipe, socket or terminal on stdin is read by trio (cancellable); anything else (a regular file,
    which cannot be polled) by the SDK's own reader."""
    return PipeLines(os.dup(0)) if _pollable(0) else None


class FdWriter:
    """The SDK's view of stdout (``write`` text, ``flush``) over a trio stream of a private copy of fd 1.

    A line goes straight into the pipe when nothing is queued before it: trio's ``send_all`` takes a
    scheduler pass before it writes, and every task that is ready meanwhile (the VM's next event being
    read, say) runs first, so an answer that was ready waited up to milliseconds behind work it does not
    need. What the pipe does not take (a full pipe, a slow client) is queued and written whole, in order,
    by one writer at a time, and a write in progress is not cut short by its caller's cancellation for
    ``WRITE_GRACE_S``: cut short, the line would be torn and the wire unreadable after it.
    """

    def __init__(self, fd: int) -> None:
        self._stream = trio.lowlevel.FdStream(fd)  # owns the fd, and made it non-blocking
        self._fd = fd
        self._queued: list[bytes] = []
        self._lock = trio.Lock()
        self._closed = False

    async def write(self, text: str) -> None:
        await self.write_bytes(text.encode("utf-8"))

    async def write_bytes(self, data: bytes) -> None:
        """``data`` as :meth:`write` writes a text's UTF-8."""
        if not self._closed and not self._queued and not self._lock.locked():
            try:
                sent = os.write(self._fd, data)
            except BlockingIOError:
                sent = 0
            except OSError as exc:  # the client is gone (EPIPE): as trio's stream would say it
                raise trio.BrokenResourceError from exc
            if sent == len(data):
                return  # no checkpoint: the caller's next wait is one
            data = data[sent:]
        self._queued.append(data)
        with trio.CancelScope(shield=True) as scope:
            scope.relative_deadline = WRITE_GRACE_S
            async with self._lock:
                if not self._queued:
                    return  # written with an earlier holder's write
                chunk = b"".join(self._queued)
                self._queued.clear()
                await self._stream.send_all(chunk)

    async def flush(self) -> None:
        """Nothing is buffered here: every write went out whole."""

    async def aclose(self) -> None:
        self._closed = True  # the fd may be reused once closed: no direct write after this
        await self._stream.aclose()


@asynccontextmanager
async def stdout_writer() -> AsyncIterator[FdWriter | None]:
    """A trio writer of the MCP wire on a private copy of stdout, with fd 1 pointed at stderr meanwhile
    (so stray output of a library or a child cannot tear a frame, as the SDK's own claim does); ``None``
    when stdout cannot be polled, and the SDK serves it."""
    if not _pollable(1):
        yield None
        return
    writer = FdWriter(os.dup(1))
    saved = os.dup(1)
    os.dup2(2, 1)
    try:
        yield writer
    finally:
        os.dup2(saved, 1)
        os.close(saved)
        with trio.CancelScope(shield=True):
            await writer.aclose()


class _Closable:
    """What the SDK's streams protocols ask beyond reading or writing: closing (after which a call raises
    ``ClosedResourceError``) and use as an async context manager."""

    _closed: bool  # set by each stream's __init__

    async def aclose(self) -> None:
        self._closed = True

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


class MessageReader(_Closable):
    """The SDK's read stream: stdin's lines parsed into JSON-RPC messages in the task that asks for them.

    The SDK's stdio transport parses in a reader task of its own and hands each message over a memory
    stream, and each response over another to a writer task: a task switch each way on every call. These
    two streams (the SDK's ``ReadStream`` and ``WriteStream`` protocols, which ``Server.run`` takes) do the
    same work in the dispatcher's and the handler's task instead.
    """

    def __init__(self, lines: PipeLines, calls: DirectCalls | None = None) -> None:
        self._lines = lines
        self._calls = calls
        self._closed = False

    async def receive(self) -> SessionMessage | Exception:
        """The next message for the SDK: one that ``calls`` takes is served there, and the next line read."""
        while True:
            if self._closed:
                raise anyio.ClosedResourceError
            try:
                line = await self._lines.__anext__()
            except StopAsyncIteration:
                if self._calls is not None:
                    await self._calls.end_of_input()
                raise anyio.EndOfStream from None
            try:
                message = mcp_types.jsonrpc_message_adapter.validate_json(line, by_name=False)
            except Exception as exc:  # as the SDK's reader: handed on (the dispatcher logs it), the wire goes on
                return exc
            if self._calls is None or not self._calls.take(message):
                return SessionMessage(message)

    def __aiter__(self) -> MessageReader:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None



class MessageWriter(_Closable):
    """The SDK's write stream: each message serialised as the SDK's stdio transport does, and written whole
    (``FdWriter``: in order, and not torn by a cancelled sender)."""

    def __init__(self, out: FdWriter, calls: DirectCalls | None = None) -> None:
        self._out = out
        self._calls = calls
        self._closed = False

    async def send(self, message: SessionMessage, /) -> None:
        if self._closed:
            raise anyio.ClosedResourceError
        if self._calls is not None:
            self._calls.sent(message.message)
        await self._out.write(message.message.model_dump_json(by_alias=True, exclude_unset=True) + "\n")

    async def send_line(self, line: bytes, /) -> None:
        """A message already serialised as the SDK would serialise it, with its newline."""
        if self._closed:
            raise anyio.ClosedResourceError
        await self._out.write_bytes(line)


@asynccontextmanager
async def wire(stdin: PipeLines | None, stdout: FdWriter | None,
               calls: DirectCalls | None = None) -> AsyncIterator[tuple[Any, Any]]:
    """The MCP read and write streams over stdin and stdout: served here when trio can poll both, else by
    the SDK's stdio transport (with our reader or writer where there is one). With ``calls``, the tool calls
    it takes are served beside the SDK's dispatcher (:mod:`.direct_calls`; only on our own streams)."""
    if stdin is not None and stdout is not None:
        writer = MessageWriter(stdout, calls)
        if calls is not None:
            calls.connect(writer)
        yield MessageReader(stdin, calls), writer
        return
    # The SDK annotates its streams as anyio's file wrapper; it only iterates stdin's lines and awaits
    # stdout's write and flush, which ours provide.
    async with stdio_server(stdin=stdin, stdout=stdout) as streams:  # type: ignore[arg-type]
        yield streams
