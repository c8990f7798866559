"""``get_debugger_threads``: list the app's threads."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, StrictInt, model_validator

from jdwp.debugger import ThreadsPage

from ..models import SessionInput, Text
from ._tool import Call, Tool

DESCRIPTION = (
    "List threads; with the current stopId also their ids, top frames, monitors and deadlocks.")


class ThreadsInput(SessionInput):
    stopId: Text | None = None
    stackDepth: Annotated[StrictInt, Field(ge=0, le=50)] = Field(default=0, description="Frames per thread.")

    @model_validator(mode="after")
    def _depth_needs_stop(self) -> ThreadsInput:
        if self.stackDepth and self.stopId is None:
            raise ValueError("stackDepth needs stopId: frames of running threads cannot be read; pause_debugger "
                             "first")
        return self


async def get_threads(call: Call) -> ThreadsPage:
    inp: ThreadsInput = call.input
    _, engine = call.attached(inp.stopId)
    return await engine.threads(inp.stopId, inp.stackDepth)


TOOL = Tool("get_debugger_threads", "List the app's threads", DESCRIPTION,
            ThreadsInput, get_threads, ThreadsPage, read_only=True, idempotent=True, order=120)
