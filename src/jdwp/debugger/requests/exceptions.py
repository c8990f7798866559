"""Exception breakpoints: stop where a throwable of a class (and its subclasses) is thrown, caught or not.

Layer: ``jdwp.debugger`` (trio, via ``jdwp.client``). DESIGN.md §7.1 (``set_debugger_exception_breakpoint``).

One ``EventRequest.Set(EXCEPTION, ALL, ExceptionOnly(refType, caught, uncaught))`` (15,1; modKind 8) per
loaded class of that name — one per class loader that loaded it — or one with refType 0 for every
throwable. The VM decides what matches (the class and its subclasses; caught means a Java catch clause
will handle it). A class that is not loaded yet is *pending*: a class-prepare request on its exact name
(shared with line breakpoints through :class:`.prepares.PrepareRequests`) binds it when it loads, in every
loader that loads it later too. The class-prepare request is made before the loaded classes are asked,
so no class loads unseen between the two.

The exception of a stop (:func:`describe_thrown`) is read without running app code: its runtime class
(``ObjectReference.ReferenceType`` 9,1), ``Throwable.detailMessage`` through ``ObjectReference.GetValues``
(9,2) and the string's text, and the throw and catch locations.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable
from functools import partial

from ...client import JdwpClient
from ...protocol.commands.events import ClassMatch, ClassPrepareEvent, ExceptionEvent, ExceptionOnly
from ...protocol.constants import ClassStatus, EventKind, SuspendPolicy, TypeTag
from ...protocol.errors import CommandError
from ...protocol.types import Location, ObjectId, ReferenceTypeId
from .._gather import gather
from ..classes.symbols import Symbols
from ..errors import InvalidArgument
from ..model import ExceptionBreakpoint, SourcePosition, ThrownException
from ..names import binary_name_of, is_binary_name, signature_of
from ..reading.objects import Layouts
from ..reading.values import Values
from .capture import Capture, CapturePlan, plan_capture
from .prepares import ClearRequest, PrepareRequests, Watch, clear_requests

__all__ = ["ExceptionBreakpoints", "ExceptionRequest", "describe_thrown", "exception_request"]

log = logging.getLogger("jdwp.debugger")

_THROWABLE = "java.lang.Throwable"


@dataclasses.dataclass(frozen=True, slots=True)
class ExceptionRequest:
    """What an exception breakpoint asks for, checked (:func:`exception_request`)."""

    exception_class: str | None
    caught: bool
    uncaught: bool
    capture: CapturePlan | None = None


def exception_request(exception_class: str | None = None, caught: bool = False,
                      uncaught: bool = True, capture: Capture | None = None) -> ExceptionRequest:
    """Check an exception breakpoint's inputs.

    Raises:
        InvalidArgument: not a binary class name, a flag that is not a bool, or neither caught nor uncaught.
    """
    if exception_class is not None and (not isinstance(exception_class, str) or not is_binary_name(exception_class)):
        raise InvalidArgument(f"exceptionClass {exception_class!r} is not a binary class name like "
                              "java.lang.IllegalStateException or com.example.Outer$Failure")
    if not isinstance(caught, bool) or not isinstance(uncaught, bool):
        raise InvalidArgument("caught and uncaught must be true or false")
    if not caught and not uncaught:
        raise InvalidArgument("caught and uncaught are both false: such a breakpoint never stops; set caught: true, "
                              "uncaught: true, or both")
    return ExceptionRequest(exception_class, caught, uncaught, plan_capture(capture) if capture is not None else None)


@dataclasses.dataclass
class _Entry:
    breakpoint_id: str
    request: ExceptionRequest
    status: str = "pending"
    requests: list[int] = dataclasses.field(default_factory=list)  # JDWP exception request IDs
    bound_types: set[int] = dataclasses.field(default_factory=set)
    watch: Watch | None = None

    def snapshot(self) -> ExceptionBreakpoint:
        r = self.request
        return ExceptionBreakpoint(self.breakpoint_id, r.exception_class, r.caught, r.uncaught,
                                   "verified" if self.status == "verified" else "pending",
                                   r.capture.capture if r.capture is not None else None)


class ExceptionBreakpoints:
    """The exception breakpoints of one session. IDs and the limit are the session's breakpoints' own
    (``reserve`` issues an ID or raises ``LimitReached``)."""

    def __init__(self, vm: JdwpClient, prepares: PrepareRequests, reserve: Callable[[], str]) -> None:
        self._vm = vm
        self._prepares = prepares
        self._reserve = reserve
        self._entries: dict[str, _Entry] = {}
        self._by_request: dict[int, str] = {}

    def __len__(self) -> int:
        return len(self._entries)

    def all(self) -> list[ExceptionBreakpoint]:
        return [e.snapshot() for e in self._entries.values()]

    def owns(self, breakpoint_id: str) -> bool:
        return breakpoint_id in self._entries

    def owner_of(self, request_id: int) -> str | None:
        """The breakpoint ID behind a JDWP exception request ID."""
        return self._by_request.get(request_id)

    def capture_of(self, breakpoint_id: str) -> CapturePlan | None:
        entry = self._entries.get(breakpoint_id)
        return entry.request.capture if entry is not None else None

    async def add(self, request: ExceptionRequest) -> ExceptionBreakpoint:
        """Set an exception breakpoint: ``verified`` once bound (at once for every throwable), else ``pending``.

        Raises:
            LimitReached: the session holds 100 breakpoints already. Nothing is changed.
        """
        entry = _Entry(self._reserve(), request)
        self._entries[entry.breakpoint_id] = entry
        name = request.exception_class
        if name is None:
            await self._bind(entry, ReferenceTypeId(0))
            return entry.snapshot()
        entry.watch = (ClassMatch(name),)
        await self._prepares.watch(entry.watch)
        loaded = await self._vm.classes_by_signature(signature_of(name))
        for ref in loaded:
            if ref.status & ClassStatus.PREPARED and ref.ref_type_tag != TypeTag.ARRAY:
                await self._bind(entry, ref.type_id)
        return entry.snapshot()

    async def remove(self, breakpoint_id: str) -> list[str]:
        """Clear one exception breakpoint's requests; returns what could not be cleared."""
        entry = self._entries.pop(breakpoint_id)
        failures = await self._clear(entry)
        if entry.watch is not None:
            failures += await clear_requests(self._vm, self._prepares.drop(entry.watch))
        return failures

    async def on_class_prepare(self, event: ClassPrepareEvent) -> list[ExceptionBreakpoint]:
        """Bind pending or armed breakpoints on the class just loaded; return those that became verified."""
        if event.ref_type_tag == TypeTag.ARRAY:
            return []
        name = binary_name_of(event.signature)
        changed = []
        for entry in list(self._entries.values()):
            if entry.request.exception_class != name or event.type_id in entry.bound_types:
                continue
            before = entry.status
            await self._bind(entry, event.type_id)
            if entry.status != before:
                changed.append(entry.snapshot())
        return changed

    def take_all(self) -> list[ClearRequest]:
        """Forget every exception request and return them to clear (detach; class-prepare requests are the
        caller's)."""
        taken = [request for entry in self._entries.values() for request in self._take(entry)]
        self._entries.clear()
        return taken

    async def _bind(self, entry: _Entry, ref: ReferenceTypeId) -> None:
        entry.bound_types.add(ref)
        r = entry.request
        request_id = await self._vm.event_request.set(EventKind.EXCEPTION, SuspendPolicy.ALL,
                                                      [ExceptionOnly(ref, r.caught, r.uncaught)])
        entry.requests.append(request_id)
        self._by_request[request_id] = entry.breakpoint_id
        entry.status = "verified"

    async def _clear(self, entry: _Entry) -> list[str]:
        return await clear_requests(self._vm, self._take(entry))

    def _take(self, entry: _Entry) -> list[ClearRequest]:
        """Forget one exception breakpoint's requests and return them to clear."""
        taken = [ClearRequest(EventKind.EXCEPTION, request_id, f"exception request of {entry.breakpoint_id}")
                 for request_id in entry.requests]
        for request_id in entry.requests:
            self._by_request.pop(request_id, None)
        entry.requests.clear()
        return taken


