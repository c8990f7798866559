"""``redefine_debugger_classes``: reload changed classes into the running app (only with ``--allow-mutation``)."""

from __future__ import annotations

import dataclasses
from typing import Annotated

from pydantic import Field

from jdwp.debugger import OldFrame, Skipped

from ..answers.results import AnyBreakpointAnswer, answer_of
from ..session.models import SessionInput, Text
from ._tool import Call, Tool

DESCRIPTION = (
    "Hot swap changed method bodies (JVM: .class, dir, jar; Android: .dex, APK, dex dir); breakpoints kept. "
    "Needs --allow-mutation.")


class RedefineInput(SessionInput):
    paths: Annotated[list[Text], Field(min_length=1, max_length=50)]


@dataclasses.dataclass(frozen=True, slots=True)
class ReloadAnswer:
    """Classes redefined, those skipped and why, frames still running old code, breakpoints bound anew."""

    redefined: tuple[str, ...]
    skipped: tuple[Skipped, ...] = dataclasses.field(default=(), metadata={"omit_empty": True})
    old_frames: tuple[OldFrame, ...] = dataclasses.field(default=(), metadata={"omit_empty": True})
    breakpoints: tuple[AnyBreakpointAnswer, ...] = dataclasses.field(default=(), metadata={"omit_empty": True})
    note: str | None = dataclasses.field(default=None, metadata={"omit_none": True})


async def redefine(call: Call) -> ReloadAnswer:
    inp: RedefineInput = call.input
    session, engine = call.attached()
    async with session.lock:
        done = await engine.redefine_classes(inp.paths)
    note = done.note.replace("Debugger.restart_frame()", 'step_debugger kind "restart"') if done.note else None
    return ReloadAnswer(done.redefined, done.skipped, done.old_frames, tuple(answer_of(bp) for bp in done.breakpoints),
                        note)


TOOL = Tool("redefine_debugger_classes", "Reload changed classes", DESCRIPTION,
            RedefineInput, redefine, ReloadAnswer, read_only=False, idempotent=False, uncertain_on_interrupt=True,
            order=118)
