"""``set_debugger_exception_breakpoint``: stop on exceptions."""

from __future__ import annotations

from pydantic import Field, StrictBool, model_validator

from ..models import CaptureField, SessionInput, Text, capture_of
from ..results import ExceptionBreakpointAnswer
from ._tool import Call, Tool

DESCRIPTION = (
    "Stop where an exception is thrown: of exceptionClass (binary name, e.g. java.lang.IllegalStateException) "
    "or any of its subclasses, or every throwable when omitted; uncaught (default true): nothing will catch "
    "it (the thread dies); caught (default false): Java code will catch it. Give exceptionClass with caught: "
    "true — without it, every exception the JDK or Android framework throws and catches internally stops the "
    "app too. A class not loaded yet gives status pending; it binds when the class loads (event "
    "breakpoint_verified). The stop has reason exception and exception {type, message (the detail message, "
    "read without running app code; 256 characters), object_id, throw_location, catch_location (null when "
    "uncaught)}; a hit suspends all threads. Counts towards the 100 breakpoints; remove it with "
    "remove_debugger_breakpoint.")


class ExceptionBreakpointInput(SessionInput):
    """An exception class (or every throwable), and when to stop: caught, uncaught, or both."""

    exceptionClass: Text | None = Field(
        default=None, description="Binary class name (java.lang.IllegalStateException, com.example.Outer$Failure); "
                                  "its subclasses match too. Omitted: every throwable.")
    caught: StrictBool = Field(default=False, description="Stop where Java code will catch it (default false).")
    uncaught: StrictBool = Field(default=True, description="Stop where nothing will catch it (default true).")
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
