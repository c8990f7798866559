"""A request kind: what every kind of JDWP event request of ours says about its events, written once.

Layer: ``jdwp.debugger``; pure (no trio, no wire). JDI gives every request kind one ``EventRequestImpl`` under
one ``EventRequestManager``; here every kind is a peer on :class:`RequestKind`, held by one manager
(:class:`.manager.Requests`, whose table lists them):

- what its events mean (:meth:`RequestKind.meaning`): the event classes it reads (``EVENTS``) and, for one
  event of a request of its own, the :class:`Meaning` an event set gets from it (the manager asks the kinds
  in its table's order; :meth:`..events.eventsets.EventSets.classify` asks the manager);
- what it hands to detach: ``take_all()``, every request of it to clear, in one write with the others'.

The breakpoint kinds (line, method, field, exception) share one lifecycle besides: :mod:`.breakpoint_kind`.
The step kind is :mod:`.steps`, the class-prepare kind :mod:`.prepares`.
"""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar

from ...protocol.types import FieldId, ReferenceTypeId
from ...protocol.values import Value
from ..model import StopReason
from .library_steps import StepInFlight

__all__ = ["Meaning", "RequestKind", "WatchedField"]


@dataclasses.dataclass(frozen=True, slots=True)
class WatchedField:
    """A field a request watches: its declaring class, its ID, JNI signature and whether it is static."""

    declaring: ReferenceTypeId
    field_id: FieldId
    name: str
    signature: str
    static: bool
    owner: str  # the declaring class's binary name

@dataclasses.dataclass(frozen=True, slots=True)
class Meaning:
    """What one event of a request of ours means to the event set it came in."""

    reason: StopReason | None  # None: it makes no stop of its own (a class prepare, to bind breakpoints)
    breakpoint_id: str | None = None
    step: StepInFlight | None = None  # the step it completes
    resumed: bool = False  # ... by its resume breakpoint: its coroutine resumed (:mod:`.steps`)
    crash_watch: bool = False  # an exception breakpoint's crash watch (judged by the catch location)
    field: WatchedField | None = None  # the field a watchpoint's event is of
    returned: tuple[Value, str] | None = None  # a method exit's value and the method's return type
    prepare: bool = False  # a class prepare of a class-prepare request of ours


class RequestKind:
    """A kind of event request of ours: the events it reads, and what they mean."""

    #: The event record classes (:mod:`jdwp.protocol.commands.events`) whose meaning this kind may tell.
    EVENTS: ClassVar[tuple[type, ...]] = ()

    def meaning(self, event: Any) -> Meaning | None:
        """What ``event`` (of one of :attr:`EVENTS`) means, when it is of a request of this kind."""
        raise NotImplementedError
