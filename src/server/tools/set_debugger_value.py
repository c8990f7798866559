"""``set_debugger_value``: change a local, a field or an array element (only with ``--allow-mutation``)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, StrictInt, model_validator

from jdwp.debugger import Summary

from ..session.models import SessionInput, Text
from ._tool import Call, Tool

DESCRIPTION = (
    "Set a local (frameId, name), field (objectId, name) or element (objectId, index) to a literal or object_id. "
    "Needs --allow-mutation.")


class SetValueInput(SessionInput):
    stopId: Text
    frameId: Text | None = None
    objectId: Text | None = None
    name: Text | None = None
    index: Annotated[StrictInt, Field(ge=0)] | None = None
    value: Text

    @model_validator(mode="after")
    def _one_place(self) -> SetValueInput:
        if (self.frameId is None) == (self.objectId is None):
            raise ValueError("give exactly one of frameId (a local) or objectId (a field or an element)")
        if (self.name is None) == (self.index is None) or (self.frameId is not None and self.name is None):
            raise ValueError("give name (a local or a field) or, with an array's objectId, index (an element)")
        return self


async def set_value(call: Call) -> Summary:
    inp: SetValueInput = call.input
    session, engine = call.attached(inp.stopId)
    async with session.lock:
        return await engine.set_value(inp.stopId, inp.value, frame_id=inp.frameId, object_id=inp.objectId,
                                      name=inp.name, index=inp.index)


TOOL = Tool("set_debugger_value", "Set a variable, field or element", DESCRIPTION,
            SetValueInput, set_value, Summary, read_only=False, idempotent=True, order=115)
