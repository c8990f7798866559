"""``set_debugger_watchpoint``: stop or log where a field is written or read."""

from __future__ import annotations

import dataclasses
from typing import Annotated, Literal

from pydantic import Field, StrictInt

from jdwp.debugger import HitOptions, check_options

from ..answers.art_costs import ART_EVENT_COST
from ..answers.results import AndroidTarget, WatchpointAnswer
from ..session.models import CaptureField, PositiveInt, SessionInput, Text, capture_of
from ._tool import Call, Tool

DESCRIPTION = (
    "Stop or log at a field's write, read or any: old_value, new_value in stop.watch and conditions.")


class WatchpointInput(SessionInput):
    """Types and ranges only: the options' rules are the engine's (:func:`jdwp.debugger.check_options`)."""

    className: Text
    field: Text
    access: Literal["write", "read", "any"] = "write"
    condition: Text | None = None
    hitCount: PositiveInt | None = None
    action: Literal["stop", "log"] = "stop"
    logMessage: Text | None = None
    maxHits: Annotated[StrictInt, Field(ge=1, le=10_000)] | None = None
    suspend: Literal["all", "thread"] = "all"
    capture: CaptureField = None


async def set_watchpoint(call: Call) -> WatchpointAnswer:
    inp: WatchpointInput = call.input
    options = HitOptions(inp.condition, inp.hitCount, inp.action, inp.logMessage, inp.maxHits, inp.suspend,
                         capture_of(inp.capture))
    check_options(options)  # before the session is looked up: bad input is refused whichever session it names
    session, engine = call.attached()
    async with session.lock:
        answer = WatchpointAnswer.of(await engine.set_watchpoint(
            inp.className, inp.field, inp.access, condition=inp.condition, hit_count=inp.hitCount,
            action=inp.action, log_message=inp.logMessage, max_hits=inp.maxHits, suspend=inp.suspend,
            capture=capture_of(inp.capture)))
    if isinstance(session.target, AndroidTarget):
        answer = dataclasses.replace(answer, warning=ART_EVENT_COST)
    return answer


TOOL = Tool("set_debugger_watchpoint", "Set a field watchpoint", DESCRIPTION,
            WatchpointInput, set_watchpoint, WatchpointAnswer, read_only=False, idempotent=False, order=55)
