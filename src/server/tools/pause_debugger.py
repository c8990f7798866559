"""``pause_debugger``: pause the whole app."""

from __future__ import annotations

import dataclasses

from jdwp.debugger import Stop

from ..models import SessionInput
from ._tool import Call, Tool

DESCRIPTION = (
    "Suspend every thread of the app now (one VirtualMachine.Suspend that this session owns) as a stop with "
    "reason pause and no thread of its own (thread_id null); returns it (also a stopped event). Then "
    "get_debugger_threads with its stopId for thread IDs, stacks and deadlocks; step_debugger a thread, or "
    "resume_debugger to release exactly this pause. The pause limit applies as for any stop; detach releases "
    "it. Breakpoints hit meanwhile queue and arrive after resume. Already paused (a stop is current): "
    "DEBUGGER_BUSY, nothing changed.")


@dataclasses.dataclass(frozen=True, slots=True)
class Paused:
    """What pause_debugger answers: the ``pause`` stop it made (also published as a ``stopped`` event)."""

    stop: Stop
    acknowledged: bool = True


async def pause(call: Call) -> Paused:
    session, engine = call.attached()
    async with session.lock:
        return Paused(await engine.pause())


TOOL = Tool("pause_debugger", "Pause the whole app", DESCRIPTION,
            SessionInput, pause, Paused, read_only=False, idempotent=False, uncertain_on_interrupt=True, order=130)
