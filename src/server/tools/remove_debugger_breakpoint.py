"""``remove_debugger_breakpoint``: remove a breakpoint."""

from __future__ import annotations

import dataclasses

from ..models import SessionInput, Text
from ._tool import Call, Tool

DESCRIPTION = (
    "Remove a breakpoint (line or exception) by breakpoint_id; removing it again also succeeds.")


class RemoveBreakpointInput(SessionInput):
    breakpointId: Text


@dataclasses.dataclass(frozen=True, slots=True)
class Removed:
    breakpoint_id: str
    removed: bool = True


async def remove_breakpoint(call: Call) -> Removed:
    inp: RemoveBreakpointInput = call.input
    session, engine = call.attached()
    async with session.lock:
        await engine.remove_breakpoint(inp.breakpointId)
    return Removed(inp.breakpointId)


TOOL = Tool("remove_debugger_breakpoint", "Remove a breakpoint", DESCRIPTION,
            RemoveBreakpointInput, remove_breakpoint, Removed, read_only=False, idempotent=True, order=60)
