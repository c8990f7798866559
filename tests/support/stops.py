"""Waiting for the engine's next stop in the live tests."""

from __future__ import annotations

from trio import WouldBlock

from jdwp.debugger import BreakpointRejected, BreakpointSpent, BreakpointVerified, Debugger, Stop, Stopped

#: Events a test waiting for a stop passes over: a breakpoint binding as classes load.
BINDING_EVENTS: tuple[type, ...] = (BreakpointVerified, BreakpointRejected)


async def next_stop(debugger: Debugger, *, passing: tuple[type, ...] = BINDING_EVENTS) -> Stop:
    """The next stop, passing over events of the types in ``passing``; any other event fails the test."""
    while True:
        event = await debugger.events.receive()
        if isinstance(event, Stopped):
            return event.stop
        assert isinstance(event, passing), f"expected Stopped, got {event}"


async def first_stop_after_start(debugger: Debugger, *, passing: tuple[type, ...] = BINDING_EVENTS) -> Stop:
    """:func:`next_stop`, resuming the ``vm_start`` stop of a VM started suspended on the way."""
    while True:
        stop = await next_stop(debugger, passing=passing)
        if stop.reasons != ("vm_start",):
            return stop
        await debugger.resume(stop.stop_id)


async def next_spent(debugger: Debugger) -> BreakpointSpent:
    """The next ``BreakpointSpent`` event (a breakpoint reached its ``maxHits``), passing over binding events; any
    other event fails the test."""
    while True:
        event = await debugger.events.receive()
        if isinstance(event, BreakpointSpent):
            return event
        assert isinstance(event, BINDING_EVENTS), f"expected BreakpointSpent, got {event}"


def pending_events(debugger: Debugger) -> list[object]:
    """Every event published so far and not read yet, without waiting."""
    found: list[object] = []
    while True:
        try:
            found.append(debugger.events.receive_nowait())
        except WouldBlock:
            return found
