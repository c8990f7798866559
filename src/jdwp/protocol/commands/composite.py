"""Command set 64, Event: ``Event.Composite`` and its hand-framed decoder.

Layer: ``jdwp.protocol`` (sans-IO). Spec: "Event Command Set (64)"; the records are in :mod:`.events`.

The VM sends a composite for every event set, so decoding one is on the hot path of every stop and step.
The construct spec (``spec_of(Composite)``) stays the definition; :func:`_read_composite` reads the same
bytes faster and must return equal objects (``tests/unit/test_fast.py`` checks it with hypothesis). The
common events (breakpoint, step, method entry/exit, thread start/death, class prepare) are read with one
``struct`` unpack each, precompiled for the VM's ID widths; a composite of one such event is a single
unpack of the whole body, or none when the same bytes came lately (see :class:`_Shapes`).
"""

from __future__ import annotations

import struct
from collections.abc import Callable

from .. import fast
from .._frozen import maker
from ..constants import EventKind
from ..strings import decode_string
from ..types import IdSizes, Location
from ..values import read_tagged
from ._base import Command, Empty
from .events import (
    AnyEvent,
    BreakpointEvent,
    ClassPrepareEvent,
    ClassUnloadEvent,
    Composite,
    ExceptionEvent,
    FieldAccessEvent,
    FieldModificationEvent,
    MethodEntryEvent,
    MethodExitEvent,
    MethodExitWithReturnValueEvent,
    MonitorContendedEnteredEvent,
    MonitorContendedEnterEvent,
    MonitorWaitedEvent,
    MonitorWaitEvent,
    SingleStepEvent,
    ThreadDeathEvent,
    ThreadStartEvent,
    VMDeathEvent,
    VMStartEvent,
)

__all__ = ["EventCommands"]


#: How many single-event composites each ID-width table remembers before it starts afresh.
_REMEMBERED = 1024


class _Shapes:
    """The ``struct`` layouts of the common event shapes for one VM's ID widths, and the events seen lately.

    Most composites hold one event, and a session's events repeat: a breakpoint hit in a loop by the same
    thread, method entry and exit, the threads of a pool starting. Events are frozen values, so the event
    of a composite holding one common event is remembered by the composite's bytes: the same bytes again
    cost a dict lookup and a new composite (its own list) instead of an unpack and two more records.
    The table is bounded: when full it starts afresh.
    """

    __slots__ = ("class_prepare", "located", "one_located", "one_thread", "seen", "thread")

    def __init__(self, sizes: IdSizes) -> None:
        thread = ">i" + fast.id_format(sizes.object_id_size)
        location = "B" + fast.id_format(sizes.reference_type_id_size) + fast.id_format(sizes.method_id_size) + "Q"
        #: request, thread, location: breakpoint, step, method entry and exit (after the kind byte).
        self.located = struct.Struct(thread + location)
        #: request, thread: thread start and death, VM start.
        self.thread = struct.Struct(thread)
        #: request, thread, type tag, type ID, signature length: the head of a class prepare.
        self.class_prepare = struct.Struct(thread + "B" + fast.id_format(sizes.reference_type_id_size) + "i")
        #: Whole bodies of one event: suspend policy, count, kind, then a located or a thread-only event.
        self.one_located = struct.Struct(">BiB" + thread[1:] + location)
        self.one_thread = struct.Struct(">BiB" + thread[1:])
        #: The event of each single-event composite seen lately, by the composite's bytes.
        self.seen: dict[bytes, AnyEvent] = {}


_SHAPES = fast.PerSizes(_Shapes)
_INT = struct.Struct(">i")


def _read_composite(body: bytes, sizes: IdSizes) -> Composite:
    """Hand-framed ``Event.Composite``: the same result as ``spec_of(Composite)``, faster.

    A composite holding one breakpoint, step, method entry/exit, thread start/death or VM start event is
    a dict lookup if the same bytes came lately, else one unpack.
    """
    last = _SHAPES.last
    shapes = last[1] if last[0] is sizes else _SHAPES.get(sizes)
    if type(body) is not bytes:  # a bytearray or memoryview is no dict key
        body = bytes(body)
    seen = shapes.seen
    event = seen.get(body)
    if event is not None:
        return _make_composite(body[0], [event])
    size = len(body)
    if size == shapes.one_located.size:
        _, count, kind, request_id, thread, tag, class_id, method_id, index = shapes.one_located.unpack(body)
        make = _LOCATED[kind]
        if count == 1 and make is not None:
            event = make(request_id, thread, tag, class_id, method_id, index)
    elif size == shapes.one_thread.size:
        _, count, kind, request_id, thread = shapes.one_thread.unpack(body)
        make = _THREAD_ONLY[kind]
        if count == 1 and make is not None:
            event = make(request_id, thread)
    if event is None:
        return _read_events(body, sizes, shapes)
    if len(seen) >= _REMEMBERED:
        seen.clear()
    seen[body] = event
    return _make_composite(body[0], [event])


