"""``set_debugger_exception_breakpoint``: stop on exceptions."""

from __future__ import annotations

from pydantic import StrictBool

from jdwp.debugger import exception_request

from ..answers.results import ExceptionBreakpointAnswer
from ..session.models import CaptureField, SessionInput, Text, capture_of
from ._tool import Call, Tool

DESCRIPTION = (
    "Stop where exceptionClass (or subclass; omitted: any) is thrown, uncaught (a coroutine crash too) or "
    "caught.")


class ExceptionBreakpointInput(SessionInput):
    """An exception class (or every throwable), and when to stop: caught, uncaught, or both. Types only: what
    makes a breakpoint that can stop is the engine's rule (:func:`jdwp.debugger.exception_request`)."""

    exceptionClass: Text | None = None
    caught: StrictBool = False
    uncaught: StrictBool = True
    capture: CaptureField = None


async def set_exception_breakpoint(call: Call) -> ExceptionBreakpointAnswer:
    inp: ExceptionBreakpointInput = call.input
    exception_request(inp.exceptionClass, inp.caught, inp.uncaught, capture_of(inp.capture))  # before the session
    session, engine = call.attached()
    async with session.lock:
        return ExceptionBreakpointAnswer.of(
            await engine.set_exception_breakpoint(inp.exceptionClass, inp.caught, inp.uncaught,
                                                  capture_of(inp.capture)))


TOOL = Tool("set_debugger_exception_breakpoint", "Stop on exceptions", DESCRIPTION,
            ExceptionBreakpointInput, set_exception_breakpoint, ExceptionBreakpointAnswer, read_only=False,
            idempotent=False, order=50)
