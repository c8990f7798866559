"""The read side of a stop: stack, locals, objects, expressions and threads, as of the current stop.

Layer: ``jdwp.debugger`` on ``jdwp.client``; no MCP, no ``android``. docs/design.md §3.6–3.7 (stack, locals), §3.7–3.8
(objects, containers, expressions) and §3.9 (threads). Held by :class:`.engine.Debugger`, which hands its
read methods here; it is given the session (:mod:`.reading.session`) and the stops (:mod:`.stops`) it reads.

Inspection takes no lock: a read is checked against the current stop when it starts, and what it learns
(frame IDs, stack depths, thread names) is kept only if that stop is still current when it ends; what its
readers find that holds for the stop (scans, previews) is kept in the stop's cache (:mod:`.reading.stop_cache`).
Nothing of the app runs unless the session's ``allow_invoke`` is set and an expression calls a method (or a coroutine's
``@DebugMetadata`` is asked of the stdlib: :mod:`.reading.coroutine_metadata`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from functools import partial

import trio

from ._gather import Once
from .errors import DebuggerError, EvaluationFailed, InvalidArgument, Unsupported
from .events.stops import Stops, StopState
from .model import AsyncStack, Evaluated, Locals, StackPage
from .reading.async_stacks import continuation_frame, read_async_stack, start_of
from .reading.containers import read_container
from .reading.continuations import is_continuation
from .reading.coroutine_metadata import Invoker, MetadataSources
from .reading.diagnosis import Diagnosis, diagnose
from .reading.evaluations import MAX_EXPRESSIONS, evaluate_each
from .reading.expressions import Expr, parse_expression
from .reading.expressions.collections import Computed
from .reading.expressions.context import FrameContext
from .reading.expressions.evaluator import Evaluator
from .reading.frames import FrameRef, frame_locals, stack_page
from .reading.invoke import Invocation, refresh_frames
from .reading.mutation import find_element, find_field, find_in_frame, write
from .reading.objects import ObjectPage, read_object
from .reading.session import Session
from .reading.stop_cache import reading_at
from .reading.threads import MAX_DEPTH, Threads, ThreadsPage
from .reading.values import Summary, previewing, stale_on_collected

__all__ = ["EVALUATION_DEADLINE", "Inspection"]

EVALUATION_DEADLINE = 2.0  # docs/design.md §6


class Inspection:
    """Reading a stopped VM: the read methods of :class:`.engine.Debugger` (``stack``, ``locals``,
    ``object``, ``evaluate``, ``threads``), written apart from its control methods; the engine holds one."""

    def __init__(self, session: Session, stops: Stops, coroutines: MetadataSources) -> None:
        self.vm, self.symbols, self.values, self._layouts = session.vm, session.symbols, session.values, session.layouts
        self._calls, self._gate, self._options, self._stops = session.calls, session.gate, session.options, stops
        self._threads = Threads(session.vm, session.symbols, session.values)
        #: Where coroutines' ``@DebugMetadata`` comes from besides invocation (:mod:`.reading.coroutine_metadata`).
        self.coroutines = coroutines

    def _stop_for(self, stop_id: str) -> StopState:
        self._gate.check_open()
        return self._stops.resolve(stop_id)

    async def stack(self, stop_id: str, thread_id: str | None = None, offset: int = 0, limit: int = 20, *,
                    async_frames: bool = True) -> StackPage:
        """Frames ``offset`` … ``offset+limit-1`` of a stopped thread (``total`` is capped at 1000); without
        ``thread_id``, of the stop's own thread.

        A first page (``offset`` 0) with suspend code on it has ``async_frames``: its coroutine's
        continuations and the coroutine (:mod:`.async_stacks`), read from fields; the metadata that names
        their lines and variables is invoked in the VM only when the session's ``allow_invoke`` is set. ``async_frames``
        False leaves them out (a caller that wants locations only, e.g. the doctor).

        Raises:
            StaleReference, NotFound, NotPaused: the IDs are not of the current stop.
            InvalidArgument: ``offset`` < 0 or ``limit`` outside 1..100; no ``thread_id`` at a stop without a
                thread of its own (a pause).
        """
        if offset < 0 or not 1 <= limit <= 100:
            raise InvalidArgument("offset must be >= 0 and limit between 1 and 100")
        state = self._stop_for(stop_id)
        thread_id = self._stops.thread_handle(state, thread_id)
        thread = self._stops.thread_for(state, thread_id)
        page, handles, count = await stack_page(self.vm, self.symbols, thread, offset, limit,
                                                f"{thread_id}.f{{}}", state.frame_counts.get(thread))
        if self._stops.current is state:
            state.frames.update(handles)
            state.frame_counts[thread] = count  # a suspended thread's stack does not change
        if offset == 0 and async_frames:
            found = await self._async_stack(state, list(dict.fromkeys(handles.values())))
            if found is not None:
                page = dataclasses.replace(page, async_frames=found)
        return page

    def _coroutine_invoker(self, state: StopState) -> Invoker | None:
        """Where the metadata may be invoked: with invocation allowed, on the stop's event thread (JDWP runs
        methods only there: not at a pause), when no earlier call still runs on it."""
        thread = state.suspension.thread
        if not self._options.allow_invoke or "pause" in state.stop.reasons or thread in self._calls.running:
            return None
        return Invoker(self._calls, state.stop.stop_id, thread)

    @asynccontextmanager
    async def _metadata_calls(self, state: StopState) -> AsyncIterator[Invoker | None]:
        """The invoker of one coroutine read (or ``None``); after it, if it ran code, the stop's hash tables
        are read anew and the event thread's frames too (a thread that ran a method has new frame IDs)."""
        invoker = self._coroutine_invoker(state)
        made = self._calls.made
        try:
            yield invoker
        finally:
            if invoker is not None and self._calls.made != made:
                state.cache.forget("scan")
                await refresh_frames(self.vm, state.frames, invoker.thread)

    async def _async_stack(self, state: StopState, refs: list[FrameRef]) -> AsyncStack | None:
        start = await start_of(self.vm, self.symbols, refs)
        if start is None:
            return None
        with reading_at(state.cache):
            async with self._metadata_calls(state) as invoker:
                return await read_async_stack(self.values, self._layouts, self.coroutines, start, invoker)

    async def locals(self, stop_id: str, frame_id: str) -> Locals:
        """The frame's live local variables (at most 100) and ``this``; values only on this request.

        Raises:
            StaleReference, NotFound, NotPaused: the IDs are not of the current stop.
        """
        state = self._stop_for(stop_id)
        ref = state.frames.get(frame_id)
        if ref is None:
            self._stops.raise_for_handle(state, frame_id, "frame")
        return await self._locals_of(state, frame_id, ref)

    async def _locals_of(self, state: StopState, frame_id: str, ref: FrameRef) -> Locals:
        found = state.locals.get(frame_id)
        if found is None:
            with previewing(self._options.preview_depth), reading_at(state.cache):
                found = state.locals[frame_id] = await frame_locals(self.vm, self.symbols, ref, self.values)
        return found

    async def object(self, stop_id: str, object_id: str, offset: int = 0, limit: int | None = None,
                     view: str = "auto", depth: int = 1) -> ObjectPage:
        """A page of an object's fields, an array's elements or a string's text, as of the current stop.

        ``limit`` defaults to 50 fields, 100 elements or 8192 UTF-16 units (at most 200, 1000, 65,536).
        ``depth``: 0, the values listed have no previews; 1 (default), each listed object and array (a field's,
        an element's, an entry's key and value) has its preview (:mod:`.previews`); 2, inside those previews
        the objects show their own previews too, instead of a short class name. Nothing of the app runs:
        fields are read, never methods called. A coroutine's continuation also
        shows ``continuation``: its suspension point and its spilled variables by name (:mod:`.async_stacks`;
        with the session's ``allow_invoke``, the metadata is invoked in the VM).

        Raises:
            StaleReference, NotFound, NotPaused: ``stop_id`` is not the current stop; ``object_id`` is not
                a handle of this session, or its object was collected (StaleReference).
            InvalidArgument: a bad view, offset, limit or depth.
        """
        _check_depth(depth)
        state = self._stop_for(stop_id)
        with reading_at(state.cache):
            with previewing(depth), stale_on_collected(object_id):
                page = await read_object(self.values, self._layouts, object_id, offset, limit, view, read_container)
            type_id = self.values.known_type(object_id) if page.kind == "object" else None
            chain = self._layouts.known_chain(type_id) if type_id is not None else None
            if page.view == "fields" and chain is not None and is_continuation(chain):
                async with self._metadata_calls(state) as invoker:
                    frame = await continuation_frame(self.values, self._layouts, self.coroutines,
                                                     self.values.value_of(object_id), invoker)
                page = dataclasses.replace(page, continuation=frame)
        return page

    async def evaluate(self, stop_id: str, frame_id: str | None, expression: str,
                       depth: int = 0) -> Summary | Computed | ObjectPage:
        """The value of a read-only expression (docs/design.md §3.8) in the frame, as of the current stop.

        ``frame_id`` ``None``: frame 0 of the stop's thread (``Stop.frame_id``). ``depth`` 0: its summary (an
        object's preview); 1 or 2: an object or array result is answered as :meth:`object`'s first page with that
        ``depth`` (its fields, elements or entries). A list a collection operation made is a ``Computed``.

        Nothing of the app runs: locals, fields, statics and elements are read; method calls are refused
        unless the session's ``allow_invoke`` is set (then they run on the stop's event thread: :mod:`.invoke`).
        The whole evaluation has a deadline of :data:`EVALUATION_DEADLINE` seconds.

        Raises:
            ExpressionSyntaxError: (an ``InvalidArgument``) the text does not parse; it has the column.
            EvaluationFailed: it parsed but cannot be evaluated here (unknown name, null dereference, index
                out of range, type mismatch, a method call, or past the deadline).
            StaleReference, NotFound, NotPaused: the IDs are not of the current stop, or an object it read
                was collected.
        """
        _check_depth(depth)
        state = self._stop_for(stop_id)
        frame_id, ref = self._frame_of(state, frame_id)
        tree = parse_expression(expression)
        context, made = self._context(state, frame_id, ref)
        try:
            with trio.move_on_after(EVALUATION_DEADLINE) as scope, previewing(self._options.preview_depth), \
                    reading_at(state.cache):
                found = await Evaluator(self.values, self._layouts, context).summary(tree)
        finally:
            await self._after_calls(state, ref, made)
        if not scope.cancelled_caught:
            return await self._expanded(stop_id, found, depth)
        self._calls.check_returned(ref.thread)
        assert scope.cancelled_caught
        raise EvaluationFailed(f"the evaluation took longer than {EVALUATION_DEADLINE:g} s and was abandoned; "
                               "nothing was changed (try a simpler expression)")

    async def set_value(self, stop_id: str, value: str, *, frame_id: str | None = None, object_id: str | None = None,
                        name: str | None = None, index: int | None = None) -> Summary:
        """Set a local (``frame_id`` + ``name``; a field of the frame's ``this`` or a static of its class when no
        local has that name), a field (``object_id`` + ``name``, instance or static) or an array element
        (``object_id`` + ``index``) to ``value``, a literal or an ``object_id`` (:mod:`.mutation`), as of the
        current stop. Only when the session's ``allow_mutation`` is set. Returns the new value's summary.

        Raises:
            Unsupported: mutation is not allowed in this session.
            InvalidArgument: a bad combination, an unknown name, a value out of range or of the wrong type;
                nothing was written.
            StaleReference, NotFound, NotPaused: the IDs are not of the current stop or session.
        """
        if not self._options.allow_mutation:
            raise Unsupported("setting values is off: set the debugger's allow_mutation to True to allow "
                              "Debugger.set_value() (it changes the app's state)")
        state = self._stop_for(stop_id)
        if (frame_id is None) == (object_id is None):
            raise InvalidArgument("give exactly one of frame_id (a local) or object_id (a field or an element)")
        if (name is None) == (index is None) or (frame_id is not None and name is None):
            raise InvalidArgument("give name (a local or a field) or, with an array's object_id, index (an element)")
        if frame_id is not None:
            ref = state.frames.get(frame_id)
            if ref is None:
                self._stops.raise_for_handle(state, frame_id, "frame")
            place = await find_in_frame(self.values, self._layouts, ref, name)  # type: ignore[arg-type]
        elif index is not None:
            place = await find_element(self.values, object_id, index)  # type: ignore[arg-type]
        else:
            place = await find_field(self.values, self._layouts, object_id, name)  # type: ignore[arg-type]
        try:
            with reading_at(state.cache):
                return await write(self.values, place, value)
        finally:
            state.locals.clear()  # what was read of the stop's frames may hold the old value

    async def _expanded(self, stop_id: str, found: Summary | Computed, depth: int) -> Summary | Computed | ObjectPage:
        """An object or array result as :meth:`object`'s first page (``depth`` ≥ 1), else as it is."""
        if depth == 0 or not isinstance(found, Summary) or found.object_id is None or found.thrown is not None or (
                found.kind not in ("object", "array")):
            return found
        return await self.object(stop_id, found.object_id, depth=depth)

    async def evaluate_each(self, stop_id: str, frame_id: str | None, expressions: Sequence[str],
                            depth: int = 0) -> list[Evaluated]:
        """Several expressions in one frame (``None``: frame 0 of the stop's thread), in one pass that shares
        their reads (:mod:`.reading.evaluations`): each its value or its own error (a syntax error is that
        item's ``INVALID_ARGUMENT``), in order. Each has the deadline :meth:`evaluate` has; one that ran out
        of time waiting for a method it called is that item's error (the method goes on, as there).

        Raises:
            InvalidArgument: no expressions, or more than 20; no ``frame_id`` for a stop without a thread.
            StaleReference, NotFound, NotPaused: the IDs are not of the current stop.
        """
        if not 1 <= len(expressions) <= MAX_EXPRESSIONS:
            raise InvalidArgument(f"expressions takes 1 to {MAX_EXPRESSIONS} expressions, got {len(expressions)}")
        _check_depth(depth)
        state = self._stop_for(stop_id)
        frame_id, ref = self._frame_of(state, frame_id)
        items: list[tuple[str, Expr | DebuggerError]] = []
        for text in expressions:
            try:
                items.append((text, parse_expression(text)))
            except InvalidArgument as exc:
                items.append((text, exc))
        context, made = self._context(state, frame_id, ref)
        try:
            with previewing(self._options.preview_depth), reading_at(state.cache):
                results = await evaluate_each(self.values, self._layouts, context, items, EVALUATION_DEADLINE)
        finally:
            await self._after_calls(state, ref, made)
        if depth == 0:
            return results
        return [dataclasses.replace(item, value=await self._expanded(stop_id, item.value, depth))
                if item.value is not None else item for item in results]

    def _context(self, state: StopState, frame_id: str, ref: FrameRef) -> tuple[FrameContext, int]:
        """The frame an evaluation runs in (its locals read once, however many expressions ask), and the
        count of methods called so far (:meth:`_after_calls`).

        Raises:
            EvaluationFailed: a method an earlier evaluation called still runs on the frame's thread.
        """
        self._calls.check_free(ref.thread)
        invocation = Invocation.on(self._calls, state.stop.stop_id, ref.thread, state.suspension.thread,
                                   state.stop.reasons) if self._options.allow_invoke else None
        read_locals = Once(partial(self._locals_of, state, frame_id, ref))
        return FrameContext(ref.location.class_id, read_locals, invocation), self._calls.made

    async def _after_calls(self, state: StopState, ref: FrameRef, made: int) -> None:
        if self._calls.made != made:
            state.cache.forget()  # app code ran: a table read before, a field previewed, may have changed
            await refresh_frames(self.vm, state.frames, ref.thread)

    def _frame_of(self, state: StopState, frame_id: str | None) -> tuple[str, FrameRef]:
        """A frame of the current stop by its ID; ``None`` is frame 0 of the stop's thread."""
        if frame_id is None:
            frame_id = state.stop.frame_id
            if frame_id is None:
                raise InvalidArgument("this stop has no frame of its own (a pause, or a thread with no frames): give "
                                      "frame_id, from Debugger.threads() or Debugger.stack()")
        ref = state.frames.get(frame_id)
        if ref is None:
            self._stops.raise_for_handle(state, frame_id, "frame")
        return frame_id, ref

    async def threads(self, stop_id: str | None = None, stack_depth: int = 0) -> ThreadsPage:
        """Every thread (at most 1000): name, status, suspended, group; with the current ``stop_id`` also
        stop-scoped thread IDs (for stack, locals and step), ``stack_depth`` top frames (at most 50),
        monitors and ``deadlocks`` (:mod:`.threads`).

        Raises:
            InvalidArgument: ``stack_depth`` outside 0..50, or given without ``stop_id``.
            StaleReference, NotFound, NotPaused: ``stop_id`` is not the current stop.
        """
        if not 0 <= stack_depth <= MAX_DEPTH or (stack_depth and stop_id is None):
            raise InvalidArgument(f"stack_depth must be between 0 and {MAX_DEPTH}, and needs a stop_id (frames of "
                                  "running threads cannot be read)")
        if stop_id is None:
            self._gate.check_open()
            return (await self._threads.listing()).page
        state = self._stop_for(stop_id)
        with previewing(self._options.preview_depth), reading_at(state.cache):  # the monitors' previews
            listing = await self._threads.listing(stop_id, stack_depth)
        if self._stops.current is state:  # the stop lasted: what it listed is valid while it lasts
            for handle, thread in listing.threads.items():
                state.threads.setdefault(handle, thread)
            state.names.update(listing.names)
            state.frames.update(listing.frames)
            state.frame_counts.update(listing.frame_counts)
        return listing.page

    async def diagnosis(self, stop_id: str, system_threads: bool = False) -> Diagnosis:
        """What a freeze needs in one read, at a stop (a pause's): the app's threads with status, top frame,
        monitors owned and waited for (with previews) and the deadlocks; the VM's own threads counted, and
        listed when ``system_threads`` (:mod:`.diagnosis`). Bounded as :meth:`threads` is.

        Raises:
            StaleReference, NotFound, NotPaused: ``stop_id`` is not the current stop.
        """
        return diagnose(await self.threads(stop_id, 1), system_threads)


def _check_depth(depth: int) -> None:
    if depth not in (0, 1, 2):
        raise InvalidArgument(f"depth must be 0, 1 or 2, not {depth}")
