"""Reading a stop's capture as the stop is made: its top frames, frame 0's locals and expressions.

Layer: ``jdwp.debugger`` (trio, via ``jdwp.client``). docs/design.md §3.5 ("Capture on stop"); what a capture asks
for is :mod:`..requests.capture`'s.

Every stop of a thread asks, with its first questions (:meth:`.eventsets.EventSets.stop_of`), the thread's
frame count and frame 0 (``ThreadReference.FrameCount`` 11,7 and ``Frames`` 11,6, in the same write as the
thread's name and the place's description): frame 0's ID is on every such stop (``frame_id``), so an agent
reads locals or evaluates without listing the stack first, and the stop costs no round trip more for it. A
capture's deeper frames go in that write too (``Frames`` from 1); a stack shorter than asked answers them
``INVALID_LENGTH``, and they are asked again, knowing the count, alongside the reads below.

Then, at once: the frames' places (class facts and line tables not cached yet, :func:`..reading.frames.describe_page`),
frame 0's locals (its variable table was asked with the first questions; then ``StackFrame.GetValues`` and
``ThisObject`` in one write, then the values' summaries), and the expressions, which share that one read of
the locals (:class:`.._gather.Once`) and each other's reads (:mod:`..reading.evaluations`). A part that
fails is the capture's ``error`` (an expression's failure is its own item's); the stop is made all the same.
"""

from __future__ import annotations

import dataclasses
from functools import partial
from typing import Any

from ...client import JdwpClient
from ...protocol.commands import ThreadReference
from ...protocol.commands.threads import FramesOut, ThreadOut
from ...protocol.errors import CommandError
from ...protocol.types import FrameId, Location, ThreadId
from .._gather import Once, gather
from ..classes.symbols import Symbols
from ..errors import DebuggerError
from ..model import Captured, ErrorInfo, Evaluated, Frame, Locals
from ..reading.evaluations import error_info, evaluate_each
from ..reading.expressions.context import FrameContext
from ..reading.frames import FrameRef, WrongFrameGuess, describe_page, frame_locals
from ..reading.session import Session
from ..reading.stop_cache import StopCache, reading_at
from ..reading.values import Values, previewing
from ..requests.capture import CapturePlan

__all__ = ["CaptureReader", "Top", "first_frames", "frame0", "guessed_locals", "locals_reader", "wants_locals"]


@dataclasses.dataclass(frozen=True, slots=True)
class Top:
    """What a stop learnt of its thread's stack with its first questions: the frame count (``None`` when the
    VM would not say), the frames read from the top, and whether deeper frames wanted are still to read."""

    count: int | None
    frames: tuple[Any, ...] = ()
    short: bool = False


async def first_frames(vm: JdwpClient, thread: ThreadId, wanted: int) -> Top:
    """``FrameCount``, frame 0, and (``wanted`` > 1) frames 1 … ``wanted``-1, in one write.

    Frame 0 is asked alone so that a stack shorter than ``wanted`` still answers it (JDWP fails a ``Frames``
    that runs past the bottom as a whole). A thread the VM will not describe gives what it answered.
    """
    if not thread:
        return Top(None)
    requests: list[tuple[Any, Any]] = [(ThreadReference.FrameCount, ThreadOut(thread)),
                                       (ThreadReference.Frames, FramesOut(thread, 0, 1))]
    if wanted > 1:
        requests.append((ThreadReference.Frames, FramesOut(thread, 1, wanted - 1)))
    count, top, *deeper = await vm.request_all(requests)
    if isinstance(count, CommandError):
        return Top(None)
    if isinstance(top, CommandError):  # no frames (a thread that has not run yet), or gone meanwhile
        return Top(count.frame_count)
    frames = tuple(top.frames)
    if deeper and not isinstance(deeper[0], CommandError):
        return Top(count.frame_count, frames + tuple(deeper[0].frames))
    return Top(count.frame_count, frames, short=bool(deeper) and count.frame_count > 1)


