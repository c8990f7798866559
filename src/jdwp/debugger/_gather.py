"""Run coroutines concurrently and collect their results: how the engine pipelines JDWP requests.

Layer: ``jdwp.debugger`` (trio).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import trio

from .._groups import unwrap


async def gather(thunks: Sequence[Callable[[], Awaitable[Any]]]) -> list[Any]:
    """Await every thunk at once; return their results in order.

    All requests go out before any reply is awaited, so N requests cost one round trip. The first thunk
    runs in the calling task, which the others wait for until it blocks: its first request is written
    before theirs (the VM answers one connection's commands in the order they arrive). If any fails, the
    others are cancelled and the first real failure is raised as itself (not as an exception group).
    """
    if len(thunks) <= 1:
        return [await thunk() for thunk in thunks]
    results: list[Any] = [None] * len(thunks)

    async def run(index: int, thunk: Callable[[], Awaitable[Any]]) -> None:
        results[index] = await thunk()

    try:
        async with trio.open_nursery() as nursery:
            for index, thunk in enumerate(thunks[1:], 1):
                nursery.start_soon(run, index, thunk)
            await run(0, thunks[0])
    except BaseExceptionGroup as group:
        raise unwrap(group, ignore=(trio.Cancelled,), first=True) from None
    return results
