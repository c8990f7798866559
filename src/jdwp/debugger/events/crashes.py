"""Judging exception events by where the throwable will be caught: coroutine crashes count as uncaught.

Layer: ``jdwp.debugger`` (trio, via ``jdwp.client``). docs/design.md §3.11; the requests are
:mod:`..requests.exceptions`' (an uncaught-only breakpoint's *crash watch* asks for caught throwables too).

The VM's catch location decides (``Event.Exception``'s ``catchLocation``, 64,100 kind 4):

- no catch: uncaught, as the VM says;
- a handler in coroutine machinery (:func:`..classes.coroutine_machinery.is_machinery`): the coroutine dies of
  it, so it counts as uncaught — unless it is a ``CancellationException`` (a coroutine cancelled: counts as
  caught, as the machinery treats it);
- a handler anywhere else: caught by the app. A crash watch lets the thread go on at once (the engine
  releases the event's ``EVENT_THREAD`` suspension without waiting); such events cost one signature lookup
  per catching class for the session, and no round trip after that.

A crash travels: the state machine of each suspend caller throws the same object again
(``kotlin.ResultKt.throwOnFailure``), and ``runBlocking`` throws it once more to its caller
(``BlockingCoroutine.joinBlocking``, where the VM calls it uncaught). Once a throwable stopped as a crash,
throws of the same object stop no more for uncaught breakpoints: the stop showed where it came from.
"""

from __future__ import annotations

import dataclasses
from collections import OrderedDict

from ...protocol.commands.events import ExceptionEvent
from ...protocol.types import ReferenceTypeId
from ..classes.coroutine_machinery import is_machinery
from ..classes.symbols import Symbols
from ..names import binary_name_of
from ..reading.objects import Layouts
from ..reading.values import Values
from ..requests.exceptions import ExceptionBreakpoints, is_cancellation

__all__ = ["Crashes", "Thrown"]

REMEMBERED = 256  # crashes stopped for, by object: their re-throws on the way out stop no more


@dataclasses.dataclass(frozen=True, slots=True)
class Thrown:
    """One exception event of ours in an event set: whose, and whether it came from a crash watch."""

    breakpoint_id: str
    event: ExceptionEvent
    crash_watch: bool


class Crashes:
    """The exception events of one session, judged by their catch location (one per :class:`.eventsets.EventSets`)."""

    def __init__(self, symbols: Symbols, values: Values, layouts: Layouts, exceptions: ExceptionBreakpoints) -> None:
        self._symbols = symbols
        self._values = values
        self._layouts = layouts
        self._exceptions = exceptions
        self._shown: OrderedDict[int, None] = OrderedDict()

    async def stops(self, thrown: Thrown) -> bool:
        """Whether the event makes its breakpoint stop.

        Raises:
            JdwpError: the VM did not name the catching class or the throwable's class.
        """
        request = self._exceptions.request_of(thrown.breakpoint_id)
        if request is None:  # removed while the event was on its way
            return False
        event = thrown.event
        key = event.exception.value  # the throwable's object ID: a re-throw is the same object
        assert isinstance(key, int)
        shown = key in self._shown
        catch = event.catch_location
        if catch.class_id == 0:  # uncaught, the VM says
            return request.uncaught and not shown
        name = binary_name_of(await self._symbols.signatures.get(ReferenceTypeId(catch.class_id)))
        if not is_machinery(name):
            return not thrown.crash_watch and request.caught
        if shown:
            return False
        if await self._cancelled(event):
            return not thrown.crash_watch and request.caught
        if not request.uncaught:  # a crash counts as uncaught: a caught-only breakpoint does not stop for it
            return False
        self._shown[key] = None
        while len(self._shown) > REMEMBERED:
            self._shown.popitem(last=False)
        return True

    async def _cancelled(self, event: ExceptionEvent) -> bool:
        handle = self._values.handle(event.exception)
        chain = await self._layouts.chain(await self._values.type_id(handle))
        return is_cancellation(chain)
