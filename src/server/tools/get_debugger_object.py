"""``get_debugger_object``: look inside an object."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, StrictInt

from jdwp.debugger import ObjectPage

from ..session.models import MAX_SAFE_INT, SessionInput, Text
from ._tool import Call, Tool

DESCRIPTION = (
    "An object's fields, array's elements or string's text; collections as contents (view fields: raw). Paged.")


class ObjectInput(SessionInput):
    stopId: Text
    objectId: Text
    offset: Annotated[StrictInt, Field(ge=0, le=MAX_SAFE_INT)] = 0
    limit: Annotated[StrictInt, Field(ge=1, le=65536)] | None = None
    view: Literal["auto", "fields"] = "auto"
    depth: Annotated[StrictInt, Field(ge=0, le=2)] = Field(default=1, description="preview levels")


async def get_object(call: Call) -> ObjectPage:
    inp: ObjectInput = call.input
    _, engine = call.attached(inp.stopId)
    return await engine.object(inp.stopId, inp.objectId, inp.offset, inp.limit, inp.view, inp.depth)


TOOL = Tool("get_debugger_object", "Look inside an object", DESCRIPTION,
            ObjectInput, get_object, ObjectPage, read_only=True, idempotent=True, order=100)
