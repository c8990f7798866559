"""Method tracing at a high rate: every call and return in the classes asked for, with arguments and
return values, for as long as the caller reads them.

Layer: ``jdwp`` on trio (via :class:`jdwp.JdwpClient`); no engine, no caps. The MCP server's logpoints
are bounded for agents (a hit budget, a rate); this path is for programs that want every call.

    async with jdwp.open_jdwp_tcp("127.0.0.1", 5005) as vm, jdwp.open_tracer(vm, ["com.example.*"]) as calls:
        async for event in calls:
            print(event)          # → com.example.Shop.add(item="pear", count=2)   ← com.example.Shop.add = true

How: one ``MethodEntry`` request (40) per class pattern, suspending only the event's thread while its
arguments are read, and one ``MethodExitWithReturnValue`` request (42) that suspends nothing — the return
value travels in the event. An entry usually costs one round trip: the top frame (``ThreadReference.Frames``
11,6) and its values (``StackFrame.GetValues`` 16,1, of the frame ID the thread's last ones predict) in one
write (:meth:`jdwp.JdwpClient.request_all`), then ``ThreadReference.Resume`` (11,3) sent without waiting
for its reply. The release waits for the values: sent in the same write after them, OpenJDK 17's agent
answered ``INVALID_FRAMEID`` to about one GetValues in 150, for the very frame ID Frames had just confirmed,
and the thread had run on, its arguments lost (measured on the benchmark's ``Shop``, 2026-12-07). JDI's
``frame(0).getArgumentValues()`` then ``EventSet.resume()`` takes three round trips.
Method names, signatures and argument slots are read once per method and kept.

The tracer reads the client's event stream (:meth:`jdwp.JdwpClient.receive_event`): while it runs, no
one else should; event sets of other requests are resumed as their suspend policy needs and dropped.
"""

from __future__ import annotations

import collections
import dataclasses
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any, Literal

import trio

from .client import JdwpClient
from .mirrors.arguments import MAX_LAYOUTS, Argument, ArgumentLayout
from .protocol.commands import Empty, EventRequest, StackFrame, ThreadReference, VirtualMachine
from .protocol.commands.events import (
    ClassExclude,
    ClassMatch,
    Composite,
    MethodEntryEvent,
    MethodExitEvent,
    MethodExitWithReturnValueEvent,
    Modifier,
)
from .protocol.commands.threads import FrameGetValuesOut, FramesOut, SlotRequest, ThreadOut
from .protocol.constants import ErrorCode, EventKind, SuspendPolicy
from .protocol.errors import CommandError, ConnectionClosed, JdwpError
from .protocol.types import FrameId, Location, ReferenceTypeId, ThreadId
from .protocol.values import Value
from .signatures import binary_name_of

__all__ = ["TraceEvent", "Tracer", "open_tracer"]


@dataclasses.dataclass(frozen=True, slots=True)
class TraceEvent:
    """A call (``kind == "call"``, with ``arguments``) or a return (``"return"``, with ``value``).

    Attributes:
        thread: the thread that made the call.
        class_name: the method's class, as ``Class.getName()`` writes it.
        method, signature: the method's name and JNI signature.
        location: where the event happened (a call: the method's first index; a return: where it returned).
        arguments: a call's arguments (empty when the tracer was asked for none, or the method has none).
        value: a return's value (``VOID`` for a void method; ``None`` when return values were not asked
            for or the VM cannot tell them).
    """

    kind: Literal["call", "return"]
    thread: ThreadId
    class_name: str
    method: str
    signature: str
    location: Location
    arguments: tuple[Argument, ...] = ()
    value: Value | None = None

    def __str__(self) -> str:
        if self.kind == "call":
            shown = ", ".join(f"{a.name}={_text(a.value)}" for a in self.arguments)
            return f"→ {self.class_name}.{self.method}({shown})"
        return f"← {self.class_name}.{self.method}" + ("" if self.value is None else f" = {_text(self.value)}")


def _text(value: Value) -> str:
    if value.is_object:
        return "null" if value.is_null else f"<{value.tag.name.lower()} #{value.value}>"
    return "void" if value.value is None else repr(value.value)


