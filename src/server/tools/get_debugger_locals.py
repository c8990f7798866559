"""``get_debugger_locals``: read a frame's local variables."""

from __future__ import annotations

from jdwp.debugger import Locals

from ..models import SessionInput, Text
from ._tool import Call, Tool

DESCRIPTION = (
    "Read the local variables live at a frame (from get_debugger_stack) of the current stop: name, type, kind "
    "(primitive, null, string, object, array), value as text (strings cut to 256 characters, with length), "
    "object_id for objects; `this` separately. At most 100 (truncated: true beyond). availability is "
    "unavailable when the class has no variable table (ABSENT_INFORMATION) or the frame is a native method's "
    "(NATIVE_METHOD), unknown when the table is empty (EMPTY_OR_UNAVAILABLE_VARIABLE_METADATA). Values may be "
    "private: they are returned only here, never logged.")


class LocalsInput(SessionInput):
    stopId: Text
    frameId: Text


async def get_locals(call: Call) -> Locals:
    inp: LocalsInput = call.input
    _, engine = call.attached(inp.stopId)
    return await engine.locals(inp.stopId, inp.frameId)


TOOL = Tool("get_debugger_locals", "Read a frame's local variables", DESCRIPTION,
            LocalsInput, get_locals, Locals, read_only=True, idempotent=True, order=90)
