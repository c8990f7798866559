"""``update_debugger_breakpoint``: change one breakpoint in place (docs/design.md §3.5).

A condition, hit count or log message replaced (``null`` clears one; a field left out stays), or the
breakpoint disabled — its JDWP requests cleared, the breakpoint kept (status ``disabled``) — and enabled
again, bound anew. Bad input (a condition that does not parse, a log message on a breakpoint that stops, an
option on an exception breakpoint) is INVALID_ARGUMENT and changes nothing.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field, StrictBool, model_validator
from pydantic.config import JsonDict

from ..answers.results import AnyBreakpointAnswer, answer_of
from ..session.models import PositiveInt, SessionInput, Text
from ._tool import Call, Tool

DESCRIPTION = (
    "Change a breakpoint: condition, hitCount, logMessage (null clears) or enabled.")

#: A field whose ``null`` means something (clear it): its schema keeps the null.
NULL_CLEARS: JsonDict = {"nullable": True}

#: The inputs that change an option, and the engine's names for them.
OPTIONS = {"condition": "condition", "hitCount": "hit_count", "logMessage": "log_message"}


class UpdateBreakpointInput(SessionInput):
    """A breakpoint ID and at least one change."""

    breakpointId: Text
    condition: Text | None = Field(default=None, json_schema_extra=NULL_CLEARS)
    hitCount: PositiveInt | None = Field(default=None, json_schema_extra=NULL_CLEARS)
    logMessage: Text | None = Field(default=None, description="null: frame 0's locals.",
                                    json_schema_extra=NULL_CLEARS)
    enabled: StrictBool | None = None

    @model_validator(mode="after")
    def _changes_something(self) -> UpdateBreakpointInput:
        if not (set(OPTIONS) | {"enabled"}) & self.model_fields_set:
            raise ValueError("give at least one of condition, hitCount, logMessage or enabled")
        if "enabled" in self.model_fields_set and self.enabled is None:
            raise ValueError("enabled is true or false")
        return self

    def changes(self) -> dict[str, Any]:
        """The options given (a ``None`` clears one), by the engine's names."""
        return {engine: getattr(self, field) for field, engine in OPTIONS.items() if field in self.model_fields_set}


async def update_breakpoint(call: Call) -> AnyBreakpointAnswer:
    inp: UpdateBreakpointInput = call.input
    session, engine = call.attached()
    async with session.lock:
        return answer_of(await engine.update_breakpoint(inp.breakpointId, enabled=inp.enabled, **inp.changes()))


TOOL = Tool("update_debugger_breakpoint", "Change a breakpoint", DESCRIPTION,
            UpdateBreakpointInput, update_breakpoint, AnyBreakpointAnswer, read_only=False, idempotent=True,
            order=65)
