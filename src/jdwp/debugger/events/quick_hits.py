"""Hits let go without a task: the hot path of a conditional breakpoint, a hit count or a logpoint under load.

Layer: ``jdwp.debugger`` (trio, via ``jdwp.client``). docs/design.md §3.5; docs/performance.md measures it.

A conditional breakpoint on a server's request handler is hit by every request, and its condition is false for
nearly all of them. :mod:`.judge` judges each hit in a task of its own, through the evaluator's awaits: correct
for every condition, but each hit then costs a task, a cancel scope per round trip and a wake-up per reply, and
on a machine the app shares with the debugger that CPU is what bounds the app's throughput (docs/performance.md,
"Jetty under load"). Here a hit whose condition reads only frame 0's locals is judged from callbacks instead:

1. as the event set comes, ``StackFrame.GetValues`` (16,1) of the slots the condition names goes out, with frame
   0's ID guessed (:mod:`jdwp.frame_guess`; :meth:`.client.JdwpClient.submit`): alone once the VM's frame IDs have
   shown OpenJDK's layout (the VM checks the guess; one it refuses is read again as below), else after
   ``ThreadReference.Frames`` (11,6) for frame 0 in the same write; without a guess, Frames alone, then GetValues
   with the ID it gives;
2. the reader hands the replies back; the condition is evaluated on them by the session's evaluator, driven to
   its end at once (:func:`run_now`). Only conditions that need nothing but those values are taken
   (:func:`needs_only_values`): numbers, booleans and chars of locals and literals, their operators, and an
   object local compared with ``null`` — no string, no field, no box, no call; so the evaluator awaits
   nothing that waits;
3. false: the thread is released (``ThreadReference.Resume`` 11,3, its answer not waited for,
   :meth:`.client.JdwpClient.send_now`), as the judge releases it.

Anything else — the condition true, or not a boolean, or failing; a wrong place; an evaluation that wants a
round trip (a string's text, a field); a reply that is an error — hands the hit to the full judge
(``fallback``), which reads the frame again and decides as it always does: the thread is still suspended, so
it reads the same values, and a condition that reads no app state twice is judged the same. A false condition
changes no count (hit counts count hits that pass it), so releasing one here is what the judge would do, in
whatever state the breakpoint is by then (removed, disabled, spent: released either way).

A breakpoint without a condition needs no read to be let go when its hit is before its ``hitCount``-th, or a
logpoint's hit beyond the rate of captured messages (counted as dropped): such a hit is counted as the judge
counts it and released as the event set comes. One that stops, logs a message or spends its breakpoint goes to
the judge. A line whose code runs in several places of one pass (the pass rule, :meth:`.requests.manager.
Requests.pass_spot`) is always the judge's: telling passes apart takes the frame's depth.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Coroutine
from functools import partial
from typing import Any

from ...client import JdwpClient
from ...protocol.commands import StackFrame, ThreadReference
from ...protocol.commands.threads import FrameGetValuesOut, FramesOut, ThreadOut
from ...protocol.constants import Tag
from ...protocol.errors import ConnectionClosed, JdwpError
from ...protocol.types import FrameId, Location
from ...protocol.values import Value
from ..errors import DebuggerError
from ..model import Locals
from ..reading.expressions import Expr
from ..reading.expressions.context import FrameContext
from ..reading.expressions.evaluator import Evaluator
from ..reading.expressions.parser import Binary, Literal, Name, Unary
from ..reading.frames import SlotPlan, named_slot_plan, raw_locals
from ..requests.hits import HitCounts, HitPlan, spent
from ..requests.manager import Requests
from .eventsets import Found
from .judge import HitJudge

log = logging.getLogger("jdwp.debugger")


class NeedsRoundTrip(Exception):
    """:func:`run_now`'s coroutine waited for something: it cannot be finished from a callback."""


def run_now(coroutine: Coroutine[Any, Any, Any]) -> Any:
    """The result of ``coroutine`` when it completes without waiting for anything (its awaits all return at
    once); else it is closed where it waited, and :class:`NeedsRoundTrip` raised. What it raises, it raises."""
    try:
        coroutine.send(None)
    except StopIteration as done:
        return done.value
    coroutine.close()  # only after a bug in needs_only_values: nothing that waits was entered for a read of values
    raise NeedsRoundTrip


_KEPT = 1024  # conditions and slot plans whose check is kept
_PRIMITIVES = frozenset("ZBCSIJFD")  # JNI signatures' first letters of the primitive types
_OPERATORS = frozenset({"&&", "||", "==", "!=", "<", "<=", ">", ">=", "+", "-", "*", "/", "%"})


