"""``get_debugger_object``: look inside an object."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, StrictInt

from jdwp.debugger import ObjectPage

from ..models import MAX_SAFE_INT, SessionInput, Text
from ._tool import Call, Tool

DESCRIPTION = (
    "Read an object by object_id (from locals, fields, elements or entries) as of the current stop, without "
    "running app code: an object's fields (instance fields of its class and superclasses, then statics; "
    "name, declaring_class, declared_type, value, runtime_type), an array's elements, a string's full text "
    "in UTF-16 units. With view auto (default) well-known containers show their contents instead: view "
    "list/set (elements) or map (entries with key and value), size, in iteration order; a boxed value or "
    "StringBuilder its value; an unknown or unexpected layout falls back to fields with a note. Paged: "
    "offset and limit (fields 50 by default, at most 200; elements/entries 100, at most 1000; string units "
    "8192, at most 65536), total, next_offset (null on the last page). The same object keeps its object_id "
    "for the whole session; a collected object is DEBUGGER_STALE_REFERENCE.")


class ObjectInput(SessionInput):
    stopId: Text
    objectId: Text = Field(description="An object_id from locals, fields, elements or entries (s1-obj-4).")
    offset: Annotated[StrictInt, Field(ge=0, le=MAX_SAFE_INT)] = Field(
        default=0, description="First field, element, entry or UTF-16 unit to return; pass next_offset.")
    limit: Annotated[StrictInt, Field(ge=1, le=65536)] | None = Field(
        default=None, description="How many: fields 50 by default (at most 200), elements and entries 100 (at "
                                  "most 1000), string units 8192 (at most 65536).")
    view: Literal["auto", "fields"] = Field(
        default="auto", description="auto shows known containers (lists, sets, maps, boxed values, "
                                    "StringBuilder) as their contents; fields always shows raw fields.")


async def get_object(call: Call) -> ObjectPage:
    inp: ObjectInput = call.input
    _, engine = call.attached(inp.stopId)
    return await engine.object(inp.stopId, inp.objectId, inp.offset, inp.limit, inp.view)


TOOL = Tool("get_debugger_object", "Look inside an object", DESCRIPTION,
            ObjectInput, get_object, ObjectPage, read_only=True, idempotent=True, order=100)
