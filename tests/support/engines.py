"""A debugger engine on a live debuggee, for the tests that drive the engine directly (``tests/live``)."""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import trio

import jdwp
from jdwp.debugger import Debugger, open_debugger
from support.jvm import Debuggee


@asynccontextmanager
async def engine(debuggee: Debuggee) -> AsyncIterator[Debugger]:
    """The engine on a fresh JDWP connection to ``debuggee``'s agent; closed (detached) on the way out."""
    async with jdwp.open_jdwp_tcp("127.0.0.1", debuggee.port) as vm, open_debugger(vm) as debugger:
        yield debugger


async def printed(debuggee: Debuggee, pattern: str, after: int = 0) -> str:
    """The first line ``debuggee`` printed from line ``after`` on that matches ``pattern``, waited for (30 s)
    in a worker thread, so the engine's tasks run meanwhile."""
    match = await trio.to_thread.run_sync(functools.partial(debuggee.wait_for_line, pattern, after=after,
                                                            timeout=30))
    return match.string
