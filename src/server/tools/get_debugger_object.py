"""``get_debugger_object``: look inside an object."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, StrictInt

from jdwp.debugger import ObjectPage

from ..models import MAX_SAFE_INT, SessionInput, Text
from ._tool import Call, Tool

DESCRIPTION = (
    "An object's fields, an array's elements, a string's text; containers as contents (view auto), a "
    "continuation's spilled variables. Paged.")


class ObjectInput(SessionInput):
    stopId: Text
    objectId: Text
    offset: Annotated[StrictInt, Field(ge=0, le=MAX_SAFE_INT)] = 0
    limit: Annotated[StrictInt, Field(ge=1, le=65536)] | None = Field(
        default=None, description="≤200 fields, ≤1000 elements, ≤65536 chars.")
    view: Literal["auto", "fields"] = Field(default="auto", description="fields: raw fields.")
    depth: Annotated[StrictInt, Field(ge=0, le=2)] = Field(default=1, description="Previews: 0 none, 1, 2 nested.")


async def get_object(call: Call) -> ObjectPage:
    inp: ObjectInput = call.input
    _, engine = call.attached(inp.stopId)
    return await engine.object(inp.stopId, inp.objectId, inp.offset, inp.limit, inp.view, inp.depth)


TOOL = Tool("get_debugger_object", "Look inside an object", DESCRIPTION,
            ObjectInput, get_object, ObjectPage, read_only=True, idempotent=True, order=100)
