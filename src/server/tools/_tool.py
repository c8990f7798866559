"""What every tool module defines (a :class:`Tool`), and what its handler is given (a :class:`Call`).

Layer: ``server``. A tool module of this package holds its description, its input model, its result type
and its handler side by side, and ends with ``TOOL = Tool(...)``; :mod:`pyjdwp_server.tools` collects them into
the tool table, which :mod:`..handling` dispatches on and :mod:`..tool_schemas` derives ``tools/list`` from.
A handler parses nothing itself (pydantic did), calls the session manager or the engine, and returns its
result; :mod:`..handling` wraps it in the envelope, the deadline and the error mapping.
"""

from __future__ import annotations

import dataclasses
import types
from collections.abc import Awaitable, Callable
from typing import Any, NamedTuple

from pydantic import BaseModel

from jdwp.debugger import Debugger

from ..answers.failures import ToolFailure
from ..session.debug_session import DebugSession
from ..session.manager import SessionManager


class Attached(NamedTuple):
    """A session that is still attached, with its engine (never ``None`` here)."""

    session: DebugSession
    engine: Debugger


@dataclasses.dataclass
class Call:
    """One tool call in progress: what the handler got, and the session it touched."""

    manager: SessionManager
    input: Any
    session: DebugSession | None = None

    def find_session(self) -> DebugSession:
        """The call's session, attached or ended (within its 10 minutes); counts as client activity.

        Raises:
            ToolFailure: DEBUGGER_NOT_FOUND.
        """
        session = self.manager.get(self.input.debugSessionId)
        self.session = session
        session.touch()
        return session

    def attached(self, stop_id: str | None = None) -> Attached:
        """The call's session, which must still be attached.

        Raises:
            ToolFailure: DEBUGGER_NOT_FOUND; once it has ended, DEBUGGER_STALE_REFERENCE for a ``stop_id``
                the session issued (its stop ended with it), else DEBUGGER_DISCONNECTED.
        """
        session = self.find_session()
        engine = session.engine
        if session.is_terminal or engine is None:
            why = f"{session.terminal_reason}: {session.terminal_message}"
            if stop_id is not None and engine is not None and engine.issued(stop_id):
                raise ToolFailure("DEBUGGER_STALE_REFERENCE", f"stop {stop_id} ended with its session {session.id}, "
                                  f"which has ended ({why}); attach again to continue")
            raise ToolFailure("DEBUGGER_DISCONNECTED", f"session {session.id} has ended ({why}); attach again to "
                              "continue")
        return Attached(session, engine)


Handler = Callable[[Call], Awaitable[Any]]


@dataclasses.dataclass(frozen=True)
class Tool:
    name: str
    title: str
    description: str
    model: type[BaseModel]
    handler: Handler
    #: What ``result`` holds (its schema is the tool's output schema), one record type or a union of them; an
    #: EventsPage stands beside it.
    result: type | types.UnionType
    read_only: bool
    #: Calling it again with the same input changes nothing more (MCP's idempotentHint).
    idempotent: bool
    #: Where ``tools/list`` puts it: the table is sorted by (order, name), so an agent reads the tools in the
    #: order of a debugging session (target, attach, breakpoints, events, inspection, control, detach).
    order: int
    #: Changes what the VM does; a timeout or cancellation leaves its outcome unknown.
    uncertain_on_interrupt: bool = False
    #: ``timeoutMs`` is how long to wait (for events, for cleanup), not a failure deadline.
    waits: bool = False
    destructive: bool = False
    #: Its envelope carries the capabilities, limitations and target in full; others name them compactly.
    full_envelope: bool = False
