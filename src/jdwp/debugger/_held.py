"""Taking a lock without a scheduler pass when it is free.

Layer: ``jdwp.debugger`` (trio).
"""

from __future__ import annotations

from collections.abc import Callable

import trio


class Held:
    """``async with Held(lock)``: ``lock``, taken at once when free (``trio.Lock.acquire`` always passes through
    the scheduler, even then), else waited for in turn.

    For the engine's event loop, where each event set takes the session's lock: a judged hit's thread waits
    for everything the loop does, and a scheduler pass is a noticeable part of that. The loop checkpoints
    anyway, waiting for the next event set, so skipping this one starves nobody.
    """

    __slots__ = ("_before_wait", "_lock")

    def __init__(self, lock: trio.Lock, before_wait: Callable[[], None] = lambda: None) -> None:
        self._lock = lock
        #: Called when the lock is not free, before waiting for it (the event loop sends the writes it held).
        self._before_wait = before_wait

    async def __aenter__(self) -> None:
        try:
            self._lock.acquire_nowait()  # refuses while others wait for it: the lock stays fair
        except trio.WouldBlock:
            self._before_wait()
            await self._lock.acquire()

    async def __aexit__(self, *exc_info: object) -> None:
        self._lock.release()
