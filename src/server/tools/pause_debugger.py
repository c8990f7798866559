"""``pause_debugger``: pause the whole app."""

from __future__ import annotations

import dataclasses

from jdwp.debugger import Stop

from ..models import SessionInput
from ._tool import Call, Tool

DESCRIPTION = (
    "Suspend the whole app as a stop of reason pause; then get_debugger_threads with its stopId.")


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