class Tracer:
    """Trace events, in the order the VM sent them (per thread, calls and returns nest). Iterate it with
    ``async for`` (it ends when the connection does); :meth:`statistics` counts what was seen.

    Event sets are read and handled in the iterating task itself, when it asks for the next event: no task
    and no channel between the VM and the reader, which is what a high event rate pays for. A thread that
    hit an entry waits (suspended) until its arguments are read, so a reader that stops iterating for a
    while holds the traced threads there, and the VM's other events queue in the client.
    """

    def __init__(self, vm: JdwpClient, requests: set[int], *, arguments: bool) -> None:
        self._vm = vm
        self._requests = requests
        self._arguments = arguments
        self._ready: collections.deque[TraceEvent] = collections.deque()
        self._classes: dict[ReferenceTypeId, str] = {}
        self._methods: dict[tuple[int, int], _Method] = {}
        self._frames = _FrameSteps()
        self._counts = {"calls": 0, "returns": 0, "argument_errors": 0, "other_events": 0, "resume_errors": 0,
                        "frame_guesses_missed": 0}

    def statistics(self) -> dict[str, int]:
        """Calls and returns seen, entries whose arguments could not be read, other events dropped, resumes
        the VM refused, and entries whose frame ID was not the one guessed (a second round trip)."""
        return dict(self._counts)

    def __aiter__(self) -> Tracer:
        return self

    async def __anext__(self) -> TraceEvent:
        try:
            return await self.receive()
        except ConnectionClosed:
            raise StopAsyncIteration from None

    async def receive(self) -> TraceEvent:
        """The next trace event.

        Raises:
            ConnectionClosed: the connection ended (the VM exited or was disposed).
        """
        while not self._ready:
            await self._handle(await self._vm.receive_event())
        return self._ready.popleft()

    async def _handle(self, composite: Composite) -> None:
        requests = self._requests
        policy = composite.suspend_policy
        # The usual set, one entry whose thread waits: released as soon as its arguments are in, before
        # anything else is done with them.
        release_early = policy == SuspendPolicy.EVENT_THREAD and len(composite.events) == 1
        suspended: ThreadId | None = None
        for event in composite.events:
            if isinstance(event, MethodEntryEvent) and event.request_id in requests:
                self._counts["calls"] += 1
                arguments = await self._read_arguments(event) if self._arguments else ()
                if release_early:
                    await self._release(event.thread)
                else:
                    suspended = event.thread
                self._ready.append(await self._event("call", event.thread, event.location, arguments, None))
            elif isinstance(event, MethodExitWithReturnValueEvent | MethodExitEvent) and event.request_id in requests:
                self._counts["returns"] += 1
                value = event.value if isinstance(event, MethodExitWithReturnValueEvent) else None
                suspended = event.thread
                self._ready.append(await self._event("return", event.thread, event.location, (), value))
            else:
                self._counts["other_events"] += 1
                suspended = getattr(event, "thread", suspended)
        if policy == SuspendPolicy.ALL:
            await self._vm.send(VirtualMachine.Resume, Empty(), on_error=self._resume_failed)
        elif policy == SuspendPolicy.EVENT_THREAD and suspended is not None and not release_early:
            await self._release(suspended)

    async def _release(self, thread: ThreadId) -> None:
        # Not waited for: the next event is not held up by the reply (a thread that ended meanwhile
        # answers INVALID_THREAD, which changes nothing here).
        await self._vm.send(ThreadReference.Resume, ThreadOut(thread), on_error=self._resume_failed)

    def _resume_failed(self, error: JdwpError) -> None:
        if not isinstance(error, CommandError) or error.code not in (ErrorCode.INVALID_THREAD,
                                                                     ErrorCode.THREAD_NOT_SUSPENDED):
            self._counts["resume_errors"] += 1

    async def _read_arguments(self, event: MethodEntryEvent) -> tuple[Argument, ...]:
        """The entry's arguments, read while its thread is suspended (its event set is resumed after).

        The top frame's ID comes from ``ThreadReference.Frames``; the values need it. A thread's frame IDs
        usually advance by a constant step from one suspension to the next (HotSpot's carry a count of the
        thread's resumptions), so the values are asked in the same write as the frame, of the frame ID that
        step predicts: when the frame's ID is the one predicted, one round trip gave both. When not (the
        first calls of a thread, another VM's IDs) the values are asked again of the real frame; an answer
        about a predicted ID that was wrong is never used (a read of a wrong frame changes nothing).
        """
        vm = self._vm
        thread, location = event.thread, event.location
        try:
            method = self._methods.get((location.class_id, location.method_id)) or await self._method(location)
        except (CommandError, ValueError):
            self._counts["argument_errors"] += 1
            return ()
        layout, slots = method.layout, method.slots
        if not slots:
            return ()
        predicted = self._frames.predict(thread)
        asked: list[tuple[Any, Any]] = [(ThreadReference.Frames, FramesOut(thread, 0, 1))]
        if predicted is not None:
            asked.append((StackFrame.GetValues, FrameGetValuesOut(thread, FrameId(predicted), slots)))
        answers = await vm.request_all(asked)
        frames = answers[0]
        if isinstance(frames, JdwpError) or not frames.frames:
            self._counts["argument_errors"] += 1  # the thread died meanwhile
            return ()
        frame_id = frames.frames[0].frame_id
        self._frames.learn(thread, frame_id)
        guessed = answers[1] if predicted == frame_id else None
        if guessed is not None and not isinstance(guessed, JdwpError):
            values: list[Value] = guessed.values
        else:
            self._counts["frame_guesses_missed"] += 1
            try:
                values = await vm.stack_frame.get_values(thread, frame_id, slots)
            except CommandError:
                self._counts["argument_errors"] += 1  # a native frame (OPAQUE_FRAME)
                return ()
        return tuple(Argument(name, sig, value)
                     for name, sig, value in zip(layout.names, layout.signatures, values, strict=True))

    async def _event(self, kind: Literal["call", "return"], thread: ThreadId, location: Location,
                     arguments: tuple[Argument, ...], value: Value | None) -> TraceEvent:
        method = self._methods.get((location.class_id, location.method_id)) or await self._method(location)
        return TraceEvent(kind, thread, method.class_name, method.layout.method, method.layout.signature, location,
                          arguments, value)

    async def _method(self, location: Location) -> _Method:
        """What the events of a method need of it, read once and kept: a traced method is called again and
        again, and a dictionary look-up per event costs less than the awaits of reading it from the caches.

        Raises:
            CommandError, ValueError: as :meth:`jdwp.mirrors.arguments.ArgumentReader.argument_layout`.
        """
        layout = await self._vm.stack_frame.argument_layout(location.class_id, location.method_id)
        class_name = self._classes.get(location.class_id)
        if class_name is None:
            class_name = binary_name_of(await self._vm.reference_type.signature(location.class_id))
            self._classes[location.class_id] = class_name
        if len(self._methods) >= MAX_LAYOUTS:
            self._methods.clear()
        method = self._methods[(location.class_id, location.method_id)] = _Method(class_name, layout,
                                                                                  layout.requests())
        return method


