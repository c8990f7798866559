"""Taking a lock without a scheduler pass when it is free.

Layer: ``jdwp.debugger`` (trio).
"""

from __future__ import annotations

import trio


class Held:
    """``async with Held(lock)``: ``lock``, taken at once when free (``trio.Lock.acquire`` always passes through
    the scheduler, even then), else waited for in turn.

    For the engine's event loop, where each event set takes the session's lock: a judged hit's thread waits
    for everything the loop does, and a scheduler pass is a noticeable part of that. The loop checkpoints
    anyway, waiting for the next event set, so skipping this one starves nobody.
    """

    __slots__ = ("_lock",)

    def __init__(self, lock: trio.Lock) -> None:
        self._lock = lock

    async def __aenter__(self) -> None:
        try:
            self._lock.acquire_nowait()  # refuses while others wait for it: the lock stays fair
        except trio.WouldBlock:
            await self._lock.acquire()

    async def __aexit__(self, *exc_info: object) -> None:
        self._lock.release()
