"""``set_debugger_watchpoint``: stop or log where a field is written or read."""

from __future__ import annotations

import dataclasses
from typing import Annotated, Literal

from pydantic import Field, StrictInt, model_validator

from ..art_costs import ART_EVENT_COST
from ..models import PositiveInt, SessionInput, Text
from ..results import AndroidTarget, WatchpointAnswer
from ._tool import Call, Tool

DESCRIPTION = (
    "Stop where a field of className (or a superclass) is written (access write, default), read, or either "
    "(any), by any thread. The stop has reason watchpoint and watch {field, old_value, new_value, object_id}; "
    "new_value and old_value are names in condition and logMessage. Options, pending, limit and removal as "
    "set_debugger_breakpoint. DEBUGGER_UNSUPPORTED when the VM cannot watch fields.")


class WatchpointInput(SessionInput):
    className: Text = Field(description="Binary class name, e.g. com.example.Account.")
    field: Text = Field(description="Field name (a Kotlin property's backing field has its name).")
    access: Literal["write", "read", "any"] = Field(default="write", description="Which accesses stop.")
    condition: Text | None = Field(default=None, description="Stop only when true, e.g. new_value < 0.")
    hitCount: PositiveInt | None = Field(default=None, description="Ignore the first hitCount-1 hits.")
    action: Literal["stop", "log"] = Field(default="stop", description='"log": a logpoint event per hit.')
    logMessage: Text | None = Field(default=None, description="Logpoint template, e.g. {old_value} -> {new_value}.")
    maxHits: Annotated[StrictInt, Field(ge=1, le=10_000)] | None = Field(
        default=None, description="Logpoint: spent after this many hits (default 100).")
    suspend: Literal["all", "thread"] = Field(default="all", description='"thread" holds only the accessing thread.')

    @model_validator(mode="after")
    def _options(self) -> WatchpointInput:
        if self.action == "stop" and (self.logMessage is not None or self.maxHits is not None):
            raise ValueError('logMessage and maxHits are for action "log" (a logpoint)')
        if self.action == "log" and self.suspend == "thread":
            raise ValueError('suspend is for watchpoints that stop; a logpoint (action "log") never stops')
        return self


async def set_watchpoint(call: Call) -> WatchpointAnswer:
    inp: WatchpointInput = call.input
    session, engine = call.attached()
    async with session.lock:
        answer = WatchpointAnswer.of(await engine.set_watchpoint(
            inp.className, inp.field, inp.access, condition=inp.condition, hit_count=inp.hitCount,
            action=inp.action, log_message=inp.logMessage, max_hits=inp.maxHits, suspend=inp.suspend))
    if isinstance(session.target, AndroidTarget):
        answer = dataclasses.replace(answer, warning=ART_EVENT_COST)
    return answer


TOOL = Tool("set_debugger_watchpoint", "Set a field watchpoint", DESCRIPTION,
            WatchpointInput, set_watchpoint, WatchpointAnswer, read_only=False, idempotent=False, order=55)
