"""``resume_debugger``: resume the app; optionally run to a line, and wait for the next stop."""

from __future__ import annotations

import dataclasses
from typing import Annotated

import trio
from pydantic import StrictBool, WithJsonSchema

from jdwp.debugger import OMIT_EMPTY, RunTo, Stop

from ..answers.results import Acknowledged, BreakpointArmed, RingEvent, optional
from ..session.models import CaptureField, Input, PositiveInt, SessionInput, Text, Timeout, capture_of
from ..session.ring import CAPACITY, ENDS, wait_for_kind
from ._tool import Call, Tool

DESCRIPTION = (
    "Resume the current stop. runTo: a one-shot breakpoint. wait: answers the next stop and the log lines "
    "before it, or timed_out.")

#: The most logpoint events a wait answers beside its stop (the newest: those nearest the stop).
MAX_LOGS = 100

#: The share of timeoutMs a wait may take: the rest is for the resume and the answer, so the call never
#: reaches its deadline (which would leave the resume's outcome unknown and detach the session).
WAIT_SHARE = 0.9


class RunToInput(Input):
    """``className`` or ``file``, and ``line``: types and ranges here; which combinations make a target is the
    engine's rule (:meth:`jdwp.debugger.RunTo.target`)."""

    className: Text | None = None
    file: Text | None = None
    line: PositiveInt


class ResumeInput(SessionInput):
    stopId: Text
    runTo: Annotated[RunToInput | None, WithJsonSchema(
        {"type": "object", "description": "{className | file, line}"})] = None
    capture: CaptureField = None
    wait: StrictBool = False
    timeoutMs: Timeout = 10000  # shown: with wait, how long the stop may take


@dataclasses.dataclass(frozen=True, slots=True)
class Resumed:
    """What resume_debugger answers with ``runTo`` or ``wait``: the one-shot breakpoint, and the next stop."""

    acknowledged: bool = True
    run_to: BreakpointArmed | None = optional()
    stop: Stop | None = optional()
    #: An Android app's stop that is not spared ANRs says how long it may stay paused (as its event does).
    warning: str | None = optional()
    timed_out: bool | None = optional()
    #: With ``wait``: the logpoint events that came before the stop (or the time ran out), oldest first, as
    #: wait_for_debugger_event answers them; at most :data:`MAX_LOGS`, the newest, ``logs_skipped`` older.
    logs: tuple[RingEvent, ...] = dataclasses.field(default=(), metadata=OMIT_EMPTY)
    logs_skipped: int | None = optional()
    #: With ``wait``: the sequence of the last event read, to pass as wait_for_debugger_event's afterSequence.
    next_cursor: int | None = optional()


async def resume(call: Call) -> Acknowledged | Resumed:
    inp: ResumeInput = call.input
    started = trio.current_time()
    run_to = RunTo(inp.runTo.line, inp.runTo.className, inp.runTo.file) if inp.runTo is not None else None
    if run_to is not None:
        run_to.target()  # the engine's check, before the session is looked up: bad input whichever session
    session, engine = call.attached(inp.stopId)
    after = session.ring.newest  # the next stop's event comes after this
    async with session.lock:
        one_shot = await engine.resume(inp.stopId, run_to=run_to, capture=capture_of(inp.capture))
    if run_to is None and not inp.wait:
        return Acknowledged()  # as ever
    shown = BreakpointArmed(one_shot.breakpoint_id, one_shot.status, one_shot.reason) if one_shot is not None else None
    if not inp.wait:
        return Resumed(run_to=shown)
    with trio.move_on_at(started + inp.timeoutMs / 1000 * WAIT_SHARE):
        await wait_for_kind(session.ring, after, ENDS, CAPACITY)
    session.touch()
    events = session.ring.read(after, CAPACITY).events
    end = next((i for i, e in enumerate(events) if e.kind in ENDS), None)
    read = events if end is None else events[: end + 1]
    logs = [e for e in read if e.kind == "logpoint"]  # the log lines before the stop come with it
    kept = tuple(logs[-MAX_LOGS:])
    seen = Resumed(run_to=shown, logs=kept, logs_skipped=len(logs) - len(kept) or None,
                   next_cursor=read[-1].sequence if read else after)
    event = events[end] if end is not None else None
    if event is None or event.stop is None:  # none within the time, or the session ended (the envelope says)
        return dataclasses.replace(seen, timed_out=event is None)
    return dataclasses.replace(seen, stop=event.stop, warning=event.warning)


TOOL = Tool("resume_debugger", "Resume the app", DESCRIPTION,
            ResumeInput, resume, Acknowledged, read_only=False, idempotent=False, uncertain_on_interrupt=True,
            order=150)
