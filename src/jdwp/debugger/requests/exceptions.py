"""Exception breakpoints: stop where a throwable of a class (and its subclasses) is thrown, caught or not.

Layer: ``jdwp.debugger`` (trio, via ``jdwp.client``). docs/design.md §3.2 (``set_debugger_exception_breakpoint``).

One ``EventRequest.Set(EXCEPTION, ALL, ExceptionOnly(refType, caught, uncaught))`` (15,1; modKind 8) per
loaded class of that name — one per class loader that loaded it; for every throwable, the one of
``java.lang.Throwable`` (not refType 0, which the spec allows: no request of ours is without a class, thread,
location or instance). The VM decides what matches (the class and its subclasses; caught means a Java catch clause
will handle it). A class that is not loaded yet is *pending*: a class-prepare request on its exact name
(shared with line breakpoints through :class:`.prepares.PrepareRequests`) binds it when it loads, in every
loader that loads it later too. The class-prepare request is made before the loaded classes are asked,
so no class loads unseen between the two. A disabled one (:meth:`ExceptionBreakpoints.update`) has none of
its requests, exception or class-prepare; enabled again, it binds as when it was set.

Coroutine crashes (docs/design.md §3.11): a throwable that only coroutine machinery catches
(:mod:`..classes.coroutine_machinery`) counts as uncaught, but the VM calls it caught and an uncaught-only
request never hears of it. So a breakpoint for uncaught throwables also asks for caught ones of its class —
a *crash watch*: ``ExceptionOnly(refType, caught=true, uncaught=false)`` with ``EVENT_THREAD`` — judged by
the catch location's class (:mod:`..events.crashes`): machinery stops, anything else lets the thread go on
at once. JDWP filters exception events by the throw location only (``ClassMatch``/``LocationOnly`` apply to
it, JDWP spec of ``EventRequest.Set``), and a coroutine can crash on a throw anywhere (a JDK parse, the app's
own class), so the filter that is possible is *when*: the watch is made only once
``kotlin.coroutines.jvm.internal.BaseContinuationImpl`` is loaded (a class-prepare request on its name, or
found loaded). Before that no coroutine can run, and an app without coroutines pays nothing. ART reports
caught exceptions with their catch location as HotSpot does (``can_generate_exception_events`` is 1 in its
``kPotentialCapabilities``, ``openjdkjvmti/art_jvmti.h``).

The exception of a stop (:func:`describe_thrown`) is read without running app code: its runtime class
(``ObjectReference.ReferenceType`` 9,1), ``Throwable.detailMessage`` through ``ObjectReference.GetValues``
(9,2) and the string's text, and the throw and catch locations.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable, Sequence
from functools import partial

from ...client import JdwpClient
from ...protocol.commands.events import ClassMatch, ClassPrepareEvent, ExceptionEvent, ExceptionOnly
from ...protocol.constants import ClassStatus, EventKind, SuspendPolicy, TypeTag
from ...protocol.errors import CommandError
from ...protocol.types import Location, ObjectId, ReferenceTypeId
from .._gather import gather
from ..classes.coroutine_machinery import BASE_CONTINUATION, CANCELLATION, is_machinery
from ..classes.symbols import Symbols
from ..errors import InvalidArgument
from ..model import ExceptionBreakpoint, SourcePosition, ThrownException
from ..names import binary_name_of, is_binary_name, signature_of
from ..reading.objects import ClassInfo, Layouts
from ..reading.values import Values
from .breakpoint_kind import BreakpointKind, Entry, Owners
from .capture import Capture, CapturePlan, plan_capture
from .kind import Meaning
from .prepares import ClearRequest, PrepareRequests, Watch

__all__ = ["ExceptionBreakpoints", "ExceptionRequest", "describe_thrown", "exception_request", "is_cancellation"]

log = logging.getLogger("jdwp.debugger")

_THROWABLE = "java.lang.Throwable"


def _class_of(entry: _Entry) -> str:
    """The class an entry's requests name: its own, or ``java.lang.Throwable`` for every throwable — the
    same events as ``ExceptionOnly`` with refType 0, but a request that names its class (docs/reliability.md,
    "Event requests")."""
    return entry.request.exception_class or _THROWABLE
_COROUTINES: Watch = (ClassMatch(BASE_CONTINUATION),)


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


@dataclasses.dataclass(kw_only=True)
class _Entry(Entry):
    request: ExceptionRequest

    @property
    def watches_crashes(self) -> bool:
        """Whether it stops for coroutine crashes the VM calls caught: uncaught-only (caught ones stop anyway)."""
        return self.request.uncaught and not self.request.caught


class ExceptionBreakpoints(BreakpointKind[_Entry, ExceptionBreakpoint]):
    """The exception breakpoints of one session. IDs and the limit are the session's breakpoints' own
    (``reserve`` issues an ID or raises ``LimitReached``)."""

    EVENTS = (ExceptionEvent,)
    TAKES_OPTIONS, WHAT = False, "an exception breakpoint"

    def __init__(self, vm: JdwpClient, prepares: PrepareRequests, reserve: Callable[[], str], owners: Owners) -> None:
        super().__init__(vm, prepares, reserve, owners)
        self._crash_watches: set[int] = set()
        self._coroutines = False  # BaseContinuationImpl is loaded: crash watches are made
        self._watching_coroutines = False  # our class-prepare request on it is made

    def meaning(self, event: ExceptionEvent) -> Meaning | None:
        """A throw an exception breakpoint of ours asked for: stop reason ``exception`` (a crash watch's is
        judged by its catch location first, :mod:`..events.crashes`)."""
        entry = self.entry_of(event.request_id)
        if entry is None:
            return None
        return Meaning("exception", entry.breakpoint_id, crash_watch=event.request_id in self._crash_watches)

    def _snapshot(self, entry: _Entry) -> ExceptionBreakpoint:
        r = entry.request
        return ExceptionBreakpoint(entry.breakpoint_id, r.exception_class, r.caught, r.uncaught,
                                   "disabled" if not entry.enabled else
                                   "verified" if entry.state == "verified" else "pending",
                                   r.capture.capture if r.capture is not None else None)

    def request_of(self, breakpoint_id: str) -> ExceptionRequest | None:
        entry = self._entries.get(breakpoint_id)
        return entry.request if entry is not None else None

    def capture_of(self, breakpoint_id: str) -> CapturePlan | None:
        entry = self._entries.get(breakpoint_id)
        return entry.request.capture if entry is not None else None

    async def add(self, request: ExceptionRequest) -> ExceptionBreakpoint:
        """Set an exception breakpoint: ``verified`` once bound (at once for every throwable), else ``pending``.

        Raises:
            LimitReached: the session holds 100 breakpoints already. Nothing is changed.
        """
        return await self._hold(_Entry(self._reserve(), request=request))

    async def _arm(self, entry: _Entry) -> None:
        """Watch for the class, then bind in every loaded class of that name (at once for every throwable)."""
        if entry.watches_crashes:
            await self._follow_coroutines()
        name = _class_of(entry)
        watch = (ClassMatch(name),)
        await self._prepares.watch(watch)
        entry.watches.append(watch)
        loaded = await self._vm.classes_by_signature(signature_of(name))
        for ref in loaded:
            if ref.status & ClassStatus.PREPARED and ref.ref_type_tag != TypeTag.ARRAY:
                await self._bind(entry, ref.type_id)

    def _rearms(self, entry: _Entry, changed: bool, policy_before: int) -> bool:
        return False

    def _forget(self, entry: _Entry) -> list[ClearRequest]:
        """The last breakpoint that watches crashes gives up the watch for coroutines."""
        if self._watching_coroutines and not any(e.watches_crashes and e.enabled for e in self._entries.values()
                                                 if e is not entry):
            self._watching_coroutines = self._coroutines = False
            return self._prepares.drop(_COROUTINES)
        return []

    async def on_class_prepare(self, event: ClassPrepareEvent) -> list[ExceptionBreakpoint]:
        """Bind pending or armed breakpoints on the class just loaded; return those that became verified."""
        if event.ref_type_tag == TypeTag.ARRAY:
            return []
        name = binary_name_of(event.signature)
        if name == BASE_CONTINUATION and self._watching_coroutines and not self._coroutines:
            await self._coroutines_loaded()
        changed = []
        for entry in list(self._entries.values()):
            if not entry.live or _class_of(entry) != name or event.type_id in entry.bound_types:
                continue
            before = entry.state
            await self._bind(entry, event.type_id)
            if entry.state != before:
                changed.append(self._snapshot(entry))
        return changed

    def take_all(self) -> list[ClearRequest]:
        """Forget every exception request and return them to clear (detach; class-prepare requests are the
        manager's)."""
        self._watching_coroutines = self._coroutines = False
        return super().take_all()

    async def _follow_coroutines(self) -> None:
        """Watch for coroutines once: a class-prepare request on ``BaseContinuationImpl``, then whether it
        is loaded already (after the request, so that it cannot load unseen in between)."""
        if self._watching_coroutines:
            return
        await self._prepares.watch(_COROUTINES)
        self._watching_coroutines = True
        loaded = await self._vm.classes_by_signature(signature_of(BASE_CONTINUATION))
        if any(ref.status & ClassStatus.PREPARED for ref in loaded):
            await self._coroutines_loaded()

    async def _coroutines_loaded(self) -> None:
        """Coroutines can run from now on: every breakpoint that watches crashes gets its watches."""
        self._coroutines = True
        for entry in list(self._entries.values()):
            if entry.watches_crashes:
                for ref in sorted(entry.bound_types):
                    await self._watch_crashes(entry, ReferenceTypeId(ref))

    async def _bind(self, entry: _Entry, ref: ReferenceTypeId) -> None:
        entry.bound_types.add(ref)
        r = entry.request
        request_id = await self._vm.event_request.set(EventKind.EXCEPTION, SuspendPolicy.ALL,
                                                      [ExceptionOnly(ref, r.caught, r.uncaught)])
        self._made(entry, request_id, EventKind.EXCEPTION)
        entry.move("bound")
        if entry.watches_crashes and self._coroutines:
            await self._watch_crashes(entry, ref)

    async def _watch_crashes(self, entry: _Entry, ref: ReferenceTypeId) -> None:
        """The crash watch of one bound class: its caught throwables, holding only the throwing thread while
        they are judged (most are caught by the app and let go at once)."""
        request_id = await self._vm.event_request.set(EventKind.EXCEPTION, SuspendPolicy.EVENT_THREAD,
                                                      [ExceptionOnly(ref, True, False)])
        self._made(entry, request_id, EventKind.EXCEPTION)
        self._crash_watches.add(request_id)

    def _take(self, entry: _Entry) -> list[ClearRequest]:
        self._crash_watches.difference_update(entry.requests)
        return super()._take(entry)


CRASH_NOTE = ("only coroutine machinery catches it ({catch}): it ends the coroutine that threw it, and goes to "
              "whoever awaits that coroutine (the app's thread dies of it, or its exception handler gets it, unless "
              "an awaiting caller catches it)")


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
    crash = catch is not None and is_machinery(catch.class_name) and not is_cancellation(chain)
    return ThrownException(chain[0].name, text, handle, throw, catch,
                           truncated=bool(message and message.truncated),
                           length=message.length if message is not None and message.truncated else None,
                           crashes_coroutine=crash,
                           note=CRASH_NOTE.format(catch=f"{catch.class_name}.{catch.method}") if crash and catch
                           else None)


def is_cancellation(chain: Sequence[ClassInfo]) -> bool:
    """Whether a throwable's class chain (its class first) is a ``CancellationException``: a coroutine being
    cancelled, which is how coroutines end normally, not a crash."""
    return any(info.name == CANCELLATION for info in chain)


def _caught(location: Location) -> bool:
    return location.class_id != 0
