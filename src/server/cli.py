"""``pyjdwp-mcp``: run the MCP server over stdio, under trio.

Layer: ``server``. stdout belongs to MCP: logs go to stderr only, and never carry local values.
Shutdown — stdin closing, SIGTERM or SIGINT — detaches every session first (each within its 10 s
cleanup deadline), so no app is left suspended by us.
"""

from __future__ import annotations

import argparse
import logging
import math
import os
import signal
import stat
import sys

import anyio
import trio
from mcp.server.stdio import stdio_server

from .app import build_server
from .capabilities import VERSION
from .targets import Config

DESCRIPTION = """MCP server for debugging Java/Kotlin apps on Android devices (over adb) and any JVM listening
for a debugger, in pure Python (no JDK needed). It speaks MCP on stdin/stdout."""


def _seconds(text: str) -> float:
    """A time limit: positive and finite (``nan`` would fail every deadline; ``inf`` would mean no limit)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number of seconds, got {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be positive and finite (seconds), got {text!r}")
    return value


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="pyjdwp-mcp", description=DESCRIPTION)
    parser.add_argument("--pause-limit-s", type=_seconds, default=60.0, metavar="S",
                        help="detach a session whose app stays paused on one stop for S seconds (default 60)")
    parser.add_argument("--idle-limit-s", type=_seconds, default=300.0, metavar="S",
                        help="detach a session after S seconds without any tool call on it; polling counts "
                             "(default 300)")
    parser.add_argument("--session-limit-s", type=_seconds, default=1800.0, metavar="S",
                        help="detach every session after S seconds in total (default 1800)")
    parser.add_argument("--adb-transport", choices=("direct", "forward"), default="direct",
                        help="direct (default): JDWP over the adb server's own socket, no local port; forward: an "
                             "`adb forward tcp:0 jdwp:<pid>` on loopback, removed at detach")
    parser.add_argument("--allow-remote-jvm", action="store_true",
                        help="allow platform jvm addresses that are not loopback (JDWP has no authentication: "
                             "only on networks you trust)")
    parser.add_argument("--log-level", choices=("debug", "info", "warning", "error"), default="warning",
                        help="what to log on stderr (default warning); local values are never logged")
    parser.add_argument("--transport", choices=("stdio",), default="stdio",
                        help="stdio only: the SDK's streamable-HTTP server runs on asyncio, not under trio")
    parser.add_argument("--version", action="version", version=f"pyjdwp-mcp {VERSION}")
    return parser.parse_args(argv)


async def serve(config: Config) -> None:
    server = build_server(config)
    stdin = _stdin_lines()
    log = logging.getLogger("pyjdwp.server")
    with trio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
        async with trio.open_nursery() as nursery:

            async def stop_on_signal() -> None:
                async for signum in signals:
                    if stdin is not None and not stdin.stopped:
                        # As if stdin had ended: the server's lifespan detaches every session while the
                        # sessions still run (cancelling them first would drop their connections instead).
                        log.warning("signal %d: cleaning up and exiting", signum)
                        stdin.stop()
                    else:
                        log.warning("signal %d: exiting now", signum)
                        nursery.cancel_scope.cancel()
                        return

            nursery.start_soon(stop_on_signal)
            async with stdio_server(stdin=stdin) as (read_stream, write_stream):  # type: ignore[arg-type]
                await server.run(read_stream, write_stream, server.create_initialization_options())
            nursery.cancel_scope.cancel()


class _PipeLines:
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

    def __aiter__(self) -> _PipeLines:
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


def _stdin_lines() -> _PipeLines | None:
    """A pipe, socket or terminal on stdin is read by trio (cancellable); anything else (a regular file,
    which cannot be polled) by the SDK's own reader."""
    try:
        mode = os.fstat(0).st_mode
    except OSError:
        return None
    if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or stat.S_ISCHR(mode):
        return _PipeLines(os.dup(0))
    return None


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    logging.basicConfig(stream=sys.stderr, level=args.log_level.upper(),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    config = Config(args.pause_limit_s, args.idle_limit_s, args.session_limit_s, args.adb_transport,
                    args.allow_remote_jvm)
    anyio.run(serve, config, backend="trio")
    return 0


if __name__ == "__main__":
    sys.exit(main())
