"""``detach_debugger``: detach and clean up."""

from __future__ import annotations

import dataclasses

import trio

from ..answers.results import optional
from ..session.models import SessionInput
from ._tool import Call, Tool

DESCRIPTION = (
    "End a session: clear breakpoints, resume, disconnect; again retries cleanup.")


@dataclasses.dataclass(frozen=True, slots=True)
class Detached:
    detached: bool
    terminal_reason: str | None
    note: str | None = optional()


async def detach(call: Call) -> Detached:
    inp: SessionInput = call.input
    session = call.manager.get(inp.debugSessionId)
    call.session = session
    with trio.move_on_after(inp.timeoutMs / 1000) as waited:
        await call.manager.detach(session)
    if waited.cancelled_caught and not session.is_terminal:
        # The cleanup goes on in the background, to its own 10 s deadline; say so rather than fail.
        return Detached(False, None, "cleanup is still running (cleanup.status pending); call detach_debugger or "
                                     "get_debugger_state again to see it finish")
    return Detached(True, session.terminal_reason)


TOOL = Tool("detach_debugger", "Detach and clean up", DESCRIPTION,
            SessionInput, detach, Detached, read_only=False, idempotent=True, destructive=True, waits=True, order=160)
