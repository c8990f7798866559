"""``get_debugger_threads``: list the app's threads, similar ones folded (docs/tools.md, "Similar threads")."""

from __future__ import annotations

import dataclasses
from typing import Annotated

from pydantic import Field, StrictInt, model_validator

from jdwp.debugger import OMIT_NONE, Deadlock, SimilarThreads, ThreadInfo, fold_threads

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


@dataclasses.dataclass(frozen=True, slots=True)
class ThreadList:
    """The engine's listing (:class:`jdwp.debugger.ThreadsPage`) as an agent reads it: ``threads`` most telling
    first, threads stopped at the same ``stackDepth`` frames folded into one entry each
    (:class:`jdwp.debugger.SimilarThreads`, told apart by its ``count``); ``total`` counts the VM's threads
    (at most 1,000 are listed, ``truncated`` past them)."""

    threads: tuple[ThreadInfo | SimilarThreads, ...]
    total: int
    truncated: bool
    deadlocks: tuple[Deadlock, ...] | None = dataclasses.field(default=None, metadata=OMIT_NONE)
    note: str | None = dataclasses.field(default=None, metadata=OMIT_NONE)


async def get_threads(call: Call) -> ThreadList:
    inp: ThreadsInput = call.input
    _, engine = call.attached(inp.stopId)
    page = await engine.threads(inp.stopId, inp.stackDepth)
    return ThreadList(fold_threads(page.threads, page.deadlocks), page.total, page.truncated, page.deadlocks,
                      page.note)


TOOL = Tool("get_debugger_threads", "List the app's threads", DESCRIPTION,
            ThreadsInput, get_threads, ThreadList, read_only=True, idempotent=True, order=120)
