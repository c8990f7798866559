"""``step_debugger``: step one line; or restart the top frame, or force it to return (with ``--allow-mutation``)."""

from __future__ import annotations

import dataclasses
from typing import Literal

from pydantic import StrictBool, model_validator

from jdwp.debugger import Summary

from ..answers.art_costs import art_step_warnings
from ..answers.results import Acknowledged, AndroidTarget, optional
from ..session.models import CaptureField, SessionInput, Text, capture_of
from ._tool import Call, Tool

DESCRIPTION = (
    "Step a stopped thread (default: the stop's own) a line, or restart its frame; the stop comes as an event. "
    "Skips library code, follows coroutines.")


class StepInput(SessionInput):
    stopId: Text
    threadId: Text | None = None
    kind: Literal["into", "over", "out", "restart"]
    stepFilters: StrictBool = True
    returnValue: Text | None = None
    capture: CaptureField = None

    @model_validator(mode="after")
    def _return_on_out(self) -> StepInput:
        if self.returnValue is not None and self.kind != "out":
            raise ValueError('returnValue is for kind "out" (force the top frame to return it, then step out)')
        return self


@dataclasses.dataclass(frozen=True, slots=True)
class StepAnswer(Acknowledged):
    #: What a forced return (``returnValue``) made the frame return; absent otherwise and for ``void``.
    returned: Summary | None = optional()


async def step(call: Call) -> StepAnswer:
    inp: StepInput = call.input
    session, engine = call.attached(inp.stopId)
    note = "the stop this step leads to arrives via wait_for_debugger_event"
    returned = None
    async with session.lock:
        if inp.kind == "restart":
            await engine.restart_frame(inp.stopId, inp.threadId, capture=capture_of(inp.capture))
            made = "into"
            note = f"the top frame was popped; it runs again from its first line: {note}"
        elif inp.returnValue is not None:
            returned, made = await engine.force_return(inp.stopId, inp.threadId, inp.returnValue,
                                                       filters=inp.stepFilters, capture=capture_of(inp.capture))
            note = f"the top frame returns {'its value' if returned else 'now'}: {note}"
        else:
            made = await engine.step(inp.stopId, inp.threadId, inp.kind, filters=inp.stepFilters,
                                     capture=capture_of(inp.capture))
    asked = "into" if inp.kind == "restart" else inp.kind
    if made != asked:
        note = (f"the thread's top frame is native (no line to step {inp.kind}; that step would never finish): "
                f"stepped {made} instead, to the caller once the native call returns; {note}")
    return StepAnswer(note=note, warnings=art_step_warnings(asked) if isinstance(session.target, AndroidTarget)
                      else (), stepped=made if made != asked else None, returned=returned)


TOOL = Tool("step_debugger", "Step one line", DESCRIPTION,
            StepInput, step, StepAnswer, read_only=False, idempotent=False, uncertain_on_interrupt=True, order=140)