async def describe_thrown(values: Values, layouts: Layouts, symbols: Symbols,
                          event: ExceptionEvent) -> ThrownException:
    """The exception of an exception event: type, message, handle and locations, in three round trips at most.

    The message is the ``detailMessage`` field declared by ``java.lang.Throwable`` (OpenJDK and Android's
    libcore both have it); ``getMessage()`` is never called, so an override of it is not seen. A VM that
    will not read the field gives no message rather than no stop: the stop matters more than its text.
    """
    handle = values.handle(event.exception)
    locations = [event.location] + ([event.catch_location] if _caught(event.catch_location) else [])
    type_id, positions = await gather([partial(values.type_id, handle), partial(symbols.describe, locations)])
    chain = await layouts.chain(type_id)
    field = Layouts.find(chain, "detailMessage", _THROWABLE)
    message = None
    if field is not None:
        wire, _ = values.resolve(handle)
        try:
            (value,) = await values.vm.object_reference.get_values(ObjectId(wire), [field.field_id])
            (message,) = await values.summarize([value])
        except CommandError as exc:
            log.info("reading the message of exception %s: %s", handle, exc)
    throw: SourcePosition | None = positions[0]
    catch = positions[1] if len(positions) > 1 else None
    text = message.value if message is not None and message.kind == "string" else None
    return ThrownException(chain[0].name, text, handle, throw, catch,
                           truncated=bool(message and message.truncated),
                           length=message.length if message is not None and message.truncated else None)


def _caught(location: Location) -> bool:
    return location.class_id != 0