def _read_events(body: bytes, sizes: IdSizes, shapes: _Shapes) -> Composite:
    policy = body[0]
    (count,) = _INT.unpack_from(body, 1)
    if count < 0:
        raise ValueError(f"negative event count {count}")
    pos = 5
    events: list[AnyEvent] = []
    append = events.append
    located, thread_only, class_prepare = shapes.located, shapes.thread, shapes.class_prepare
    for _ in range(count):
        kind = body[pos]
        pos += 1
        make = _LOCATED[kind]
        if make is not None:
            request_id, thread, tag, class_id, method_id, index = located.unpack_from(body, pos)
            pos += located.size
            append(make(request_id, thread, tag, class_id, method_id, index))
        elif kind == EventKind.METHOD_EXIT_WITH_RETURN_VALUE:  # a tracer's every return
            fields = located.unpack_from(body, pos)
            value, pos = read_tagged(body, pos + located.size, sizes.object_id_size)
            append(_make_exit_with_value(*fields, value))
        elif kind == EventKind.CLASS_PREPARE:
            request_id, thread, ref_type_tag, type_id, length = class_prepare.unpack_from(body, pos)
            pos += class_prepare.size
            if length < 0 or pos + length > len(body):
                raise ValueError(f"a signature of {length} bytes at offset {pos} does not fit the packet")
            signature = decode_string(body[pos : pos + length])
            (status,) = _INT.unpack_from(body, pos + length)
            pos += length + 4
            append(_make_class_prepare(request_id, thread, ref_type_tag, type_id, signature, status))
        else:
            make_thread_only = _THREAD_ONLY[kind]
            if make_thread_only is not None:
                request_id, thread = thread_only.unpack_from(body, pos)
                pos += thread_only.size
                append(make_thread_only(request_id, thread))
            else:
                reader = fast.Reader(body, sizes)
                reader.pos = pos
                append(_read_rare_event(kind, reader))
                pos = reader.pos
    if pos != len(body):
        raise fast.TrailingBytes(len(body) - pos)
    return _make_composite(policy, events)


def _read_rare_event(kind: int, r: fast.Reader) -> AnyEvent:
    """The event kinds a debugger seldom asks for, read field by field."""
    request_id = r.i32()
    if kind == EventKind.VM_DEATH:
        return VMDeathEvent(request_id)
    if kind == EventKind.CLASS_UNLOAD:
        return ClassUnloadEvent(request_id, r.string())
    if kind == EventKind.EXCEPTION:
        return ExceptionEvent(request_id, r.object_id(), r.location(), r.tagged_object(), r.location())
    if kind == EventKind.METHOD_EXIT_WITH_RETURN_VALUE:
        return MethodExitWithReturnValueEvent(request_id, r.object_id(), r.location(), r.tagged())
    if kind in _MONITOR:
        thread, obj, loc = r.object_id(), r.tagged_object(), r.location()
        if kind == EventKind.MONITOR_WAIT:
            return MonitorWaitEvent(request_id, thread, obj, loc, r.i64())
        if kind == EventKind.MONITOR_WAITED:
            return MonitorWaitedEvent(request_id, thread, obj, loc, r.boolean())
        return _MONITOR[kind](request_id, thread, obj, loc)  # type: ignore[no-any-return]
    if kind in (EventKind.FIELD_ACCESS, EventKind.FIELD_MODIFICATION):
        fields = (request_id, r.object_id(), r.location(), r.byte(), r.reference_type_id(), r.field_id(),
                  r.tagged_object())
        if kind == EventKind.FIELD_ACCESS:
            return FieldAccessEvent(*fields)
        return FieldModificationEvent(*fields, r.tagged())
    raise ValueError(f"unknown event kind {kind}")


_LOCATED_CLASSES: dict[int, type] = {
    EventKind.BREAKPOINT: BreakpointEvent,
    EventKind.SINGLE_STEP: SingleStepEvent,
    EventKind.METHOD_ENTRY: MethodEntryEvent,
    EventKind.METHOD_EXIT: MethodExitEvent,
}
_THREAD_ONLY_CLASSES: dict[int, type] = {
    EventKind.VM_START: VMStartEvent,
    EventKind.THREAD_START: ThreadStartEvent,
    EventKind.THREAD_DEATH: ThreadDeathEvent,
}


def _by_kind(makers: dict[int, Callable[..., AnyEvent]]) -> tuple[Callable[..., AnyEvent] | None, ...]:
    """A table indexed by the kind byte (0-255): a tuple index costs less than a dict lookup."""
    return tuple(makers.get(kind) for kind in range(256))


#: Makers of events by kind, from their flat fields (request, thread and, if located, the location's four).
_LOCATED = _by_kind({kind: maker(cls, location=Location) for kind, cls in _LOCATED_CLASSES.items()})
_THREAD_ONLY = _by_kind({kind: maker(cls) for kind, cls in _THREAD_ONLY_CLASSES.items()})
_make_composite = maker(Composite)
_make_class_prepare = maker(ClassPrepareEvent)
_make_exit_with_value = maker(MethodExitWithReturnValueEvent, location=Location)
_MONITOR: dict[int, type] = {
    EventKind.MONITOR_CONTENDED_ENTER: MonitorContendedEnterEvent,
    EventKind.MONITOR_CONTENDED_ENTERED: MonitorContendedEnteredEvent,
    EventKind.MONITOR_WAIT: MonitorWaitEvent,
    EventKind.MONITOR_WAITED: MonitorWaitedEvent,
}


class EventCommands:
    """Command set 64 (``Event``): sent by the VM, never by us."""

    Composite = Command(64, 100, "Event.Composite", Composite, Empty, fast_out=_read_composite)
