"""``set_debugger_breakpoint``: set a line breakpoint."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, StrictInt, model_validator

from ..models import CaptureField, PositiveInt, SessionInput, Text, capture_of
from ..results import BreakpointAnswer
from ._tool import Call, Tool

DESCRIPTION = (
    "Break at a 1-based source line, given exactly one of: className, a binary class name (com.example.Foo) "
    "— it also binds in the classes nested in it from the same file (inner, anonymous Foo$1, lambdas, Kotlin "
    "Foo$Companion); or file, a source file name or path (MainActivity.kt, app/src/main/java/com/x/"
    "MainActivity.kt) — every class of that file, Kotlin top-level code (FooKt) included. A line of a Kotlin "
    "inline function also binds where it was inlined (locations with inlined: true). Binds in every class "
    "loader: status verified with locations. Nothing of it loaded yet gives status pending (reason hints at a "
    "mistyped name); it binds when a class loads (event breakpoint_verified). Classes loaded but no code at "
    "the line, or no line tables, gives status rejected with reason DEBUGGER_LOCATION_UNAVAILABLE; it stays "
    "armed for classes loaded later — the breakpoint is never moved. At most 100 held at once per session "
    "(remove one to set another). A hit suspends all threads; see wait_for_debugger_event. Options: "
    "condition (an expression as evaluate_debugger_expression takes; a syntax error is INVALID_ARGUMENT with "
    "the column) stops only where it is true, and one that cannot be evaluated stops with condition_error; "
    "hitCount ignores the first hitCount-1 hits; action log makes a logpoint that never stops: each hit adds "
    "a logpoint event (breakpoint_id, thread_name, location, message from logMessage's {expression} parts "
    "or frame 0's locals), at most 100 a second per session (more are counted in dropped), until maxHits "
    "(default 100, at most 10000) spend it (breakpoint_spent event); suspend thread holds only the hitting "
    "thread at a stop, so other threads (Android's main thread) keep running; lambda (all, line or n) "
    "picks among a line's lambdas as IntelliJ does. While a condition or hit "
    "count is judged only the hitting thread waits (about a millisecond per hit on loopback: keep them off "
    "lines hit thousands of times a second).")


class SetBreakpointInput(SessionInput):
    """Exactly one of ``className`` or ``file``, and ``line``."""

    className: Text | None = Field(
        default=None, description="Binary class name, e.g. com.example.Foo; also binds in the classes nested in "
                                  "it from the same file (Foo$Inner, Foo$1, Foo$Companion, lambdas).")
    file: Text | None = Field(
        default=None, description="Source file name (MainActivity.kt) or path (app/src/main/java/com/x/"
                                  "MainActivity.kt; \\ accepted): binds in every class of that file.")
    line: PositiveInt = Field(description="1-based source line; never moved to another line.")
    condition: Text | None = Field(
        default=None, description="A read-only expression (as evaluate_debugger_expression takes) evaluated in the "
                                  "hitting frame: the hit stops only when it is true, e.g. i == 777.")
    hitCount: PositiveInt | None = Field(
        default=None, description="Ignore the first hitCount-1 hits (that pass the condition); later hits stop.")
    action: Literal["stop", "log"] = Field(
        default="stop", description='"log" makes a logpoint: each hit adds a logpoint event and the app runs on.')
    logMessage: Text | None = Field(
        default=None, description="Logpoint message template: {expression} parts are evaluated in the hitting "
                                  "frame ({{ and }} are literal braces); without it, frame 0's locals (at most 20).")
    maxHits: Annotated[StrictInt, Field(ge=1, le=10_000)] | None = Field(
        default=None, description="Logpoint: after this many hits (default 100, at most 10000) it is spent.")
    suspend: Literal["all", "thread"] = Field(
        default="all", description='"thread" holds only the hitting thread at a stop (the app\'s main thread '
                                   'keeps serving input on Android); "all" suspends the whole VM.')
    lambda_: Literal["all", "line"] | Annotated[StrictInt, Field(ge=0, le=1000)] = Field(
        default="all", alias="lambda",
        description='A line with lambdas: "all" its code, "line" outside its lambdas, n the n-th lambda (from 0).')
    capture: CaptureField = None

    @model_validator(mode="after")
    def _one_place(self) -> SetBreakpointInput:
        if (self.className is None) == (self.file is None):
            raise ValueError("give exactly one of className (com.example.Foo) or file (Foo.kt or a path)")
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


async def set_breakpoint(call: Call) -> BreakpointAnswer:
    inp: SetBreakpointInput = call.input
    session, engine = call.attached()
    async with session.lock:
        return BreakpointAnswer.of(await engine.set_breakpoint(
            inp.className, inp.line, file=inp.file, condition=inp.condition, hit_count=inp.hitCount,
            action=inp.action, log_message=inp.logMessage, max_hits=inp.maxHits, suspend=inp.suspend,
            lambda_choice=inp.lambda_, capture=capture_of(inp.capture)))


TOOL = Tool("set_debugger_breakpoint", "Set a line breakpoint", DESCRIPTION,
            SetBreakpointInput, set_breakpoint, BreakpointAnswer, read_only=False, idempotent=False, order=40)
