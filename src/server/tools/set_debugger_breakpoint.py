"""``set_debugger_breakpoint``: set a line breakpoint."""

from __future__ import annotations

import dataclasses
from typing import Annotated, Literal

from pydantic import Field, StrictInt, model_validator

from jdwp.debugger import Breakpoint, Debugger, MethodBreakpoint

from ..art_costs import ART_EVENT_COST
from ..models import CaptureField, PositiveInt, SessionInput, Text, capture_of
from ..results import AndroidTarget, BreakpointAnswer, MethodBreakpointAnswer
from ._tool import Call, Tool

DESCRIPTION = (
    "Break at a line of className (nested classes too) or file, or a method's entry/exit (return_value). "
    "status: verified, pending (binds on load) or rejected.")


class SetBreakpointInput(SessionInput):
    """Exactly one of ``className`` or ``file``, and ``line``."""

    className: Text | None = None
    file: Text | None = Field(default=None, description="Source file name or path.")
    line: PositiveInt | None = None
    method: Text | None = Field(default=None, description="instead of line")
    signature: Text | None = Field(default=None, description="JNI, e.g. (J)J")
    on: Literal["entry", "exit"] | None = None
    condition: Text | None = Field(default=None, description="Stop only if true.")
    hitCount: PositiveInt | None = Field(default=None, description="Stop from hit n on.")
    action: Literal["stop", "log"] = Field(default="stop", description="log: a logpoint, never stops.")
    logMessage: Text | None = Field(default=None, description="{expr} parts evaluated.")
    maxHits: Annotated[StrictInt, Field(ge=1, le=10_000)] | None = None
    suspend: Literal["all", "thread"] = "all"
    lambda_: Literal["all", "line"] | Annotated[StrictInt, Field(ge=0, le=1000)] = Field(
        default="all", alias="lambda", description="all, line or the n-th lambda")
    capture: CaptureField = None

    @model_validator(mode="after")
    def _one_place(self) -> SetBreakpointInput:
        if (self.className is None) == (self.file is None):
            raise ValueError("give exactly one of className (com.example.Foo) or file (Foo.kt or a path)")
        if self.method is None and (self.signature is not None or self.on is not None):
            raise ValueError("signature and on are for a method breakpoint: give method too")
        if self.method is not None and (self.line is not None or self.file is not None):
            raise ValueError("a method breakpoint takes className and method, not line or file")
        if self.method is None and self.line is None:
            raise ValueError("line is required (a 1-based source line), or method for a method breakpoint")
        if self.file is not None:
            if "\x00" in self.file:
                raise ValueError("file must not contain a NUL character")
            if ".." in self.file.replace("\\", "/").split("/"):
                raise ValueError("file must not contain a '..' directory")
        if self.action == "stop" and (self.logMessage is not None or self.maxHits is not None):
            raise ValueError('logMessage and maxHits are for action "log" (a logpoint)')
        if self.action == "log" and self.capture is not None:
            raise ValueError('capture is for breakpoints that stop; a logpoint (action "log") never stops')
        if self.action == "log" and self.suspend == "thread":
            raise ValueError('suspend is for breakpoints that stop; a logpoint (action "log") never stops')
        return self


async def set_breakpoint(call: Call) -> BreakpointAnswer | MethodBreakpointAnswer:
    inp: SetBreakpointInput = call.input
    session, engine = call.attached()
    async with session.lock:
        made = await arm(engine, inp)
    if isinstance(made, MethodBreakpoint):
        answer = MethodBreakpointAnswer.of(made)
        if made.on == "exit" and isinstance(session.target, AndroidTarget):
            answer = dataclasses.replace(answer, warning=ART_EVENT_COST)
        return answer
    return BreakpointAnswer.of(made)


async def arm(engine: Debugger, inp: SetBreakpointInput) -> Breakpoint | MethodBreakpoint:
    """Set the breakpoint ``inp`` asks for (also each of attach_debugger's ``breakpoints``); the caller holds the
    session's lock."""
    return await engine.set_breakpoint(
        inp.className, inp.line, file=inp.file, condition=inp.condition, hit_count=inp.hitCount,
        action=inp.action, log_message=inp.logMessage, max_hits=inp.maxHits, suspend=inp.suspend,
        lambda_choice=inp.lambda_, method=inp.method, signature=inp.signature, on=inp.on,
        capture=capture_of(inp.capture))


TOOL = Tool("set_debugger_breakpoint", "Set a line breakpoint", DESCRIPTION,
            SetBreakpointInput, set_breakpoint, BreakpointAnswer, read_only=False, idempotent=False, order=40)
