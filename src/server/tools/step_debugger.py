"""``step_debugger``: step one line."""

from __future__ import annotations

from typing import Literal

from pydantic import StrictBool

from ..art_costs import art_step_warnings
from ..models import CaptureField, SessionInput, Text, capture_of
from ..results import Acknowledged, AndroidTarget
from ._tool import Call, Tool

DESCRIPTION = (
    "Step a stopped thread a line; the stop comes as an event. Skips library code, follows coroutines.")


class StepInput(SessionInput):
    stopId: Text
    threadId: Text
    kind: Literal["into", "over", "out"]
    stepFilters: StrictBool = True
    capture: CaptureField = None


async def step(call: Call) -> Acknowledged:
    inp: StepInput = call.input
    session, engine = call.attached(inp.stopId)
    async with session.lock:
        made = await engine.step(inp.stopId, inp.threadId, inp.kind, filters=inp.stepFilters,
                                 capture=capture_of(inp.capture))
    note = "the stop this step leads to arrives via wait_for_debugger_event"
    if made != inp.kind:
        note = (f"the thread's top frame is native (no line to step {inp.kind}; that step would never finish): "
                f"stepped {made} instead, to the caller once the native call returns; {note}")
    return Acknowledged(note=note, warnings=art_step_warnings(inp.kind) if isinstance(session.target, AndroidTarget)
                        else (), stepped=made if made != inp.kind else None)


TOOL = Tool("step_debugger", "Step one line", DESCRIPTION,
            StepInput, step, Acknowledged, read_only=False, idempotent=False, uncertain_on_interrupt=True, order=140)
