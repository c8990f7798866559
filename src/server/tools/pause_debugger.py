"""``pause_debugger``: pause the whole app, and answer what its threads are doing (a freeze in one call)."""

from __future__ import annotations

import dataclasses

from pydantic import Field, StrictBool

from jdwp import JdwpError
from jdwp.debugger import OMIT_NONE, Deadlock, DebuggerError, Stop, ThreadInfo

from ..models import SessionInput
from ._tool import Call, Tool

DESCRIPTION = (
    "Suspend the whole app (a stop, reason pause); answers its threads, monitors and deadlocks.")


class PauseInput(SessionInput):
    systemThreads: StrictBool = Field(default=False, description="Also list the VM's threads.")


@dataclasses.dataclass(frozen=True, slots=True)
class Paused:
    """What pause_debugger answers: the ``pause`` stop it made (also published as a ``stopped`` event), and the
    app's threads as of it (:class:`jdwp.debugger.Diagnosis`): each with status, its top frame and monitors;
    the deadlocks; the VM's own threads counted (``system_count``), listed when asked. ``note`` says why the
    threads are missing when they could not be read (the pause stands)."""

    stop: Stop
    acknowledged: bool = True
    threads: tuple[ThreadInfo, ...] | None = dataclasses.field(default=None, metadata=OMIT_NONE)
    deadlocks: tuple[Deadlock, ...] | None = dataclasses.field(default=None, metadata=OMIT_NONE)
    system_count: int | None = dataclasses.field(default=None, metadata=OMIT_NONE)
    system_threads: tuple[ThreadInfo, ...] | None = dataclasses.field(default=None, metadata=OMIT_NONE)
    truncated: bool | None = dataclasses.field(default=None, metadata=OMIT_NONE)
    note: str | None = dataclasses.field(default=None, metadata=OMIT_NONE)


async def pause(call: Call) -> Paused:
    inp: PauseInput = call.input
    session, engine = call.attached()
    async with session.lock:
        stop = await engine.pause()
        try:
            found = await engine.diagnosis(stop.stop_id, inp.systemThreads)
        except (DebuggerError, JdwpError) as exc:  # the pause stands: its threads are one get_debugger_threads away
            return Paused(stop, note=f"paused, but its threads could not be read ({exc}); list them with "
                                     "get_debugger_threads and this stopId")
        return Paused(stop, True, found.threads, found.deadlocks, found.system_count,
                      found.system_threads if inp.systemThreads else None, found.truncated or None, found.note)


TOOL = Tool("pause_debugger", "Pause the whole app", DESCRIPTION,
            PauseInput, pause, Paused, read_only=False, idempotent=False, uncertain_on_interrupt=True, order=130)
