"""Line breakpoints: bind in every loaded class of that name, stay pending for classes not loaded yet.

Layer: ``jdwp.debugger`` (trio, via ``jdwp.client``). DESIGN.md §3.

A breakpoint is (binary class name, 1-based line). Setting one first asks for ClassPrepare events of that
exact name (``ClassMatch``, so ``Outer$Inner`` is a different class), then looks for loaded classes of
that name in every class loader (``VirtualMachine.ClassesBySignature``), so no load slips between the
two. In each class every code index the line table maps to the line gets an
``EventRequest.Set(BREAKPOINT, ALL, LocationOnly)``. A line with no code, or a class without a line
table, rejects the breakpoint: it is never moved to another line.

At most 100 breakpoints are held at once; removing one frees its place. IDs are never reused in a session,
so a removed breakpoint's ID stays known (removing it again is fine) and never names a new one.
"""

from __future__ import annotations

import dataclasses
import logging
from functools import partial

from ..client import JdwpClient
from ..protocol.commands.events import ClassMatch, ClassPrepareEvent, LocationOnly
from ..protocol.constants import ClassStatus, EventKind, SuspendPolicy, TypeTag
from ..protocol.errors import CommandError, ConnectionClosed
from ..protocol.types import Location, MethodId, ReferenceTypeId
from ._gather import gather
from .errors import InvalidArgument, LimitReached, NotFound
from .ids import IdScheme
from .model import LOCATION_UNAVAILABLE, BoundLocation, Breakpoint, BreakpointStatus, Reason
from .names import binary_name_of, is_binary_name, signature_of
from .symbols import Symbols

log = logging.getLogger("jdwp.debugger")

MAX_BREAKPOINTS = 100


@dataclasses.dataclass
class _Entry:
    breakpoint_id: str
    class_name: str
    line: int
    status: BreakpointStatus = "pending"
    locations: list[BoundLocation] = dataclasses.field(default_factory=list)
    reason: Reason | None = None
    requests: dict[int, Location] = dataclasses.field(default_factory=dict)  # JDWP request ID -> location
    bound_types: set[int] = dataclasses.field(default_factory=set)

    def rejected(self) -> bool:
        return self.status == "rejected"

    def snapshot(self) -> Breakpoint:
        return Breakpoint(self.breakpoint_id, self.class_name, self.line, self.status, tuple(self.locations),
                          self.reason)


