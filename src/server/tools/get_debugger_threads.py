"""``get_debugger_threads``: list the app's threads, similar ones folded (docs/tools.md, "Similar threads")."""

from __future__ import annotations

import dataclasses
from typing import Annotated, TypeVar

from pydantic import Field, StrictInt, model_validator

from jdwp.debugger import OMIT_NONE, Deadlock, Monitor, SimilarThreads, ThreadInfo, WaitingFor, fold_threads

from ..answers.results import ListedThread
from ..session.models import SessionInput, Text
from ._tool import Call, Tool

_M = TypeVar("_M", Monitor, WaitingFor)

DESCRIPTION = (
    "The threads; with the current stopId also ids, top frames, monitors, deadlocks.")


class ThreadsInput(SessionInput):
    stopId: Text | None = None
    #: At a stop, 1 unless given: the top frame, by which similar threads fold (a 200-thread server's pool
    #: in a few entries, not 200); without a stop, no frames can be read.
    stackDepth: Annotated[StrictInt, Field(ge=0, le=50)] = 1

    @model_validator(mode="after")
    def _depth_needs_stop(self) -> ThreadsInput:
        if self.stackDepth and self.stopId is None and "stackDepth" in self.model_fields_set:
            raise ValueError("stackDepth needs stopId: frames of running threads cannot be read; pause_debugger "
                             "first")
        return self


@dataclasses.dataclass(frozen=True, slots=True)
class ThreadList:
    """The engine's listing (:class:`jdwp.debugger.ThreadsPage`) as an agent reads it: ``threads`` most telling
    first, threads stopped at the same ``stackDepth`` frames folded into one entry each
    (:class:`jdwp.debugger.SimilarThreads`, told apart by its ``count``); ``total`` counts the VM's threads
    (at most 1,000 are listed, ``truncated`` past them)."""

    threads: tuple[ListedThread | SimilarThreads, ...]
    total: int
    truncated: bool
    deadlocks: tuple[Deadlock, ...] | None = dataclasses.field(default=None, metadata=OMIT_NONE)
    note: str | None = dataclasses.field(default=None, metadata=OMIT_NONE)


async def get_threads(call: Call) -> ThreadList:
    inp: ThreadsInput = call.input
    _, engine = call.attached(inp.stopId)
    page = await engine.threads(inp.stopId, inp.stackDepth if inp.stopId is not None else 0)
    folded = fold_threads(page.threads, page.deadlocks)
    previewed: set[str] = set()
    threads = tuple(ListedThread.of(_previewed_once(t, previewed)) if isinstance(t, ThreadInfo) else t
                    for t in folded)
    return ThreadList(threads, page.total, page.truncated, page.deadlocks, page.note)


def _previewed_once(thread: ThreadInfo, previewed: set[str]) -> ThreadInfo:
    """``thread`` with each monitor's ``preview`` only where the listing first names the monitor: threads
    blocked on one lock (a server's pool under load) would each repeat it. ``previewed`` collects the
    monitors named so far."""
    owned = tuple(_once(m, previewed) for m in thread.owned_monitors) if thread.owned_monitors else None
    wait = _once(thread.waiting_for, previewed) if thread.waiting_for is not None else None
    if owned == thread.owned_monitors and wait is thread.waiting_for:
        return thread
    return dataclasses.replace(thread, owned_monitors=owned, waiting_for=wait)


def _once(monitor: _M, previewed: set[str]) -> _M:
    if monitor.object_id not in previewed:
        previewed.add(monitor.object_id)
        return monitor
    return dataclasses.replace(monitor, preview=None) if monitor.preview is not None else monitor


TOOL = Tool("get_debugger_threads", "List the app's threads", DESCRIPTION,
            ThreadsInput, get_threads, ThreadList, read_only=True, idempotent=True, order=120)
