"""Guessing the ID frame 0 of a thread will have at its next event, so that its locals are read without first
asking for its frames.

Layer: ``jdwp``; pure (no I/O). Used by the tracer (:mod:`jdwp.tracing`) and the debugger's judged hits and stops.

A breakpoint or method-entry event names the thread and the location but not the frame, and
``StackFrame.GetValues`` (16,1) needs the frame's ID: read plainly, a judged hit is ``ThreadReference.Frames``
(11,6), then GetValues, then the release, three round trips while the thread waits. A hot loop's events come
from the same threads, and the VM numbers their frames predictably: OpenJDK's back end, which ART's
``oj-libjdwp`` is, builds a frame ID as the thread's *frame generation* shifted left by 16 bits, plus the
frame's depth (``createFrameID`` in ``FrameID.c``), and the generation grows by one each time the thread is
resumed (``resumeThreadByNode`` in ``threadControl.c``). So frame 0's ID moves by the same step from one event
of a thread to the next, and the next one can be guessed from the last two. An event let go without its frame
read (:meth:`FrameGuesses.passed`: the tracer's entry of a method without arguments) is a resumption too, and
the guess steps over it.

Two ways to use a guess:

- **confirmed** (:meth:`FrameGuesses.guess`): GetValues with the guessed ID goes out in the same write as
  ``ThreadReference.Frames``, after it (a back end runs a connection's commands in order, and both run while the
  thread stays suspended). The JDWP specification makes a frame ID unique in the whole VM while its thread is
  suspended, so when Frames names the guessed ID, the values are frame 0's; when it names another, they are
  dropped and read again with the real ID. This depends on no ID layout.
- **alone** (:meth:`FrameGuesses.certain`): GetValues with the guessed ID and nothing else, once the VM's frame
  0 IDs have shown the layout above (the 16 low bits zero, each step a whole number of generations). Then the
  back end itself checks the guess: ``validateFrameID`` compares the ID's generation with the thread's and
  answers ``INVALID_FRAMEID`` when they differ, and a generation that matches names this suspension, whose
  depth 0 is frame 0. A refused guess is read again with Frames first; the thread is still suspended, so
  nothing was lost but the round trip. One command fewer per event is what a traced call or a judged hit pays
  on the VM's side (Frames reads the thread's stack through a handshake).
"""

from __future__ import annotations

from collections import OrderedDict

THREADS_KEPT = 256  # the threads whose last frame IDs are kept (the least recently hit are forgotten)
GENERATION = 1 << 16  # OpenJDK's back end: a frame ID is generation << 16 | depth (FrameID.c)


class FrameGuesses:
    """Frame 0's ID at each thread's last two events, and from them a guess at its next one."""

    def __init__(self, kept: int = THREADS_KEPT) -> None:
        self._kept = kept
        self._seen: OrderedDict[int, tuple[int, int | None]] = OrderedDict()  # thread → (last ID, step)
        #: Events of a thread let go since its last ID was seen without their frame being read (:meth:`passed`).
        self._passed: dict[int, int] = {}
        #: Whether the VM's frame 0 IDs have shown OpenJDK's layout: ``None`` before a step was seen, ``False``
        #: for good once one did not.
        self._layout: bool | None = None

    def guess(self, thread: int) -> int | None:
        """The ID frame 0 of ``thread`` likely has now, or ``None`` before two events of the thread were seen."""
        last, step = self._seen.get(thread, (0, None))
        return None if step is None else last + step * (1 + self._passed.get(thread, 0))

    def passed(self, thread: int) -> None:
        """An event of ``thread`` was let go without its frame being read (a traced method without arguments):
        its resumption moved the generation all the same, so the next guess steps once more."""
        if thread in self._seen:
            self._passed[thread] = self._passed.get(thread, 0) + 1

    def certain(self, thread: int) -> int | None:
        """:meth:`guess`, when GetValues may be sent with it alone (the module's docstring): the VM's IDs have
        shown OpenJDK's layout; ``None`` otherwise."""
        return self.guess(thread) if self._layout else None

    def forget(self, thread: int) -> None:
        """Drop what was seen of ``thread``: a guess the VM refused after its thread ran on, whose real ID
        nobody can read any more."""
        self._seen.pop(thread, None)
        self._passed.pop(thread, None)

    def saw(self, thread: int, frame_id: int) -> None:
        """Frame 0 of ``thread`` has ID ``frame_id`` at this event (the answer of ``ThreadReference.Frames``, or
        a guess the VM accepted alone).

        The ID seen last, told again, is the same event told twice (a judged hit that then stops, and its
        stop): it changes nothing, so that the step stays the one between two events.
        """
        seen = self._seen.get(thread)
        if seen is not None and seen[0] == frame_id:
            return
        step = None
        if seen is not None:
            resumes = 1 + self._passed.pop(thread, 0)  # the thread was let go once per event since
            moved = frame_id - seen[0]
            step = moved // resumes if moved % resumes == 0 else moved
            if self._layout is not False:
                self._layout = step > 0 and step % GENERATION == 0 and frame_id % GENERATION == 0
            self._seen.pop(thread)
        self._seen[thread] = (frame_id, step)
        if len(self._seen) > self._kept:
            oldest, _ = self._seen.popitem(last=False)
            self._passed.pop(oldest, None)
