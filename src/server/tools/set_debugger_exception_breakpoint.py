"""``set_debugger_exception_breakpoint``: stop on exceptions."""

from __future__ import annotations

from pydantic import StrictBool, model_validator

from ..models import CaptureField, SessionInput, Text, capture_of
from ..results import ExceptionBreakpointAnswer
from ._tool import Call, Tool

DESCRIPTION = (
    "Stop where exceptionClass (or subclass; omitted: any) is thrown, uncaught (a coroutine crash too) or "
    "caught.")


class ExceptionBreakpointInput(SessionInput):
    """An exception class (or every throwable), and when to stop: caught, uncaught, or both."""

    exceptionClass: Text | None = None
    caught: StrictBool = False
    uncaught: StrictBool = True
    capture: CaptureField = None

    @model_validator(mode="after")
    def _stops_somewhere(self) -> ExceptionBreakpointInput:
        if not self.caught and not self.uncaught:
            raise ValueError("caught and uncaught are both false: such a breakpoint never stops; set caught, "
                             "uncaught or both to true")
        return self


async def set_exception_breakpoint(call: Call) -> ExceptionBreakpointAnswer:
    inp: ExceptionBreakpointInput = call.input
    session, engine = call.attached()
    async with session.lock:
        return ExceptionBreakpointAnswer.of(
            await engine.set_exception_breakpoint(inp.exceptionClass, inp.caught, inp.uncaught,
                                                  capture_of(inp.capture)))


TOOL = Tool("set_debugger_exception_breakpoint", "Stop on exceptions", DESCRIPTION,
            ExceptionBreakpointInput, set_exception_breakpoint, ExceptionBreakpointAnswer, read_only=False,
            idempotent=False, order=50)
