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
import sys

import anyio
import trio

from .app import build_server
from .session.config import VERSION, Config
from .transport.stdio import stdin_lines, wire

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


def _class_path(text: str) -> list[str]:
    """``--class-path``: entries separated by the platform's path separator, each an existing file or directory."""
    entries = [entry for entry in text.split(os.pathsep) if entry]
    if not entries:
        raise argparse.ArgumentTypeError("names no path")
    for entry in entries:
        if not os.path.exists(entry):
            raise argparse.ArgumentTypeError(f"{entry!r} does not exist")
    return entries


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
    parser.add_argument("--allow-invoke", action="store_true",
                        help="let evaluate_debugger_expression call methods (x.m(), Foo.m()): they run app code on "
                             "the stopped thread, single-threaded, for at most 2 s (off by default: nothing of the "
                             "app runs)")
    parser.add_argument("--class-path", type=_class_path, action="append", default=[], metavar="PATHS",
                        help="the app's jars, class directories, APKs or .dex files (separated by "
                             f"{os.pathsep!r}, repeatable), read on this host for its coroutines' line numbers "
                             "and variable names (@DebugMetadata); nothing of them runs")
    parser.add_argument("--allow-mutation", action="store_true",
                        help="let set_debugger_value change locals, fields and array elements of a stopped app "
                             "(off by default: nothing of the app's state is changed)")
    parser.add_argument("--log-level", choices=("debug", "info", "warning", "error"), default="warning",
                        help="what to log on stderr (default warning); local values are never logged")
    parser.add_argument("--transport", choices=("stdio",), default="stdio",
                        help="stdio only: the SDK's streamable-HTTP server runs on asyncio, not under trio")
    parser.add_argument("--version", action="version", version=f"pyjdwp-mcp {VERSION}")
    return parser.parse_args(argv)


async def serve(config: Config) -> None:
    server = build_server(config)
    stdin = stdin_lines()
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
            async with wire(stdin) as (read_stream, write_stream):
                await server.run(read_stream, write_stream, server.create_initialization_options())
            nursery.cancel_scope.cancel()


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    logging.basicConfig(stream=sys.stderr, level=args.log_level.upper(),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    config = Config(args.pause_limit_s, args.idle_limit_s, args.session_limit_s, args.adb_transport,
                    args.allow_remote_jvm, args.allow_invoke,
                    tuple(entry for entries in args.class_path for entry in entries), args.allow_mutation)
    anyio.run(serve, config, backend="trio")
    return 0


if __name__ == "__main__":
    sys.exit(main())
