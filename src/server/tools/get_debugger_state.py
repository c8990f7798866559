"""``get_debugger_state``: read session state."""

from __future__ import annotations

import dataclasses

from jdwp.debugger import Stop

from ..answers.results import AnyBreakpointAnswer, SessionState
from ..session.models import SessionInput
from ._tool import Call, Tool

DESCRIPTION = (
    "A session's state, current stop, breakpoints, why it ended, and cleanup.")


@dataclasses.dataclass(frozen=True, slots=True)
class RingCounts:
    newest_sequence: int
    buffered: int


@dataclasses.dataclass(frozen=True, slots=True)
class StateResult:
    state: SessionState
    stop: Stop | None
    breakpoints: tuple[AnyBreakpointAnswer, ...]
    terminal_reason: str | None
    terminal_message: str | None
    events: RingCounts


async def get_state(call: Call) -> StateResult:
    session = call.find_session()
    return StateResult(session.state, session.current_stop(), session.breakpoints(), session.terminal_reason,
                       session.terminal_message, RingCounts(session.ring.newest, len(session.ring)))


TOOL = Tool("get_debugger_state", "Read session state", DESCRIPTION,
            SessionInput, get_state, StateResult, read_only=True, idempotent=True, order=30)
