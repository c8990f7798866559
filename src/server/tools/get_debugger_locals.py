"""``get_debugger_locals``: read a frame's local variables."""

from __future__ import annotations

from jdwp.debugger import Locals

from ..session.models import SessionInput, Text
from ._tool import Call, Tool

DESCRIPTION = (
    "A frame's local variables (this apart); availability says why none.")


class LocalsInput(SessionInput):
    stopId: Text
    frameId: Text


async def get_locals(call: Call) -> Locals:
    inp: LocalsInput = call.input
    _, engine = call.attached(inp.stopId)
    return await engine.locals(inp.stopId, inp.frameId)


TOOL = Tool("get_debugger_locals", "Read a frame's local variables", DESCRIPTION,
            LocalsInput, get_locals, Locals, read_only=True, idempotent=True, order=90)
