"""What a stop reads that holds only while it lasts: hash-table scans and previews, kept on the stop.

Layer: ``jdwp.debugger.reading``; no MCP, no ``android``.

A stop (:class:`..events.stops.StopState`), and a breakpoint hit being judged, each own one
:class:`StopCache`: a new stop comes with an empty one, so nothing forgets the last stop's reads by hand.
A read runs inside :func:`reading_at` with the cache of the stop it reads; the readers below it (a
container's scan, a preview) find it with :func:`current_cache`, as they find the preview depth
(:data:`.values.PREVIEW_DEPTH`): a context variable, so that a hit judged in another task meanwhile keeps
its own. Outside any stop a read caches nothing.

What the app's own code may change (an invoked method ran, a value was set) is dropped with
:meth:`StopCache.forget`, by kind.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from contextvars import ContextVar
from typing import Any, Literal

from .._gather import scoped

__all__ = ["StopCache", "current_cache", "reading_at"]

#: What a stop keeps: the scans of hash tables (:mod:`.hashscan`, keyed by table) and the previews of
#: objects (:mod:`.previews`, keyed by handle and depth).
Kind = Literal["scan", "preview"]


class StopCache:
    """What one stop (or one hit) has read, by kind and key."""

    __slots__ = ("_found",)

    def __init__(self) -> None:
        self._found: dict[Kind, dict[Any, Any]] = {"scan": {}, "preview": {}}

    def get(self, kind: Kind, key: Any) -> Any:
        return self._found[kind].get(key)

    def has(self, kind: Kind, key: Any) -> bool:
        return key in self._found[kind]

    def put(self, kind: Kind, key: Any, found: Any) -> None:
        self._found[kind][key] = found

    def keep(self, kind: Kind, key: Any, found: Any) -> None:
        """Put ``found`` unless something is kept for ``key`` already."""
        self._found[kind].setdefault(key, found)

    def forget(self, *kinds: Kind) -> None:
        """Drop what was read of ``kinds`` (all, when none is given): app code ran and may have changed it."""
        for kind in kinds or tuple(self._found):
            self._found[kind].clear()


_CURRENT: ContextVar[StopCache | None] = ContextVar("stop_cache", default=None)


def reading_at(cache: StopCache) -> AbstractContextManager[StopCache | None]:
    """Reads inside the block (and the tasks it starts) keep what they find in ``cache``."""
    return scoped(_CURRENT, cache)


def current_cache() -> StopCache:
    """The cache of the stop being read; outside any, a new one each time (nothing is kept)."""
    found = _CURRENT.get()
    return found if found is not None else StopCache()
