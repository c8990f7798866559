"""A breakpoint kind: the life every kind of breakpoint shares (line, method, field, exception), written once.

Layer: ``jdwp.debugger`` (trio, via ``jdwp.client``). A breakpoint kind is a :class:`.kind.RequestKind` that
holds entries with one life (:mod:`.lifecycle`'s table) and does the same things to them the same way:
update (options, enabled), spend, remove, take at detach. Its requests (``EventRequest.Set`` 15,1) are
cleared with it (``EventRequest.Clear`` 15,2), in one write; its class-prepare requests are shared through
:class:`.prepares.PrepareRequests`; which breakpoint each request ID is is the session's one :class:`Owners`
table. A kind writes only what is its own: how it binds (:meth:`BreakpointKind._arm`), how it forgets what
binding found (:meth:`BreakpointKind._unbound`), its snapshot, and when an update makes its requests anew.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Collection, Iterable
from typing import Any, ClassVar, Generic, TypeVar

from ...client import JdwpClient
from ...protocol.commands.events import ClassPrepareEvent
from ...protocol.constants import EventKind, SuspendPolicy
from ..errors import InvalidArgument
from ..model import BreakpointStatus
from .capture import CapturePlan
from .hits import KEEP, HitCounts, HitPlan, Keep, revise_entry
from .kind import RequestKind
from .lifecycle import LIVE, Move, State, after
from .prepares import ClearRequest, PrepareRequests, Watch, clear_requests

__all__ = ["BreakpointKind", "Entry", "Owners"]


class Owners:
    """Which breakpoint each JDWP request ID of ours belongs to, of every kind: one table for the session."""

    def __init__(self) -> None:
        self._by_request: dict[int, str] = {}

    def of(self, request_id: int) -> str | None:
        return self._by_request.get(request_id)

    def own(self, request_id: int, breakpoint_id: str) -> None:
        self._by_request[request_id] = breakpoint_id

    def forget(self, request_ids: Iterable[int]) -> None:
        for request_id in request_ids:
            self._by_request.pop(request_id, None)


@dataclasses.dataclass
class Entry:
    """What every breakpoint keeps: its state (:mod:`.lifecycle`), options and counts, its requests and the
    class-prepare requests it uses."""

    breakpoint_id: str
    plan: HitPlan | None = None  # condition, hit count, logpoint, suspend, maxHits (:mod:`.hits`)
    state: State = "pending"
    requests: dict[int, EventKind] = dataclasses.field(default_factory=dict)  # JDWP request ID -> its kind
    watches: list[Watch] = dataclasses.field(default_factory=list)
    bound_types: set[int] = dataclasses.field(default_factory=set)
    counts: HitCounts = dataclasses.field(default_factory=HitCounts)

    def move(self, move: Move) -> None:
        """Take one move of the lifecycle table.

        Raises:
            InvalidArgument: not a move of its state.
        """
        self.state = after(self.breakpoint_id, self.state, move)

    @property
    def enabled(self) -> bool:
        return self.state != "disabled"

    @property
    def live(self) -> bool:
        """Whether its events are wanted: held, enabled, not spent (:data:`.lifecycle.LIVE`)."""
        return self.state in LIVE

    @property
    def shown_status(self) -> BreakpointStatus:
        """Its status as a snapshot tells it (a breakpoint removed by its ``maxHits`` was ``spent``)."""
        return "spent" if self.state == "removed" else self.state

    @property
    def suspend_policy(self) -> int:
        """``EVENT_THREAD`` when a hit is judged before it stops (:mod:`.hits`), else ``ALL``."""
        if self.plan is not None and self.plan.options.holds_thread_only:
            return SuspendPolicy.EVENT_THREAD
        return SuspendPolicy.ALL

    def progress(self) -> Any:
        """What a class prepare that changes it changes (its state, unless a kind says more)."""
        return self.state


E = TypeVar("E", bound=Entry)
S = TypeVar("S")  # the record the engine hands out (Breakpoint, Watchpoint, MethodBreakpoint, ExceptionBreakpoint)


class BreakpointKind(RequestKind, Generic[E, S]):
    """The breakpoints of one kind, of one session: held entries, one lifecycle, requests owned by ID."""

    #: Whether it takes a condition, hit count, log message and maxHits (an exception breakpoint does not).
    TAKES_OPTIONS: ClassVar[bool] = True
    #: What one of it is called in an error.
    WHAT: ClassVar[str] = "a breakpoint"

    def __init__(self, vm: JdwpClient, prepares: PrepareRequests, reserve: Callable[[], str], owners: Owners) -> None:
        self._vm = vm
        self._prepares = prepares
        self._reserve = reserve
        self._owners = owners
        self._entries: dict[str, E] = {}

    # --- what a kind says --------------------------------------------------------------------------

    def _snapshot(self, entry: E) -> S:
        raise NotImplementedError

    async def _arm(self, entry: E) -> None:
        """Make its requests: watch for its classes, then bind in the prepared ones."""
        raise NotImplementedError

    def _unbound(self, entry: E) -> None:
        """Forget what binding found (its requests are cleared already), so that it binds anew."""
        entry.bound_types.clear()
        entry.move("unbound")

    def _always_judged(self, entry: E) -> bool:
        """Whether every hit of it is judged, options or not (a method exit), so it keeps a plan with none."""
        return False

    def _rearms(self, entry: E, changed: bool, policy_before: int) -> bool:
        """Whether an update that changed its options (``changed``) makes its requests anew: when their suspend
        policy changed (a hit judged first asks ``EVENT_THREAD``) — a hit between the clear and the new requests
        would be lost for nothing otherwise."""
        return entry.suspend_policy != policy_before

    def _forget(self, entry: E) -> list[ClearRequest]:
        """What else goes with the last of its requests (disabled, spent, removed): nothing, unless a kind says."""
        return []

    # --- the rest, the same for every kind ---------------------------------------------------------

    def __len__(self) -> int:
        return len(self._entries)

    def all(self) -> list[S]:
        return [self._snapshot(entry) for entry in self._entries.values()]

    def owns(self, breakpoint_id: str) -> bool:
        return breakpoint_id in self._entries

    def wants(self, breakpoint_id: str) -> bool:
        """Whether it is held and live: enabled, not spent (:meth:`.manager.Requests.wants`)."""
        entry = self._entries.get(breakpoint_id)
        return entry is not None and entry.live

    def entry_of(self, request_id: int) -> E | None:
        """The entry behind a JDWP request ID, when it is this kind's."""
        owner = self._owners.of(request_id)
        return self._entries.get(owner) if owner is not None else None

    def hit_state(self, breakpoint_id: str) -> tuple[HitPlan, HitCounts] | None:
        """The plan and counts of a held breakpoint that has options (``None``: a plain one, or not ours)."""
        entry = self._entries.get(breakpoint_id)
        if entry is None or entry.plan is None:
            return None
        return entry.plan, entry.counts

    def capture_of(self, breakpoint_id: str) -> CapturePlan | None:
        """What a stop of it reads as it is made (:mod:`.capture`): its options record keeps it."""
        entry = self._entries.get(breakpoint_id)
        return entry.plan.capture if entry is not None and entry.plan is not None else None

    async def _hold(self, entry: E) -> S:
        """Hold a new entry (its ID reserved), and arm it.

        Raises:
            JdwpError: the VM refused or did not answer (what was made is held: removed with it).
        """
        self._entries[entry.breakpoint_id] = entry
        await self._arm(entry)
        return self._snapshot(entry)

    def _made(self, entry: E, request_id: int, kind: EventKind) -> None:
        """Record a request the VM made for ``entry``."""
        entry.requests[request_id] = kind
        self._owners.own(request_id, entry.breakpoint_id)

    def _take(self, entry: E) -> list[ClearRequest]:
        """Forget one breakpoint's requests and return them to clear, each named by its own kind."""
        taken = [ClearRequest(kind, request_id, f"{kind.name.lower()} request of {entry.breakpoint_id}")
                 for request_id, kind in entry.requests.items()]
        self._owners.forget(list(entry.requests))
        entry.requests.clear()
        return taken

    def _take_watches(self, entry: E) -> list[ClearRequest]:
        """Give up its class-prepare requests (those it shares stay for their other users)."""
        taken = [request for watch in entry.watches for request in self._prepares.drop(watch)]
        entry.watches.clear()
        return taken

    def _take_everything(self, entry: E) -> list[ClearRequest]:
        return self._take(entry) + self._take_watches(entry) + self._forget(entry)

    def _names_code(self, entry: E) -> bool:
        """Whether its requests name code indexes (a location), which a reload of their class makes stale."""
        return True

    def bound_in(self, types: Collection[int]) -> list[str]:
        """Its breakpoints, live and enabled, whose requests name code in any of these classes: a reload's to bind
        anew (:mod:`..changes.rebind`)."""
        wanted = set(types)
        return [entry.breakpoint_id for entry in self._entries.values()
                if entry.live and entry.enabled and self._names_code(entry) and entry.bound_types & wanted]

    async def rebind(self, breakpoint_id: str) -> S:
        """Bind a breakpoint of :meth:`bound_in` anew, as when it was set, keeping its class-prepare requests:
        after its classes were redefined, their new line tables say where its code is now (or that it has none:
        then ``rejected``). Its requests in them are cleared first (a JVM frees them itself as it redefines,
        which makes clearing them a no-op)."""
        entry = self._entries[breakpoint_id]
        await self._disarm(entry, keep_watches=True)
        await self._arm(entry)
        return self._snapshot(entry)

    async def _disarm(self, entry: E, *, keep_watches: bool) -> None:
        """Clear its requests (and its class-prepare requests unless ``keep_watches``) in one write, and forget
        where it was bound, so that :meth:`_arm` binds it anew."""
        taken = self._take(entry)
        if not keep_watches:
            taken += self._take_watches(entry) + self._forget(entry)
        await clear_requests(self._vm, taken)
        self._unbound(entry)

    async def update(self, breakpoint_id: str, *, condition: str | Keep | None = KEEP,
                     hit_count: int | Keep | None = KEEP, log_message: str | Keep | None = KEEP,
                     enabled: bool | None = None) -> S:
        """Change one held breakpoint in place (``None`` clears an option, :data:`KEEP` leaves it); a new
        condition or hit count counts its hits from zero. Disabled, every request of it is cleared (it stays
        held, counted, status ``disabled``); enabled, it binds anew as when it was set.

        Raises:
            InvalidArgument, ExpressionSyntaxError: bad options, options a kind does not take, or a spent
                breakpoint. Nothing is changed.
            JdwpError: the VM refused or did not answer (what was made is held: removed with it).
        """
        if not self.TAKES_OPTIONS and any(value is not KEEP for value in (condition, hit_count, log_message)):
            raise InvalidArgument(f"{breakpoint_id} is {self.WHAT}: it has no condition, hitCount or logMessage; "
                                  "it takes enabled only")
        entry = self._entries[breakpoint_id]
        policy = entry.suspend_policy
        changed = revise_entry(breakpoint_id, entry, condition, hit_count, log_message,
                               always_judged=self._always_judged(entry))
        if enabled is False:
            if entry.enabled:
                entry.move("disable")
                await self._disarm(entry, keep_watches=False)
        elif not entry.enabled:
            if enabled:
                entry.move("enable")
                await self._arm(entry)
        elif self._rearms(entry, changed, policy):
            await self._disarm(entry, keep_watches=True)
            await self._arm(entry)
        return self._snapshot(entry)

    async def spend(self, breakpoint_id: str) -> S | None:
        """Its ``maxHits`` is reached: clear its requests and class-prepare requests (no class loaded later binds
        it again). A logpoint stays held, ``spent``; a breakpoint that stops is removed (its last stop is
        made: ``maxHits: 1`` is a one-shot).

        Returns its snapshot, or ``None`` when it is no longer held or was spent already.
        """
        entry = self._entries.get(breakpoint_id)
        if entry is None or entry.state in ("spent", "removed"):
            return None
        entry.move("spend")
        entry.counts.spent = True
        taken = self._take_everything(entry)
        if entry.plan is not None and entry.plan.options.action == "stop":
            del self._entries[breakpoint_id]
            entry.move("remove")
        await clear_requests(self._vm, taken)
        return self._snapshot(entry)

    def take(self, breakpoint_id: str) -> list[ClearRequest]:
        """Forget one breakpoint and return its requests and class-prepare requests to clear (one write for
        many)."""
        entry = self._entries.pop(breakpoint_id)
        entry.move("remove")
        return self._take_everything(entry)

    async def remove(self, breakpoint_id: str) -> list[str]:
        """Clear one breakpoint's requests; returns what could not be cleared."""
        return await clear_requests(self._vm, self.take(breakpoint_id))

    def take_all(self) -> list[ClearRequest]:
        """Forget every request and return them to clear (detach; class-prepare requests are the manager's)."""
        taken = [request for entry in self._entries.values() for request in self._take(entry)]
        self._entries.clear()
        return taken

    async def on_class_prepare(self, event: ClassPrepareEvent) -> list[S]:
        """Bind the breakpoints of the class just loaded; return those whose state or locations changed."""
        raise NotImplementedError
