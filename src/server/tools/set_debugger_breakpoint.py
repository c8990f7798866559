"""``set_debugger_breakpoint``: set a line breakpoint."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, StrictInt, model_validator

from ..models import PositiveInt, SessionInput, Text
from ..results import BreakpointAnswer
from ._tool import Call, Tool

DESCRIPTION = (
    "Break at a line of className (nested and lambda classes too) or file. status: verified, pending (binds when "
    "its class loads) or rejected (never moved).")


class SetBreakpointInput(SessionInput):
    """Exactly one of ``className`` or ``file``, and ``line``."""

    className: Text | None = None
    file: Text | None = Field(default=None, description="Source file name or path.")
    line: PositiveInt
    condition: Text | None = Field(default=None, description="Stop only if true.")
    hitCount: PositiveInt | None = Field(default=None, description="Stop from hit n on.")
    action: Literal["stop", "log"] = Field(default="stop", description="log: a logpoint, never stops.")
    logMessage: Text | None = Field(default=None, description="{expr} parts evaluated.")
    maxHits: Annotated[StrictInt, Field(ge=1, le=10_000)] | None = Field(
        default=None, description="Logpoint hits (100).")
    suspend: Literal["all", "thread"] = Field(default="all", description="thread: only the hitting thread.")
    lambda_: Literal["all", "line"] | Annotated[StrictInt, Field(ge=0, le=1000)] = Field(
        default="all", alias="lambda", description="all, line (no lambdas) or the n-th lambda.")

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
            lambda_choice=inp.lambda_))


TOOL = Tool("set_debugger_breakpoint", "Set a line breakpoint", DESCRIPTION,
            SetBreakpointInput, set_breakpoint, BreakpointAnswer, read_only=False, idempotent=False, order=40)
