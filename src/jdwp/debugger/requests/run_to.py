"""Run to a line: a one-shot breakpoint set by a resume, gone at the next stop.

Layer: ``jdwp.debugger`` (trio, via ``jdwp.client``). docs/design.md §3.2 ("Run to"); IntelliJ's "Run to Cursor".

The line is bound as any line breakpoint (:mod:`.breakpoints`: every class of that code, in every loader, and
classes loaded later) and held like one — it is listed, and counts towards the 100 — until the next stop of the
session, whichever request makes it: then it is removed, hit or not. Its status is the breakpoint's: ``pending``
while nothing of the target is loaded, ``rejected`` while the classes loaded so far have no code at the line —
armed all the same, as a breakpoint is, because a class nested in the target (an inner, local or anonymous
class that has not run yet) may load with code there and bind it (issue 32: refusing it left no way to run to
a line of a class not loaded yet).
"""

from __future__ import annotations

import dataclasses

from ..errors import InvalidArgument
from ..model import Breakpoint
from .manager import Requests
from .targets import Target, class_target, file_target

__all__ = ["RunTo", "RunTos"]


@dataclasses.dataclass(frozen=True, slots=True)
class RunTo:
    """Where to run to: a line of a class (``class_name``) or of a source file (``file``); give one."""

    line: int
    class_name: str | None = None
    file: str | None = None

    def target(self) -> Target:
        """The breakpoint target.

        Raises:
            InvalidArgument: not exactly one of class_name and file, or a bad name.
        """
        if (self.class_name is None) == (self.file is None):
            raise InvalidArgument("runTo takes exactly one of className (com.example.Foo) or file (Foo.kt), and line")
        return class_target(self.class_name) if self.class_name is not None else file_target(self.file)  # type: ignore[arg-type]


class RunTos:
    """The session's run-to breakpoint, at most one at a time (a new resume's replaces it)."""

    def __init__(self, requests: Requests) -> None:
        self._requests = requests
        self.pending: str | None = None  # the one-shot breakpoint's ID while it waits for the next stop

    async def arm(self, run_to: RunTo) -> Breakpoint:
        """Set the one-shot breakpoint; an earlier one left waiting goes first.

        Raises:
            InvalidArgument: a bad target (nothing is kept).
            LimitReached: the session holds 100 breakpoints already.
        """
        target = run_to.target()
        await self.spend()
        found = await self._requests.lines.add(target, run_to.line)
        self.pending = found.breakpoint_id
        return found

    async def spend(self) -> None:
        """Remove the one-shot breakpoint (the next stop came, whatever made it); nothing when none waits."""
        pending, self.pending = self.pending, None
        if pending is not None:
            await self._requests.remove(pending)
