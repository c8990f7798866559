"""``get_debugger_stack``: read a stopped thread's stack."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, StrictInt

from jdwp.debugger import StackPage

from ..session.models import MAX_SAFE_INT, SessionInput, Text
from ._tool import Call, Tool

DESCRIPTION = (
    "A stopped thread's frames (default: the stop's own), top first, paged; coroutines add async_frames.")


class StackInput(SessionInput):
    stopId: Text
    threadId: Text | None = None
    offset: Annotated[StrictInt, Field(ge=0, le=MAX_SAFE_INT)] = 0
    limit: Annotated[StrictInt, Field(ge=1, le=100)] = 20


async def get_stack(call: Call) -> StackPage:
    inp: StackInput = call.input
    _, engine = call.attached(inp.stopId)
    return await engine.stack(inp.stopId, inp.threadId, inp.offset, inp.limit)


TOOL = Tool("get_debugger_stack", "Read a stopped thread's stack", DESCRIPTION,
            StackInput, get_stack, StackPage, read_only=True, idempotent=True, order=80)
