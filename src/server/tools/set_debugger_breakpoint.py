"""``set_debugger_breakpoint``: set a line breakpoint."""

from __future__ import annotations

import dataclasses
from typing import Annotated, Literal

from pydantic import Field, StrictInt, WithJsonSchema

from jdwp.debugger import Breakpoint, Debugger, HitOptions, MethodBreakpoint, breakpoint_place, check_options

from ..answers.art_costs import ART_EVENT_COST
from ..answers.results import AndroidTarget, BreakpointAnswer, MethodBreakpointAnswer
from ..session.models import CaptureField, PositiveInt, SessionInput, Text, capture_of
from ._tool import Call, Tool

DESCRIPTION = (
    "Break at className or file, and line; or at a method's entry/exit. pending: binds when the class loads.")


class SetBreakpointInput(SessionInput):
    """Types and ranges only: which combinations make a breakpoint is the engine's rule
    (:func:`jdwp.debugger.breakpoint_place`, :func:`jdwp.debugger.check_options`)."""

    className: Text | None = None
    file: Text | None = None
    line: PositiveInt | None = None
    method: Text | None = Field(default=None, description="instead of line")
    signature: Text | None = Field(default=None, description="JNI: (J)J")
    on: Literal["entry", "exit"] | None = None
    condition: Text | None = None
    hitCount: PositiveInt | None = Field(default=None, description="from hit n on")
    action: Literal["stop", "log"] = Field(default="stop", description="log: never stops")
    logMessage: Text | None = Field(default=None, description="{expr} evaluated")
    maxHits: Annotated[StrictInt, Field(ge=1, le=10_000)] | None = None
    suspend: Literal["all", "thread"] = "all"
    lambda_: Annotated[Literal["all", "line"] | Annotated[StrictInt, Field(ge=0, le=1000)], WithJsonSchema(
        {"type": ["string", "integer"], "description": "all, line or n-th"})] = Field(default="all", alias="lambda")
    capture: CaptureField = None


def options_of(inp: SetBreakpointInput) -> HitOptions:
    return HitOptions(inp.condition, inp.hitCount, inp.action, inp.logMessage, inp.maxHits, inp.suspend,
                      capture_of(inp.capture))


def check(inp: SetBreakpointInput) -> None:
    """The engine's checks of what needs no session, asked before the session is looked up: bad input is
    INVALID_ARGUMENT whichever session it names.

    Raises:
        InvalidArgument: as :func:`jdwp.debugger.breakpoint_place` and :func:`jdwp.debugger.check_options`.
    """
    breakpoint_place(inp.className, inp.line, file=inp.file, method=inp.method, signature=inp.signature, on=inp.on,
                     lambda_choice=inp.lambda_)
    check_options(options_of(inp))


async def set_breakpoint(call: Call) -> BreakpointAnswer | MethodBreakpointAnswer:
    inp: SetBreakpointInput = call.input
    check(inp)
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