@dataclasses.dataclass(frozen=True, slots=True)
class _Method:
    """A traced method: its class's name, where its arguments are, and the ``StackFrame.GetValues`` slots that
    read them (one list shared by every call's request; nothing changes it)."""

    class_name: str
    layout: ArgumentLayout
    slots: list[SlotRequest]


class _FrameSteps:
    """Per thread, its last top frame ID and the step between its last two: the guess of the next one."""

    LIMIT = 4096  # threads remembered; past it the table starts again

    def __init__(self) -> None:
        self._last: dict[int, tuple[int, int | None]] = {}

    def predict(self, thread: ThreadId) -> int | None:
        known = self._last.get(thread)
        if known is None or known[1] is None:
            return None
        guess = known[0] + known[1]
        return guess if 0 < guess < 1 << 63 else None

    def learn(self, thread: ThreadId, frame_id: int) -> None:
        known = self._last.get(thread)
        if known is None and len(self._last) >= self.LIMIT:
            self._last.clear()
        self._last[thread] = (frame_id, None if known is None else frame_id - known[0])


@asynccontextmanager
async def open_tracer(vm: JdwpClient, classes: Sequence[str], *, exclude: Sequence[str] = (),
                      arguments: bool = True, return_values: bool = True) -> AsyncIterator[Tracer]:
    """Trace calls and returns of methods of ``classes`` (``ClassMatch`` patterns: ``com.example.*``,
    ``*.Shop``, exact names) for the duration of the block; the requests are cleared when it ends.

    Args:
        vm: the client; the tracer reads its events while it runs.
        classes: class patterns to trace (one request each); ``exclude``: patterns to leave out.
        arguments: read each call's arguments (the calling thread waits two round trips); without them
            nothing is suspended.
        return_values: ask for return values (``MethodExitWithReturnValue``, JDWP 1.6+); a VM without
            them gives returns without values.

    Raises:
        CommandError: the VM refused a request (``NOT_IMPLEMENTED`` on a VM without method events).
    """
    requests: list[tuple[EventKind, int]] = []
    entry_policy = SuspendPolicy.EVENT_THREAD if arguments else SuspendPolicy.NONE
    excluded: list[Modifier] = [ClassExclude(pattern) for pattern in exclude]
    try:
        for pattern in classes:
            modifiers: list[Modifier] = [ClassMatch(pattern), *excluded]
            requests.append((EventKind.METHOD_ENTRY,
                             await vm.event_request.set(EventKind.METHOD_ENTRY, entry_policy, modifiers)))
            requests.append(await _set_exit(vm, modifiers, return_values))
        yield Tracer(vm, {request_id for _, request_id in requests}, arguments=arguments)
    finally:
        with trio.CancelScope(shield=True):
            await _clear(vm, requests)


async def _set_exit(vm: JdwpClient, modifiers: list[Modifier], return_values: bool) -> tuple[EventKind, int]:
    if return_values:
        try:
            kind = EventKind.METHOD_EXIT_WITH_RETURN_VALUE
            return kind, await vm.event_request.set(kind, SuspendPolicy.NONE, modifiers)
        except CommandError as exc:
            if exc.code not in (ErrorCode.NOT_IMPLEMENTED, ErrorCode.INVALID_EVENT_TYPE):
                raise
    return EventKind.METHOD_EXIT, await vm.event_request.set(EventKind.METHOD_EXIT, SuspendPolicy.NONE, modifiers)


async def _clear(vm: JdwpClient, requests: list[tuple[EventKind, int]]) -> None:
    """Clear the tracer's requests; one the VM already dropped is no error worth raising at the end."""
    if vm.is_closed or not requests:
        return
    await vm.request_all([(EventRequest.Clear, EventRequest.Clear.out(int(kind), request_id))
                          for kind, request_id in requests])
