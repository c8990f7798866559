"""``remove_debugger_breakpoint``: remove one breakpoint, several, or all of a session's."""

from __future__ import annotations

import dataclasses
from typing import Annotated

from pydantic import Field, StrictBool, model_validator

from ..answers.results import optional
from ..session.models import SessionInput, Text
from ._tool import Call, Tool

DESCRIPTION = (
    "Remove breakpointId, breakpointIds or all; an unknown ID removes none.")

#: As many as a session holds at once.
MAX_IDS = 100


class RemoveBreakpointInput(SessionInput):
    """Exactly one of ``breakpointId`` (spec 025's), ``breakpointIds`` or ``all: true``."""

    breakpointId: Text | None = None
    breakpointIds: Annotated[list[Text], Field(min_length=1, max_length=MAX_IDS)] | None = None
    all: StrictBool = False

    @model_validator(mode="after")
    def _one_choice(self) -> RemoveBreakpointInput:
        given = (self.breakpointId is not None) + (self.breakpointIds is not None) + self.all
        if given != 1:
            raise ValueError("give exactly one of breakpointId, breakpointIds or all: true")
        return self


@dataclasses.dataclass(frozen=True, slots=True)
class Removed:
    """The ID removed (``breakpointId``: the answer spec 025 knows), or the IDs (``breakpointIds``, or every
    one the session held for ``all``)."""

    breakpoint_id: str | None = optional()
    breakpoint_ids: tuple[str, ...] | None = optional()
    removed: bool = True


async def remove_breakpoint(call: Call) -> Removed:
    inp: RemoveBreakpointInput = call.input
    session, engine = call.attached()
    async with session.lock:
        if inp.breakpointId is not None:
            await engine.remove_breakpoint(inp.breakpointId)
            return Removed(inp.breakpointId)
        return Removed(breakpoint_ids=tuple(await engine.remove_breakpoints(inp.breakpointIds)))


TOOL = Tool("remove_debugger_breakpoint", "Remove breakpoints", DESCRIPTION,
            RemoveBreakpointInput, remove_breakpoint, Removed, read_only=False, idempotent=True, order=60)
