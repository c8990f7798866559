"""``wait_for_debugger_event``: wait for debugger events."""

from __future__ import annotations

from typing import Annotated, Literal

import trio
from pydantic import Field, StrictInt, WithJsonSchema

from ..answers.results import EventsPage
from ..session.debug_session import DebugSession
from ..session.models import MAX_SAFE_INT, Input, Text, Timeout
from ..session.ring import ENDS, MAX_READ, wait_for_kind
from ._tool import Call, Tool

DESCRIPTION = (
    "Events after afterSequence (pass next_cursor), waiting up to timeoutMs. until: stopped returns at a stop, "
    "with the log lines before it.")


class WaitInput(Input):
    debugSessionId: Text
    afterSequence: Annotated[StrictInt, Field(ge=0, le=MAX_SAFE_INT)] = Field(
        default=0)
    timeoutMs: Timeout = 1000
    until: Annotated[Literal["stopped"] | None, WithJsonSchema({"enum": ["stopped"]})] = None


async def wait_for_event(call: Call) -> EventsPage:
    inp: WaitInput = call.input
    session = call.find_session()
    ring = session.ring
    first = ring.read(inp.afterSequence)  # rejects a future cursor before waiting
    if inp.until == "stopped":
        return await _until_stopped(session, inp)
    timed_out = False
    if not first.events and not first.overflow:
        with trio.move_on_after(inp.timeoutMs / 1000) as scope:
            await ring.wait_after(inp.afterSequence)
        timed_out = scope.cancelled_caught
        first = ring.read(inp.afterSequence)
    session.touch()
    return EventsPage(first.events, first.next_cursor, first.overflow, timed_out and not first.events)


TOOL = Tool("wait_for_debugger_event", "Wait for debugger events", DESCRIPTION,
            WaitInput, wait_for_event, EventsPage, read_only=True, idempotent=True, waits=True, order=70)


async def _until_stopped(session: DebugSession, inp: WaitInput) -> EventsPage:
    """The events after the cursor up to and including the first stop (or the session's end), once one is in
    the ring or the time is up; a page that fills (100 events) or overflows is answered as it is. ``timed_out``:
    the time ran out before a stop (or the end) came."""
    ring = session.ring
    with trio.move_on_after(inp.timeoutMs / 1000):
        await wait_for_kind(ring, inp.afterSequence, ENDS)
    page = ring.read(inp.afterSequence)
    end = next((i for i, e in enumerate(page.events) if e.kind in ENDS), None)
    events = page.events if end is None else page.events[: end + 1]
    session.touch()
    ran_out = end is None and not page.overflow and len(events) < MAX_READ
    return EventsPage(events, events[-1].sequence if events else page.next_cursor, page.overflow, ran_out)
