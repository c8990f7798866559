"""stdin of ``pyjdwp-mcp`` read by trio, so that a signal can end it; the rest is the SDK's stdio transport.

Layer: ``server``. The SDK's stdio transport (``mcp.server.stdio.stdio_server``) reads stdin in a worker
thread, and a thread blocked in ``read`` cannot be cancelled: on SIGTERM the server could not end its input
and shut down as on EOF (every session detached, the app left running). Pipes, sockets and terminals can be
polled, so trio reads them here and hands the SDK the lines; anything else (a regular file) the SDK reads
itself. Everything else — parsing, dispatch, serialisation, stdout (which the SDK claims, pointing fd 1 at
stderr meanwhile) — is the SDK's, as it ships.
"""

from __future__ import annotations

import os
import stat
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import trio
from mcp.server.stdio import stdio_server


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


@asynccontextmanager
async def wire(stdin: PipeLines | None, stdout: Any = None) -> AsyncIterator[tuple[Any, Any]]:
    """The MCP read and write streams of the SDK's stdio transport, reading ``stdin``'s lines when trio
    reads them (:func:`stdin_lines`); ``stdout``, an async text file to write to instead of fd 1 (tests)."""
    # The SDK annotates stdin as anyio's file wrapper; it only iterates its lines, which PipeLines provides.
    async with stdio_server(stdin=stdin, stdout=stdout) as streams:  # type: ignore[arg-type]
        yield streams
