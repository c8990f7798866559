"""Guessing the ID frame 0 of a thread will have at its next hit, so a judged hit (or a stop's capture) reads its
locals in the same round trip as its frames.

Layer: ``jdwp.debugger``; pure (no I/O).

A breakpoint event names the thread and the location but not the frame, and ``StackFrame.GetValues`` (16,1)
needs the frame's ID: read plainly, a judged hit is ``ThreadReference.Frames`` (11,6), then GetValues, then the
release, three round trips while the thread waits. A hot loop's hits come from the same thread, and the VM
numbers its frames predictably: OpenJDK's back end, which ART's ``oj-libjdwp`` is, builds a frame ID as the
thread's *frame generation* shifted left by 16 bits, plus the frame's depth (``createFrameID`` in
``FrameID.c``), and the generation grows by one each time the thread is resumed. So frame 0's ID moves by the
same step from one hit of a thread to the next, and the next one can be guessed from the last two.

A guess is only ever used alongside the real answer: GetValues with the guessed ID goes out in the same write
as ``ThreadReference.Frames``, after it (a back end runs a connection's commands in order, and both run while
the thread stays suspended). The JDWP specification makes a frame ID unique in the whole VM while its thread is
suspended, so when Frames names the guessed ID, the values are frame 0's; when it names another, they are
dropped and read again with the real ID (:class:`~.frames.WrongFrameGuess`): a wrong guess costs what no guess
costs. Nothing here depends on the ID layout above; it only makes the guess right on the VMs we meet.
"""

from __future__ import annotations

from collections import OrderedDict

THREADS_KEPT = 256  # the threads whose last frame IDs are kept (the least recently hit are forgotten)


class FrameGuesses:
    """Frame 0's ID at each thread's last two hits, and from them a guess at its next one."""

    def __init__(self, kept: int = THREADS_KEPT) -> None:
        self._kept = kept
        self._seen: OrderedDict[int, tuple[int, int | None]] = OrderedDict()  # thread → (last ID, step)

    def guess(self, thread: int) -> int | None:
        """The ID frame 0 of ``thread`` likely has now, or ``None`` before two hits of the thread were seen."""
        last, step = self._seen.get(thread, (0, None))
        return None if step is None else last + step

    def saw(self, thread: int, frame_id: int) -> None:
        """Frame 0 of ``thread`` has ID ``frame_id`` at this hit (the answer of ``ThreadReference.Frames``).

        The ID seen last, told again, is the same hit told twice (a judged hit that then stops, and its stop):
        it changes nothing, so that the step stays the one between two hits.
        """
        if self._seen.get(thread, (None,))[0] == frame_id:
            return
        seen = self._seen.pop(thread, None)
        self._seen[thread] = (frame_id, None if seen is None else frame_id - seen[0])
        if len(self._seen) > self._kept:
            self._seen.popitem(last=False)
