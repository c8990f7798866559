"""``resume_debugger``: resume the app."""

from __future__ import annotations

from ..models import SessionInput, Text
from ..results import Acknowledged
from ._tool import Call, Tool

DESCRIPTION = (
    "Resume from the current stop (stopId): releases exactly the suspension that stop holds. If another stop "
    "was queued it becomes current and arrives as a stopped event. All IDs of the old stop expire.")


class ResumeInput(SessionInput):
    stopId: Text


async def resume(call: Call) -> Acknowledged:
    inp: ResumeInput = call.input
    session, engine = call.attached(inp.stopId)
    async with session.lock:
        await engine.resume(inp.stopId)
    return Acknowledged()


TOOL = Tool("resume_debugger", "Resume the app", DESCRIPTION,
            ResumeInput, resume, Acknowledged, read_only=False, idempotent=False, uncertain_on_interrupt=True,
            order=150)