class CaptureReader:
    """What a capture reads with: the session's readers. Captured locals and expressions carry previews as
    get_debugger_locals' do, as deep as the session's ``preview_depth`` says."""

    def __init__(self, session: Session) -> None:
        self.vm = session.vm
        self.symbols = session.symbols
        self.values = session.values
        self.layouts = session.layouts
        self._options = session.options

    async def read(self, plan: CapturePlan, thread: ThreadId, top: Top, thread_handle: str, cache: StopCache,
                   locals_of: Once[Locals]) -> tuple[Captured, dict[str, FrameRef]]:
        """The capture of a stop whose thread's top is ``top``; ``locals_of`` reads frame 0's locals (shared
        with the stop, which keeps them). Returns it with the frame handles its frames issued.

        ``cache``: the stop's, which keeps what its reads find for its later reads (:mod:`..reading.stop_cache`).

        Raises:
            JdwpError: the connection failed or timed out (a VM's refusal of a part is that part's error).
        """
        capture = plan.capture
        if not top.frames:  # nothing to read in a thread with no frames
            return Captured(error=ErrorInfo("DEBUGGER_LOCATION_UNAVAILABLE", "the thread has no frames yet")), {}
        errors: list[ErrorInfo] = []

        async def stack() -> tuple[tuple[Frame, ...], dict[str, FrameRef]]:
            if capture.stack == 0:
                return (), {}
            try:
                return await self._stack(thread, top, thread_handle, capture.stack)
            except (DebuggerError, CommandError) as exc:
                errors.append(error_info(exc))
                return (), {}

        async def local_values() -> Locals | None:
            if not capture.locals:
                return None
            try:
                return await locals_of()
            except (DebuggerError, CommandError) as exc:
                errors.append(error_info(exc))
                return None

        async def expressions() -> list[Evaluated]:
            if not plan.trees:
                return []
            frame = FrameContext(top.frames[0].location.class_id, locals_of)
            return await evaluate_each(self.values, self.layouts, frame,
                                       list(zip(capture.expressions, plan.trees, strict=True)))

        with previewing(self._options.preview_depth), reading_at(cache):  # the gather's tasks inherit them
            (frames, handles), shown, evaluated = await gather([stack, local_values, expressions])
        return Captured(frames, shown, tuple(evaluated), errors[0] if errors else None), handles

    async def ahead(self, thread: ThreadId, location: Location, guess: int) -> Locals | None:
        """:func:`guessed_locals` for a stop being made, with the previews a capture's locals carry: the guess is
        read before the stop exists (in its first write), so the previews of the stop before are forgotten here
        (the app ran since) rather than at :meth:`read`; a guess read without them would be the stop's locals,
        kept for every later read of them, each object without its preview."""
        with previewing(self._options.preview_depth), reading_at(StopCache()):
            return await guessed_locals(self.vm, self.symbols, self.values, thread, location, guess)

    async def _stack(self, thread: ThreadId, top: Top, thread_handle: str, wanted: int,
                     ) -> tuple[tuple[Frame, ...], dict[str, FrameRef]]:
        raw = list(top.frames)
        count = top.count if top.count is not None else len(raw)
        if top.short:  # the stack is shorter than asked: the rest of it, now that its depth is known
            raw += await self.vm.thread_reference.frames(thread, 1, min(wanted, count) - 1)
        page, handles, _ = await describe_page(self.symbols, thread, raw, 0, wanted, count, f"{thread_handle}.f{{}}")
        return page.frames, handles


def frame0(thread: ThreadId, top: Top) -> FrameRef | None:
    """Frame 0 of a stopped thread, as its first questions found it."""
    return FrameRef(thread, top.frames[0].frame_id, top.frames[0].location) if top.frames else None


def locals_reader(vm: JdwpClient, symbols: Symbols, values: Values, ref: FrameRef) -> Once[Locals]:
    """Frame 0's locals as the tools show them, read once however many ask."""
    return Once(partial(frame_locals, vm, symbols, ref, values))


def wants_locals(plan: CapturePlan | None) -> bool:
    """Whether a capture reads frame 0's locals (asked for, or for its expressions' names)."""
    return plan is not None and (plan.capture.locals or bool(plan.trees))


async def guessed_locals(vm: JdwpClient, symbols: Symbols, values: Values, thread: ThreadId, location: Location,
                         guess: int) -> Locals | None:
    """Frame 0's locals read with a guess of its ID (:mod:`jdwp.frame_guess`), in the stop's first write:
    a thread that stops again and again at a breakpoint with a capture has frame 0's ID move by one step each
    time, so its locals need not wait for the first answer. Only when the method's variable table and class are
    known (every stop after the first there): otherwise the read would wait for them anyway. ``None``: the guess
    was wrong, or the VM refused (the stop reads them with the real ID, as without a guess).
    """
    if symbols.variables.known(location.class_id, location.method_id) is None or \
            symbols.signatures.known(location.class_id) is None:
        return None
    try:
        return await frame_locals(vm, symbols, FrameRef(thread, FrameId(guess), location), values, guessed=True)
    except (WrongFrameGuess, CommandError):
        return None
