"""``step_debugger``: step one line."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, StrictBool

from ..art_costs import art_step_warnings
from ..models import CaptureField, SessionInput, Text, capture_of
from ..results import Acknowledged, AndroidTarget
from ._tool import Call, Tool

DESCRIPTION = (
    "Step the stopped thread one line: into (enter calls), over (run calls), out (finish the method). "
    "Needs the current stopId and threadId. Returns acknowledged once the VM accepted the step; the app runs "
    "and the resulting stop (or a breakpoint of this thread hit first: ended_step) arrives via "
    "wait_for_debugger_event. Other threads' stops may come first: they list the step in pending_steps, and "
    "resuming them lets it go on. Step filters (default on; stepFilters: false turns them off) skip JDK, "
    "Kotlin-runtime and Android-platform classes and synthetic methods. A step over from a native top frame "
    "(Thread.sleep after a pause) cannot finish: it steps out instead and says so (stepped: out, note). All "
    "IDs of the current stop expire.")


class StepInput(SessionInput):
    stopId: Text
    threadId: Text
    kind: Literal["into", "over", "out"]
    stepFilters: StrictBool = Field(
        default=True, description="Skip JDK, Kotlin-runtime and Android-platform classes and synthetic methods "
                                  "(bridges, accessors), as IntelliJ does; false steps wherever the VM goes.")
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
