"""The one manager of a session's event requests: every kind under one table, IDs, the limit, and what an event
means.

Layer: ``jdwp.debugger`` (trio, via ``jdwp.client``). JDI's ``EventRequestManager`` creates, lists and deletes
every kind of request; this is ours. It owns:

- the kinds, peers on :class:`.kind.RequestKind`, in one table (:attr:`Requests.kinds`): line breakpoints
  (:mod:`.breakpoints`), method breakpoints (:mod:`.method_breakpoints`), watchpoints (:mod:`.watchpoints`),
  exception breakpoints (:mod:`.exceptions`), steps (:mod:`.steps`) and class-prepare requests
  (:mod:`.prepares`, shared by the breakpoint kinds). Adding a kind is its module plus its row;
- what an event means (:meth:`Requests.meaning`): each event is put to the kinds that read its class, in the
  table's order, and the first that owns its request tells;
- breakpoint IDs (never reused in a session, so a removed breakpoint's ID stays known: removing it again is
  fine, and it never names a new one) and the limit of 100 breakpoints of every kind at once; which
  breakpoint a request ID is (:meth:`Requests.owner_of`);
- what every breakpoint shares whatever its kind: listing, update (with its revision), remove, spend, binding
  in a class just prepared, and whether a stop of it is still wanted (:meth:`Requests.wants`).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Any

from ...client import JdwpClient
from ...protocol.commands.events import ClassPrepareEvent
from ...protocol.types import Location
from ..classes.lambdas import Passes, PassSpot
from ..classes.symbols import Symbols
from ..errors import LimitReached, NotFound
from ..ids import IdScheme
from ..model import AnyBreakpoint, Breakpoint, MethodBreakpoint, Watchpoint
from .breakpoint_kind import BreakpointKind, Owners
from .breakpoints import LineBreakpoints
from .capture import CapturePlan
from .exceptions import ExceptionBreakpoints
from .hits import KEEP, HitCounts, HitPlan, Keep
from .kind import Meaning, RequestKind
from .method_breakpoints import MethodBreakpoints
from .prepares import ClearRequest, PrepareRequests, clear_requests
from .steps import Steps
from .watchpoints import Watchpoints

__all__ = ["MAX_BREAKPOINTS", "Requests"]

MAX_BREAKPOINTS = 100


class Requests:
    """Every event request of one session, of every kind."""

    def __init__(self, vm: JdwpClient, symbols: Symbols, steps: Steps, limit: int = MAX_BREAKPOINTS,
                 ids: IdScheme | None = None) -> None:
        self._vm = vm
        self._limit = limit
        self._ids = ids or IdScheme()
        self._issued = 0
        self._owners = Owners()
        self.prepares = PrepareRequests(vm)
        self.lines = LineBreakpoints(vm, symbols, self.prepares, self._reserve, self._owners)
        self.methods = MethodBreakpoints(vm, symbols, self.prepares, self._reserve, self._owners)
        self.watchpoints = Watchpoints(vm, self.prepares, self._reserve, self._owners)
        self.exceptions = ExceptionBreakpoints(vm, self.prepares, self._reserve, self._owners)
        self.steps = steps
        #: The kinds, one row each, in the order an event is put to them: a line's breakpoint event before a
        #: method entry's, both before a step's resume breakpoint; a method exit breakpoint's exit before a step
        #: out's.
        self.kinds: tuple[RequestKind, ...] = (self.lines, self.methods, self.watchpoints, self.exceptions,
                                               self.steps, self.prepares)
        self._readers: dict[type, list[RequestKind]] = {}
        for kind in self.kinds:
            for event_class in kind.EVENTS:
                self._readers.setdefault(event_class, []).append(kind)
        #: The kinds that hold breakpoints, in the order a class prepare binds them.
        self._breakpoints: tuple[BreakpointKind[Any, Any], ...] = tuple(
            kind for kind in (self.exceptions, self.watchpoints, self.methods, self.lines))
        self._revisions: dict[str, int] = {}  # breakpoint ID -> updates so far (:meth:`revision`)
        #: Breakpoints removed by their ``maxHits`` (:meth:`spend`): the stops their hits made stay wanted.
        self._spent: set[str] = set()

    # --- what an event means ------------------------------------------------------------------------

    def meaning(self, event: object) -> Meaning | None:
        """What one event means, when it is of a request of ours (``None``: not ours, or ours no more)."""
        for kind in self._readers.get(type(event), ()):
            found = kind.meaning(event)
            if found is not None:
                return found
        return None

    def owner_of(self, request_id: int) -> str | None:
        """The breakpoint ID behind a JDWP request ID of any breakpoint kind."""
        return self._owners.of(request_id)

    # --- breakpoints of every kind -------------------------------------------------------------------

    def all(self) -> list[AnyBreakpoint]:
        """Every breakpoint held, of every kind, in the order they were set."""
        found: list[AnyBreakpoint] = [bp for kind in self._breakpoints for bp in kind.all()]
        return sorted(found, key=lambda bp: self._ids.number(bp.breakpoint_id, "bp") or 0)

    def _kind_of(self, breakpoint_id: str) -> BreakpointKind[Any, Any] | None:
        return next((kind for kind in self._breakpoints if kind.owns(breakpoint_id)), None)

    @property
    def passes(self) -> Passes:
        """The pass each thread is in through each line breakpoint's line (:mod:`.lambdas`)."""
        return self.lines.passes

    def pass_spot(self, breakpoint_id: str, location: Location | None) -> PassSpot | None:
        return self.lines.pass_spot(breakpoint_id, location)

    def capture_of(self, breakpoint_id: str) -> CapturePlan | None:
        """What a stop of this breakpoint reads as it is made (:mod:`.capture`), of any kind."""
        kind = self._kind_of(breakpoint_id)
        return kind.capture_of(breakpoint_id) if kind is not None else None

    def hit_state(self, breakpoint_id: str) -> tuple[HitPlan, HitCounts] | None:
        """The plan and counts of a held breakpoint that has options (``None`` for a plain one)."""
        kind = self._kind_of(breakpoint_id)
        return kind.hit_state(breakpoint_id) if kind is not None else None

    def revision(self, breakpoint_id: str) -> int:
        """How many times it was updated (:meth:`update`): a hit tells by it whether it was judged as it is now."""
        return self._revisions.get(breakpoint_id, 0)

    def wants(self, breakpoint_id: str, revision: int | None = None) -> bool:
        """Whether a stop of this breakpoint, of any kind, is still wanted: it is held and live (enabled, not
        spent), and (given the ``revision`` its hit saw) not updated since. A stop queued before it was removed,
        disabled, spent or updated is released instead (:class:`..events.stops.Stops`). One removed by its
        ``maxHits`` still wants the stops its hits made (no hit past its budget made one)."""
        if revision is not None and revision != self.revision(breakpoint_id):
            return False
        kind = self._kind_of(breakpoint_id)
        if kind is not None:
            return kind.wants(breakpoint_id)
        return breakpoint_id in self._spent

    async def update(self, breakpoint_id: str, *, condition: str | Keep | None = KEEP,
                     hit_count: int | Keep | None = KEEP, log_message: str | Keep | None = KEEP,
                     enabled: bool | None = None) -> AnyBreakpoint:
        """Change one breakpoint in place: its condition, hit count or log message (``None`` clears one,
        :data:`KEEP` leaves it), and whether it is ``enabled``. A new condition or hit count counts its hits
        from zero. An exception breakpoint takes ``enabled`` only. Its :meth:`revision` goes up: hits judged
        before (stops queued, hits being judged) are let go, as IntelliJ lets go events of the requests it
        replaced.

        Raises:
            NotFound: an ID this session never issued, or one removed.
            InvalidArgument, ExpressionSyntaxError: bad options, an option the breakpoint does not take, or a
                spent logpoint. Nothing is changed.
        """
        kind = self._kind_of(breakpoint_id)
        if kind is None:
            self._check_known(breakpoint_id)
            raise NotFound(f"breakpoint {breakpoint_id!r} was removed; set a new one")
        updated = await kind.update(breakpoint_id, condition=condition, hit_count=hit_count,
                                    log_message=log_message, enabled=enabled)
        self._revisions[breakpoint_id] = self.revision(breakpoint_id) + 1
        return updated  # type: ignore[no-any-return]

    async def spend(self, breakpoint_id: str) -> Breakpoint | Watchpoint | MethodBreakpoint | None:
        """It reached its ``maxHits``: a logpoint stays held, ``spent``; a breakpoint that stops is removed.

        Returns its snapshot, or ``None`` when it is no longer held or was spent already.
        """
        kind = self._kind_of(breakpoint_id)
        spent = await kind.spend(breakpoint_id) if kind is not None else None
        if kind is not None and spent is not None and not kind.owns(breakpoint_id):
            self._spent.add(breakpoint_id)
        return spent

    def bound_in(self, types: Collection[int]) -> list[str]:
        """The breakpoints whose requests name code in any of these classes (lines, method entries): those a
        reload of the classes must bind anew (:mod:`..changes.rebind`)."""
        return [found for kind in (self.lines, self.methods) for found in kind.bound_in(types)]

    async def rebind(self, breakpoint_id: str) -> Breakpoint | MethodBreakpoint:
        """Bind a breakpoint of :meth:`bound_in` anew in its classes' new code (:meth:`.BreakpointKind.rebind`).

        Raises:
            NotFound: not a line or method breakpoint held.
        """
        for kind in (self.lines, self.methods):
            if kind.owns(breakpoint_id):
                return await kind.rebind(breakpoint_id)
        raise NotFound(f"{breakpoint_id!r} is not a line or method breakpoint held")

    def _reserve(self) -> str:
        """The next breakpoint ID, if the session may hold one more breakpoint of any kind.

        Raises:
            LimitReached: it holds the most already.
        """
        held = sum(len(kind) for kind in self._breakpoints)
        if held >= self._limit:
            raise LimitReached(f"this session holds {held} breakpoints, the most it can hold at once; "
                               "remove one (Debugger.remove_breakpoint()) to set another")
        self._issued += 1
        return self._ids.breakpoint(self._issued)

    def _check_known(self, breakpoint_id: str) -> None:
        """Raises NotFound unless this session issued ``breakpoint_id`` (held or removed since)."""
        if self._kind_of(breakpoint_id) is not None:
            return
        number = self._ids.number(breakpoint_id, "bp")
        if number is None or number > self._issued:
            raise NotFound(f"breakpoint {breakpoint_id!r} was not set in this session")

    async def remove(self, breakpoint_id: str) -> None:
        """Clear exactly this breakpoint's requests. Removing it again is not an error.

        Raises:
            NotFound: this session never issued the ID.
        """
        await self.remove_many([breakpoint_id])

    async def remove_many(self, breakpoint_ids: Iterable[str]) -> None:
        """Remove several breakpoints, their requests cleared in one write. Removing one again is not an error.

        Raises:
            NotFound: this session never issued one of the IDs; nothing is removed.
        """
        wanted = list(dict.fromkeys(breakpoint_ids))
        for breakpoint_id in wanted:
            self._check_known(breakpoint_id)
        taken: list[ClearRequest] = []
        for breakpoint_id in wanted:
            self._spent.discard(breakpoint_id)
            kind = self._kind_of(breakpoint_id)
            if kind is not None:  # else removed before
                taken += kind.take(breakpoint_id)
        await clear_requests(self._vm, taken)

    async def on_class_prepare(self, event: ClassPrepareEvent) -> list[AnyBreakpoint]:
        """Bind waiting breakpoints of every kind in a class just loaded; return those whose status or locations
        changed."""
        changed: list[AnyBreakpoint] = []
        for kind in self._breakpoints:
            changed += await kind.on_class_prepare(event)
        return changed

    def take_all(self) -> list[ClearRequest]:
        """Forget every breakpoint request and class-prepare request we made and return them to clear (detach: in
        one write; the steps' are :meth:`.steps.Steps.take_all`'s)."""
        return [*self.lines.take_all(), *self.exceptions.take_all(), *self.watchpoints.take_all(),
                *self.methods.take_all(), *self.prepares.take_all()]
