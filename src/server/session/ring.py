"""A session's event ring: the last 256 events, read by cursor, waited on without blocking anything else.

Layer: ``server`` (trio). Contract: docs/design.md §5.5 "Event ring".

Sequences start at 1 and increase by one per event. A read returns the events after the cursor (at most
100), ``next_cursor`` (the last sequence returned, or the cursor itself), and ``overflow`` when events
after the cursor were already dropped. A cursor beyond the newest event is the caller's error.
"""

from __future__ import annotations

import dataclasses
from collections import deque

import trio

from jdwp.debugger import LogpointHit, Stop

from ..answers.envelope import now_ms
from ..answers.failures import ToolFailure
from ..answers.results import AnyBreakpointAnswer, EventKind, LogpointPlace, RingEvent

CAPACITY = 256
MAX_READ = 100
ENDS = ("stopped", "terminated")  # a stop, or the session's end: no stop comes after it


@dataclasses.dataclass(frozen=True, slots=True)
class Read:
    events: tuple[RingEvent, ...]
    next_cursor: int
    overflow: bool


class EventRing:
    def __init__(self, capacity: int = CAPACITY) -> None:
        self._events: deque[RingEvent] = deque(maxlen=capacity)
        self._next = 1
        self._changed = trio.Event()
        self._closed = False

    @property
    def newest(self) -> int:
        return self._next - 1

    def __len__(self) -> int:
        return len(self._events)

    def append(self, kind: EventKind, *, stop: Stop | None = None, breakpoint: AnyBreakpointAnswer | None = None,
               reason: str | None = None, message: str | None = None,
               truncated_names: tuple[str, ...] = (), warning: str | None = None,
               logpoint: LogpointHit | None = None, placed: bool = False) -> RingEvent:
        """Add an event; a ``logpoint`` hit's is lean (:class:`RingEvent`): ``placed`` says its breakpoint's
        answer already gives its place (:func:`~.results.placed_by_breakpoint`)."""
        if logpoint is not None:
            where = None if placed else logpoint.location
            event = RingEvent(self._next, None, kind, message=logpoint.message,
                              truncated_names=logpoint.truncated_names, breakpoint_id=logpoint.breakpoint_id,
                              thread_name=logpoint.thread_name, location=LogpointPlace.of(where) if where else None,
                              dropped=logpoint.dropped or None, condition_error=logpoint.condition_error,
                              watch=logpoint.watch, return_value=logpoint.return_value)
        else:
            event = RingEvent(self._next, now_ms(), kind, stop, breakpoint, reason, message, warning,
                              truncated_names=truncated_names)
        self._next += 1
        self._events.append(event)
        self._changed.set()
        self._changed = trio.Event()
        return event

    def close(self) -> None:
        """No more events will come: waiters return at once from now on."""
        self._closed = True
        self._changed.set()

    def read(self, after: int, limit: int = MAX_READ) -> Read:
        """Events with a sequence above ``after``.

        Raises:
            ToolFailure: INVALID_ARGUMENT for a cursor beyond the newest event.
        """
        if after > self.newest:
            raise ToolFailure("INVALID_ARGUMENT", f"afterSequence {after} is beyond the newest event ({self.newest}); "
                                                  "pass 0 or a next_cursor this session returned")
        oldest = self._events[0].sequence if self._events else self._next
        overflow = after < oldest - 1
        events = tuple(e for e in self._events if e.sequence > after)[:limit]
        return Read(events, events[-1].sequence if events else after, overflow)

    async def wait_after(self, after: int) -> None:
        """Return once an event with a sequence above ``after`` exists, or the ring is closed."""
        while self.newest <= after and not self._closed:
            await self._changed.wait()


async def wait_for_kind(ring: EventRing, after: int, kinds: tuple[str, ...], most: int = MAX_READ) -> None:
    """Return once an event of one of ``kinds`` has a sequence above ``after``, ``most`` events have (a page is
    full), or the ring is closed (nothing more will come). The caller bounds the wait."""
    seen = after
    while True:
        events = ring.read(after, most).events
        if len(events) >= most or any(e.kind in kinds for e in events):
            return
        seen = events[-1].sequence if events else after
        await ring.wait_after(seen)
        if ring.newest <= seen:  # closed
            return