def needs_only_values(expr: Expr, signatures: dict[str, str]) -> bool:
    """Whether evaluating ``expr`` needs only the values of the locals it names (``signatures``: each local's
    JNI signature): every operand a primitive local or a number, boolean or char literal, and an object local
    only in a comparison with ``null`` (which compares handles). A string, a box, a field, a call or a cast
    may need a round trip."""
    if isinstance(expr, Literal):
        return expr.type in ("int", "long", "float", "double", "boolean", "char")
    if isinstance(expr, Name):
        return signatures.get(expr.name, "L")[0] in _PRIMITIVES
    if isinstance(expr, Unary):
        return needs_only_values(expr.operand, signatures)
    if isinstance(expr, Binary) and expr.op in _OPERATORS:
        if expr.op in ("==", "!="):
            for one, other in ((expr.left, expr.right), (expr.right, expr.left)):
                if isinstance(one, Literal) and one.type == "null" and isinstance(other, Name) \
                        and other.name in signatures:
                    return True
        return needs_only_values(expr.left, signatures) and needs_only_values(expr.right, signatures)
    return False


class QuickHits:
    """Judges the hits it can take from callbacks (see the module's docstring); one per :class:`~.engine.Debugger`.

    ``fallback(found)`` hands a hit to the full judge; ``done()`` says a hit taken here was released. Every hit
    :meth:`take` accepts ends in exactly one of the two.
    """

    def __init__(self, judge: HitJudge, breakpoints: Requests, fallback: Callable[[Found], None],
                 done: Callable[[], None]) -> None:
        self._judge = judge
        self._vm: JdwpClient = judge.vm
        self._breakpoints = breakpoints
        self._fallback = fallback
        self._done = done
        #: Hits released here (their condition false), and hits taken here then handed to the full judge.
        self.released = 0
        self.handed_on = 0
        #: :func:`needs_only_values` of a condition at a slot plan, worked out at the first hit: every hit of a
        #: breakpoint asks it of the same two objects (kept while they live: checked by identity).
        self._values_only_at: dict[tuple[int, int], tuple[Expr, SlotPlan, bool]] = {}

    def take(self, found: Found) -> bool:
        """Start judging ``found`` here, when it is one breakpoint's hit whose condition reads only locals whose
        slots are known now; ``False``: it is the full judge's."""
        if len(found.breakpoint_ids) != 1 or found.field_event is not None or found.returned is not None:
            return False
        location = found.location
        state = self._breakpoints.hit_state(found.breakpoint_ids[0])
        if location is None or state is None:
            return False
        plan, counts = state
        if self._breakpoints.pass_spot(found.breakpoint_ids[0], location) is not None:
            return False  # one pass through a line stops once: telling passes apart takes the frame's depth
        condition, names = plan.condition, plan.frame_names
        if condition is None:
            return self._counted(found, plan, counts)
        if names is None or plan.invokes:
            return False
        slots = named_slot_plan(self._judge.symbols, location, names)
        if slots is None or self._judge.symbols.files.known_name(location.class_id) is None:
            return False  # the evaluator asks the source file's name (Kotlin's ==): it must be known already
        if not self._values_only(condition, slots):
            return False
        thread = found.suspension.thread
        guesses = self._judge.frame_guesses
        certain = guesses.certain(thread)
        try:
            if certain is not None:
                self._vm.submit([(StackFrame.GetValues, FrameGetValuesOut(thread, FrameId(certain), slots.slots))],
                                partial(self._guarded, found, self._alone, condition, slots, certain))
                return True
            self._read_top(found, condition, slots, guesses.guess(thread))
        except JdwpError:
            return False
        return True

    def _read_top(self, found: Found, condition: Expr, slots: SlotPlan, guess: int | None) -> None:
        """Frame 0 (``ThreadReference.Frames``), with the values of the guessed frame ID in the same write.

        Raises:
            JdwpError: the connection has ended.
        """
        thread = found.suspension.thread
        requests: list[tuple[Any, Any]] = [(ThreadReference.Frames, FramesOut(thread, 0, 1))]
        if guess is not None:
            requests.append((StackFrame.GetValues, FrameGetValuesOut(thread, FrameId(guess), slots.slots)))
        self._vm.submit(requests, partial(self._guarded, found, self._top, condition, slots, guess))

    def _alone(self, found: Found, condition: Expr, slots: SlotPlan, guess: int,
               replies: list[Any] | JdwpError) -> None:
        """The values read with a guessed frame ID alone (:meth:`jdwp.frame_guess.FrameGuesses.certain`): the VM
        checked the guess; one it refused is read again with frame 0 first."""
        if isinstance(replies, JdwpError):
            self._gone(found, replies)
        elif isinstance(replies[0], JdwpError):
            try:
                self._read_top(found, condition, slots, None)
            except JdwpError as error:
                self._gone(found, error)
        else:
            self._judge.frame_guesses.saw(found.suspension.thread, guess)
            self._judged(found, condition, slots, replies[0])

    def _guarded(self, found: Found, callback: Callable[..., None], *args: Any) -> None:
        """Run a callback of a hit's replies; a bug in it hands the hit to the full judge rather than leave its
        thread suspended (and detach waiting for it)."""
        try:
            callback(found, *args)
        except Exception:
            log.exception("judging a hit from its replies failed; it is judged in full")
            self._hand_on(found)

    def _values_only(self, condition: Expr, slots: SlotPlan) -> bool:
        key = (id(condition), id(slots))
        known = self._values_only_at.get(key)
        if known is not None and known[0] is condition and known[1] is slots:
            return known[2]
        answer = needs_only_values(condition, dict(zip(slots.names, slots.signatures, strict=False)))
        if len(self._values_only_at) >= _KEPT:
            self._values_only_at.clear()
        self._values_only_at[key] = (condition, slots, answer)
        return answer

    def _counted(self, found: Found, plan: HitPlan, counts: HitCounts) -> bool:
        """A hit with no condition that its breakpoint lets go as it comes (a hit before its ``hitCount``-th; a
        logpoint hit the rate limit drops; a hit of a spent breakpoint), counted as :mod:`.judge` counts it and
        released now; ``False`` for any other (it logs a message, stops or spends the breakpoint)."""
        wanted, max_hits = plan.options.hit_count, plan.options.max_hits
        if spent(plan, counts):
            pass  # let go uncounted
        elif wanted is not None and counts.hits + 1 < wanted:
            counts.hits += 1
        elif plan.options.action == "log" and (max_hits is None or counts.logged + 1 < max_hits) \
                and self._judge.rate.full():
            self._judge.rate.admit()  # dropped: counted among those the next captured hit reports
            counts.hits += 1
            counts.logged += 1
            counts.dropped += 1
        else:
            return False
        self._release(found)
        return True

    def _top(self, found: Found, condition: Expr, slots: SlotPlan, guess: int | None,
             replies: list[Any] | JdwpError) -> None:
        if isinstance(replies, JdwpError):
            self._gone(found, replies)
            return
        top, *values = replies
        if isinstance(top, JdwpError):
            self._hand_on(found)
            return
        (frame,) = top.frames
        thread = found.suspension.thread
        self._judge.frame_guesses.saw(thread, frame.frame_id)
        if frame.location != found.location:
            self._hand_on(found)
        elif guess == frame.frame_id:
            self._judged(found, condition, slots, values[0])
        else:  # no guess, or a wrong one: the values are read again with frame 0's real ID
            try:
                self._vm.submit([(StackFrame.GetValues, FrameGetValuesOut(thread, frame.frame_id, slots.slots))],
                                partial(self._guarded, found, self._values, condition, slots))
            except JdwpError:
                self._hand_on(found)

    def _values(self, found: Found, condition: Expr, slots: SlotPlan, replies: list[Any] | JdwpError) -> None:
        if isinstance(replies, JdwpError):
            self._gone(found, replies)
        else:
            self._judged(found, condition, slots, replies[0])

    def _judged(self, found: Found, condition: Expr, slots: SlotPlan, got: Any) -> None:
        if isinstance(got, JdwpError) or not self._false(found.location, condition, slots, got.values):
            self._hand_on(found)
        else:
            self._release(found)

    def _release(self, found: Found) -> None:
        try:
            self._vm.send_now(ThreadReference.Resume, ThreadOut(found.suspension.thread), on_error=_release_failed)
        except JdwpError:  # the connection ended: that released the thread
            pass
        self.released += 1
        self._done()

    def _false(self, location: Location | None, condition: Expr, slots: SlotPlan, values: list[Value]) -> bool:
        """Whether the condition is false on these values of its locals; ``False`` too when it cannot tell
        without a round trip or fails (the full judge then decides, and says why it failed)."""
        assert location is not None  # take() checked it
        judge = self._judge
        found = raw_locals(slots, values, judge.values)
        evaluator = Evaluator(judge.values, judge.layouts, FrameContext(location.class_id, partial(_known, found)))
        try:
            result = run_now(evaluator.evaluate(condition))
        except (NeedsRoundTrip, DebuggerError, JdwpError):
            return False
        return isinstance(result, Value) and result.tag == Tag.BOOLEAN and not result.value

    def _hand_on(self, found: Found) -> None:
        self.handed_on += 1
        self._fallback(found)

    def _gone(self, found: Found, error: JdwpError) -> None:
        """The connection ended (or a reply could not be read) before the hit was judged."""
        if isinstance(error, ConnectionClosed):
            self._done()  # closing the connection released the thread
        else:
            self._hand_on(found)


async def _known(found: Locals) -> Locals:
    return found


def _release_failed(error: JdwpError) -> None:
    if not isinstance(error, ConnectionClosed):
        log.warning("releasing a hit whose condition was false failed: %s", error)