class Breakpoints:
    """Every breakpoint of one session and the JDWP requests behind them."""

    def __init__(self, vm: JdwpClient, symbols: Symbols, limit: int = MAX_BREAKPOINTS,
                 ids: IdScheme | None = None) -> None:
        self._vm = vm
        self._symbols = symbols
        self._limit = limit
        self._ids = ids or IdScheme()
        self._issued = 0
        self._entries: dict[str, _Entry] = {}  # the breakpoints held; a removed one leaves
        self._by_request: dict[int, str] = {}
        self._prepare: dict[str, tuple[int, int]] = {}  # class name -> (request ID, breakpoints using it)
        self._prepare_ids: set[int] = set()

    def all(self) -> list[Breakpoint]:
        return [e.snapshot() for e in self._entries.values()]

    def owner_of(self, request_id: int) -> str | None:
        """The breakpoint ID behind a JDWP breakpoint request ID."""
        return self._by_request.get(request_id)

    def is_prepare_request(self, request_id: int) -> bool:
        return request_id in self._prepare_ids

    async def add(self, class_name: str, line: int) -> Breakpoint:
        """Set a breakpoint; the answer says ``pending``, ``verified`` (with locations) or ``rejected``.

        Raises:
            InvalidArgument: not a binary class name, or a line below 1. Nothing is changed.
            LimitReached: the session holds 100 breakpoints already. Nothing is changed.
        """
        if not is_binary_name(class_name):
            raise InvalidArgument(f"className {class_name!r} is not a binary class name like com.example.Foo$Bar")
        if not isinstance(line, int) or isinstance(line, bool) or line < 1:
            raise InvalidArgument(f"line must be a positive integer, got {line!r}")
        held = len(self._entries)
        if held >= self._limit:
            raise LimitReached(f"this session holds {held} breakpoints, the most it can hold at once; "
                               "remove one (remove_debugger_breakpoint) to set another")
        self._issued += 1
        entry = _Entry(self._ids.breakpoint(self._issued), class_name, line)
        self._entries[entry.breakpoint_id] = entry
        # One round trip; the class-prepare request goes out first, so a class the search misses is prepared
        # after it and reported (one found and then reported too is bound once: ``bound_types``).
        _, found = await gather([partial(self._watch_class, class_name),
                                 partial(self._vm.classes_by_signature, signature_of(class_name))])
        prepared = [c.type_id for c in found if c.status & ClassStatus.PREPARED]
        if prepared:
            await self._bind(entry, prepared)
        if entry.rejected():
            await self._unwatch_class(class_name)
        return entry.snapshot()

    async def remove(self, breakpoint_id: str) -> None:
        """Clear exactly this breakpoint's requests. Removing it again is not an error.

        Raises:
            NotFound: this session never issued the ID.
        """
        entry = self._entries.pop(breakpoint_id, None)
        if entry is None:
            number = self._ids.number(breakpoint_id, "bp")
            if number is not None and number <= self._issued:
                return  # removed before
            raise NotFound(f"breakpoint {breakpoint_id!r} was not set in this session")
        await self._clear_requests(entry)
        if entry.status != "rejected":
            await self._unwatch_class(entry.class_name)

    async def on_class_prepare(self, event: ClassPrepareEvent) -> list[Breakpoint]:
        """Bind waiting breakpoints in a class just loaded; return those whose status changed."""
        name = binary_name_of(event.signature)
        changed = []
        for entry in list(self._entries.values()):
            if entry.class_name != name or entry.status == "rejected":
                continue
            if event.type_id in entry.bound_types:
                continue
            before = (entry.status, len(entry.locations))
            await self._bind(entry, [event.type_id])
            if (entry.status, len(entry.locations)) != before:
                changed.append(entry.snapshot())
            if entry.rejected():
                await self._unwatch_class(name)
        return changed

    async def clear_all(self) -> list[str]:
        """Clear every request we made (for detach), in one round trip; return what could not be cleared."""
        clears = [partial(self._clear_requests, entry) for entry in self._entries.values()]
        clears += [partial(self._clear, EventKind.CLASS_PREPARE, request_id, f"class-prepare request for {name}")
                   for name, (request_id, _) in self._prepare.items()]
        self._entries.clear()
        self._prepare.clear()
        self._prepare_ids.clear()
        return [what for failures in await gather(clears) for what in failures]

    # --- binding -----------------------------------------------------------------------------------

    async def _bind(self, entry: _Entry, types: list[ReferenceTypeId]) -> None:
        loaders = (await gather([partial(self._symbols.prefetch_classes, types),
                                 *(partial(self._symbols.class_loader, t) for t in types)]))[1:]
        methods = {t: await self._symbols.methods(t) for t in types}
        await self._symbols.prefetch_lines((t, m) for t in types for m in methods[t])
        any_table = False
        targets: list[tuple[int, int, Location]] = []
        for type_id, loader in zip(types, loaders, strict=True):
            entry.bound_types.add(type_id)
            for method_id in methods[type_id]:
                table = await self._symbols.line_table(type_id, MethodId(method_id))
                if table is None:
                    continue
                any_table = any_table or bool(table.lines)
                for line_entry in table.lines:
                    if line_entry.line_number == entry.line:
                        location = Location(TypeTag.CLASS, type_id, MethodId(method_id), line_entry.line_code_index)
                        targets.append((type_id, loader, location))
        targets = list(dict.fromkeys(targets))
        if not targets:
            if not entry.locations:
                why = (f"line {entry.line} of {entry.class_name} has no code" if any_table else
                       f"{entry.class_name} has no line table (compiled without -g?)")
                entry.status = "rejected"
                entry.reason = Reason(LOCATION_UNAVAILABLE, why)
            return
        request_ids = await gather([
            partial(self._vm.event_request.set, EventKind.BREAKPOINT, SuspendPolicy.ALL, [LocationOnly(loc)])
            for _, _, loc in targets])
        for (_, loader, location), request_id in zip(targets, request_ids, strict=True):
            entry.requests[request_id] = location
            self._by_request[request_id] = entry.breakpoint_id
            position = self._symbols.position(location)
            entry.locations.append(BoundLocation(position.class_name, position.method, position.source,
                                                 entry.line, location.index, f"{loader:#x}",
                                                 truncated_names=position.truncated_names))
        entry.status = "verified"
        entry.reason = None

    async def _watch_class(self, name: str) -> None:
        if name in self._prepare:
            request_id, users = self._prepare[name]
            self._prepare[name] = (request_id, users + 1)
            return
        request_id = await self._vm.event_request.set(EventKind.CLASS_PREPARE, SuspendPolicy.ALL, [ClassMatch(name)])
        self._prepare[name] = (request_id, 1)
        self._prepare_ids.add(request_id)

    async def _unwatch_class(self, name: str) -> None:
        if name not in self._prepare:
            return
        request_id, users = self._prepare[name]
        if users > 1:
            self._prepare[name] = (request_id, users - 1)
            return
        del self._prepare[name]
        self._prepare_ids.discard(request_id)
        await self._clear(EventKind.CLASS_PREPARE, request_id, f"class-prepare request for {name}")

    async def _clear_requests(self, entry: _Entry) -> list[str]:
        """Clear the breakpoint's requests (one round trip for all its locations)."""
        requests = list(entry.requests)
        entry.requests.clear()
        for request_id in requests:
            self._by_request.pop(request_id, None)
        what = f"breakpoint request of {entry.breakpoint_id}"
        failures = await gather([partial(self._clear, EventKind.BREAKPOINT, request_id, what)
                                 for request_id in requests])
        return [failure for listed in failures for failure in listed]

    async def _clear(self, kind: EventKind, request_id: int, what: str) -> list[str]:
        try:
            await self._vm.event_request.clear(kind, request_id)
        except ConnectionClosed:
            return [what]
        except CommandError as exc:
            log.debug("clearing %s: %s", what, exc)
        return []
