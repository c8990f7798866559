"""Run coroutines concurrently and collect their results: how the engine pipelines JDWP requests; and a context
variable set for a block, which the tasks started inside it inherit.

Layer: ``jdwp.debugger`` (trio).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Generic, TypeVar

import trio

from .._groups import unwrap

T = TypeVar("T")


async def gather(thunks: Sequence[Callable[[], Awaitable[Any]]]) -> list[Any]:
    """Await every thunk at once; return their results in order.

    All requests go out before any reply is awaited, so N requests cost one round trip. The first thunk
    runs in the calling task, which the others wait for until it blocks: its first request is written
    before theirs (the VM answers one connection's commands in the order they arrive). If any fails, the
    others are cancelled and the first real failure is raised as itself (not as an exception group).
    """
    if len(thunks) <= 1:  # no task to start (and no comprehension's frame between the caller and the request)
        return [await thunks[0]()] if thunks else []
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


async def nothing() -> None:
    """A thunk that asks nothing: holds a place in a :func:`gather` whose results are unpacked by position."""
    return None


class Once(Generic[T]):
    """An awaitable read made at most once, shared by the tasks that ask at the same time: a stop's frame 0
    locals, wanted by its capture's listing and by each of its expressions (all under way at once).

    A read that fails with an error is that error for every asker; one that was cancelled (its asker's
    deadline) is made again by the next asker, so no other task inherits a cancellation.
    """

    def __init__(self, read: Callable[[], Awaitable[T]]) -> None:
        self._read = read
        self._running: trio.Event | None = None
        self._done = False
        self._result: T | None = None
        self._error: Exception | None = None

    def known(self, result: T) -> None:
        """The read's answer, learnt elsewhere (read ahead): no asker reads it again."""
        self._result, self._done = result, True

    async def __call__(self) -> T:
        while not self._done:
            if self._running is not None:
                await self._running.wait()  # the read under way ends, made or cancelled: look again
                continue
            self._running = running = trio.Event()
            try:
                self._result = await self._read()
                self._done = True
            except Exception as exc:
                self._error = exc
                self._done = True
            finally:  # cancelled: not done, and the next asker reads
                self._running = None
                running.set()
        if self._error is not None:
            raise self._error
        return self._result  # type: ignore[return-value]


@contextmanager
def scoped(variable: ContextVar[T], value: T) -> Iterator[T]:
    """``variable`` holds ``value`` inside the block and in the tasks started there (a hit judged in another
    task meanwhile keeps its own), and what it held before after the block."""
    token = variable.set(value)
    try:
        yield value
    finally:
        variable.reset(token)
