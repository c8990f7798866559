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

import trio


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
        self._stream = trio.lowlevel.FdStream(fd)
        self._buffer = b""
        self._reading: trio.CancelScope | None = None
        self.stopped = False

    def stop(self) -> None:
        self.stopped = True
        if self._reading is not None:
            self._reading.cancel()

    def __aiter__(self) -> PipeLines:
        return self

    async def __anext__(self) -> str:
        while b"\n" not in self._buffer:
            chunk = b""
            with trio.CancelScope() as self._reading:
                if not self.stopped:
                    chunk = await self._stream.receive_some(65536)
            self._reading = None
            if not chunk:
                if not self._buffer or self.stopped:
                    await self._stream.aclose()
                    raise StopAsyncIteration
                line, self._buffer = self._buffer, b""
                return line.decode("utf-8", errors="replace")
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line.decode("utf-8", errors="replace") + "\n"


def stdin_lines() -> PipeLines | None:
    """A pipe, socket or terminal on stdin is read by trio (cancellable); anything else (a regular file,
    which cannot be polled) by the SDK's own reader."""
    return PipeLines(os.dup(0)) if _pollable(0) else None




class FdWriter:
    """The SDK's view of stdout (``write`` text, ``flush``) over a trio stream of a private copy of fd 1."""

    def __init__(self, fd: int) -> None:
        self._stream = trio.lowlevel.FdStream(fd)

    async def write(self, text: str) -> None:
        await self._stream.send_all(text.encode("utf-8"))

    async def flush(self) -> None:
        """Nothing is buffered here: every write went out whole."""

    async def aclose(self) -> None:
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
