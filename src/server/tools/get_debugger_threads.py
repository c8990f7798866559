"""``get_debugger_threads``: list the app's threads."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, StrictInt, model_validator

from jdwp.debugger import ThreadsPage

from ..models import SessionInput, Text
from ._tool import Call, Tool

DESCRIPTION = (
    "List every thread (at most 1000; total and truncated say if there are more): name, status (running, "
    "sleeping, waiting = Object.wait, monitor = blocked entering a synchronized block, zombie, not_started), "
    "suspended, group. Without stopId the threads run, so that is all. With the current stopId (after "
    "pause_debugger or any stop) each suspended thread also has a thread_id for get_debugger_stack, "
    "get_debugger_locals and step_debugger, frame_count, its top stackDepth frames (default 0, at most 50; "
    "frame_id usable with get_debugger_locals), owned_monitors and waiting_for {object_id, runtime_type, "
    "owner_thread, owner_name}; and deadlocks lists each cycle of threads blocked on a monitor the next one "
    "owns. Use it to answer \"why is the app frozen?\": pause_debugger, then this with the pause's stopId.")


class ThreadsInput(SessionInput):
    stopId: Text | None = Field(
        default=None, description="The current stop (from pause_debugger or a stopped event): adds thread_id, "
                                  "frames, monitors and deadlocks. Without it, threads run: name, status, "
                                  "suspended and group only.")
    stackDepth: Annotated[StrictInt, Field(ge=0, le=50)] = Field(
        default=0, description="Top frames per suspended thread (0–50); needs stopId.")

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
