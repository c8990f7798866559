"""Judging a hit of a breakpoint with options: its condition, its hit count, and a logpoint's message.

Layer: ``jdwp.debugger`` (trio, via ``jdwp.client``). docs/design.md §3.5 and §6.

Such a breakpoint's requests suspend only the hitting thread (``EVENT_THREAD``; :mod:`.hits`). The engine
hands each of its hits here before it makes a stop, several threads' hits at once (each in a task of its own,
outside the session's lock: a hit's round trips never wait for another thread's):

- the condition is evaluated in frame 0 of the hitting thread (``ThreadReference.Frames`` 11,6, then the
  read-only evaluator of :mod:`.expressions`, under the 2 s deadline of docs/design.md §6); a method it calls (only with
  ``--allow-invoke``) runs on that thread, which the breakpoint's event suspended (``ObjectReference.InvokeMethod``
  9,6, single-threaded). False: the hit does not count.
  A condition that cannot be evaluated (unknown name, null dereference, not a boolean, past the deadline)
  stops anyway, with ``condition_error``; a logpoint logs the error instead, as it never stops;
- hits are counted per breakpoint; before the ``hitCount``-th, a hit does not stop;
- a logpoint hit is captured as a :class:`~.model.LogpointHit` (its ``{expression}`` parts evaluated, or
  frame 0's locals listed shallowly) while the session has captured fewer than 100 in the last second;
  beyond that it is only counted (``dropped``). Its ``maxHits``-th hit spends it: its requests are cleared;
  hits judged meanwhile (already on their way) are let go uncounted.

Counts change only between awaits (trio runs one task at a time), so hits judged at once still count exactly.

What the engine does with the verdict (release the thread, or make a stop that holds the VM) is its own
business. Nothing here logs a value: messages hold app data and go to the event ring only.
"""

from __future__ import annotations

import dataclasses
import time
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from functools import partial
from typing import Literal

import trio

from ...client import JdwpClient
from ...frame_guess import FrameGuesses
from ...protocol.constants import Tag
from ...protocol.errors import CommandError, JdwpError
from ...protocol.types import FrameId, Location, ThreadId
from ...protocol.values import Value
from .._gather import gather
from ..errors import DebuggerError
from ..model import BreakpointSpent, EngineEvent, FieldChange, Local, Locals, LogpointHit, SourcePosition
from ..names import java_prefix
from ..reading.expressions import Expr
from ..reading.expressions.context import FrameContext, Result, Text
from ..reading.expressions.evaluator import Evaluator
from ..reading.frames import FrameRef, WrongFrameGuess, frame_locals, raw_summary
from ..reading.invoke import Invocation
from ..reading.session import Session
from ..reading.stop_cache import StopCache, reading_at
from ..reading.values import MAX_STRING, Summary, Values
from ..requests.hits import HitCounts, HitPlan, count_stop, spent
from ..requests.manager import Requests

LOGPOINTS_PER_SECOND = 100  # per session, docs/design.md §6
SHOWN_LOCALS = 20
EVALUATION_DEADLINE = 2.0  # docs/design.md §6
ENDED_THREAD = "(a thread that ended right after its hit)"


@dataclasses.dataclass(slots=True)
class Verdict:
    """What a hit comes to: the breakpoints that stop, and how."""

    stopping: list[str]
    condition_error: str | None = None
    #: How the judged breakpoints that stop want it held: ``all`` (some asked for it: the VM is to be
    #: suspended), ``thread`` (all asked for ``suspend: "thread"``), or ``None`` (no judged one stops: a
    #: plain breakpoint's stop keeps the suspension its event set came with).
    hold: Literal["all", "thread"] | None = None
    #: Work for after the hit's thread is released or its stop made: publishing captured logpoint hits
    #: (their thread's name and position are read then) and clearing spent logpoints. What needs the paused
    #: frame (the message's values) was read before; the rest does not make the thread wait.
    after: list[Callable[[], Awaitable[None]]] = dataclasses.field(default_factory=list)

    async def finish(self) -> None:
        """Run the work left for after the release, in order."""
        for work in self.after:
            await work()


class RateLimit:
    """At most ``per_second`` captures in any window of one second; the rest are counted."""

    def __init__(self, per_second: int = LOGPOINTS_PER_SECOND, clock: Callable[[], float] = time.monotonic) -> None:
        self._per_second = per_second
        self._clock = clock
        self._times: deque[float] = deque()
        self._dropped = 0

    def admit(self) -> tuple[bool, int]:
        """Whether to capture this hit, and (when so) how many were dropped since the last capture."""
        if self.full():
            self._dropped += 1
            return False, 0
        self._times.append(self._clock())
        dropped, self._dropped = self._dropped, 0
        return True, dropped

    def full(self) -> bool:
        """Whether a hit now would be dropped (:meth:`admit` says so, and counts it)."""
        now = self._clock()
        while self._times and now - self._times[0] >= 1.0:
            self._times.popleft()
        return len(self._times) >= self._per_second


class _Hit:
    """One hit's frame 0, read once and shared by the condition and the message.

    ``names``: every name the hit's conditions and messages look up in the frame (``None``: one of them needs
    ``this``); when all are locals, ``this`` is not read (:func:`.frames.frame_locals`). ``location``: where the
    event says the thread is, frame 0's place; with a guess of frame 0's ID (:mod:`jdwp.frame_guess`) the locals
    are read in the same round trip as the frame.
    """

    def __init__(self, judge: HitJudge, thread: ThreadId, location: Location | None,
                 names: frozenset[str] | None, extra: tuple[Local, ...] = ()) -> None:
        self._judge = judge
        self.thread = thread
        self._location = location
        #: Names the hit itself gives (a watchpoint's ``new_value``, ``old_value``), ahead of frame 0's locals.
        self._extra = extra
        self._names = None if names is None else names - {local.name for local in extra}
        self._evaluator: Evaluator | None = None
        self._ref: FrameRef | None = None
        self._depth: int | None = None
        #: A hit's tables are read anew (the app ran since the last one), and kept for its other expressions.
        self._cache = StopCache()

    async def depth(self) -> int:
        """How many frames the thread has (``ThreadReference.FrameCount`` 11,7): frame 0's depth, which tells
        one frame of a method from a call of it deeper or shallower in the stack (:mod:`.lambdas`' passes)."""
        if self._depth is None:
            self._depth = await self._judge.vm.thread_reference.frame_count(self.thread)
        return self._depth

    async def frame(self) -> FrameRef:
        if self._ref is None:
            (top,) = await self._judge.vm.thread_reference.frames(self.thread, 0, 1)
            self._learn(FrameRef(self.thread, top.frame_id, top.location))
        assert self._ref is not None  # set by _learn
        return self._ref

    def _learn(self, ref: FrameRef) -> None:
        self._ref = ref
        self._judge.frame_guesses.saw(self.thread, ref.frame)

    async def locals(self) -> Locals:
        """Frame 0's locals as the tools show them (strings' text, runtime types)."""
        return await frame_locals(self._judge.vm, self._judge.symbols, await self.frame(), self._judge.values)

    async def raw_locals(self) -> Locals:
        """:meth:`frame_raw_locals`, with the hit's own names first."""
        found = await self.frame_raw_locals()
        if not self._extra:
            return found
        return dataclasses.replace(found, locals=(*self._extra, *found.locals))

    async def frame_raw_locals(self) -> Locals:
        """Frame 0's locals with handles but no text or types: all an evaluation needs of them (it reads a
        string's text or an object's type itself, when the expression asks), one round trip less per hit."""
        judge = self._judge
        guess = judge.frame_guesses.guess(self.thread)
        if self._ref is None and self._location is not None and guess is not None:
            ref = FrameRef(self.thread, FrameId(guess), self._location)
            try:
                found = await frame_locals(judge.vm, judge.symbols, ref, _Unsummarised(judge.values), self._names,
                                           guessed=True)
            except WrongFrameGuess as wrong:
                self._learn(wrong.actual)
            else:
                self._learn(ref)
                return found
        return await frame_locals(judge.vm, judge.symbols, await self.frame(), _Unsummarised(judge.values),
                                  self._names)

    async def evaluate(self, expr: Expr) -> Result:
        """The value of ``expr`` in frame 0, within the deadline.

        Raises:
            DebuggerError, CommandError: it cannot be evaluated here (the message says why).
        """
        if self._evaluator is None:
            # The event's location is frame 0's place: no round trip for the frame before its locals.
            location = self._location if self._location is not None else (await self.frame()).location
            calls = self._judge.session.invocations
            invocation = Invocation(calls, f"hit-{self.thread}", self.thread) if calls is not None else None
            context = FrameContext(location.class_id, self.raw_locals, invocation)
            self._evaluator = Evaluator(self._judge.values, self._judge.layouts, context)
        with trio.move_on_after(EVALUATION_DEADLINE), reading_at(self._cache):
            return await self._evaluator.evaluate(expr)
        raise _TooSlow(f"the evaluation took longer than {EVALUATION_DEADLINE:g} s and was abandoned")


class _TooSlow(DebuggerError):
    pass


class _Unsummarised(Values):
    """The session's values, summarised without a round trip: primitives as text, objects by handle only."""

    def __init__(self, values: Values) -> None:  # shares the session's handles; nothing else of Values is used
        self._values = values

    async def summarize(self, values: Sequence[Value], declared: Sequence[str | None] = ()) -> list[Summary]:
        return [raw_summary(self._values, value) for value in values]


class HitJudge:
    """Applies the plans of one session's breakpoints to their hits (one per :class:`~.engine.Debugger`)."""

    def __init__(self, session: Session, breakpoints: Requests, publish: Callable[[EngineEvent], None],
                 rate: RateLimit | None = None) -> None:
        #: Its invocations (:attr:`.session.Session.invocations`, while it may run app code): a condition or
        #: message that calls a method (:attr:`.requests.hits.HitPlan.invokes`) runs it on the hitting thread,
        #: which its event suspended. Its lock is taken to spend a logpoint (its requests change): the judge
        #: itself runs without it.
        self.session = session
        self.vm = session.vm
        self.symbols = session.symbols
        self.values = session.values
        self.layouts = session.layouts
        self._breakpoints = breakpoints
        self._publish = publish
        self.rate = rate or RateLimit()
        self._lock = session.gate.lock
        self.frame_guesses = FrameGuesses()

    async def judge(self, breakpoint_ids: Sequence[str], thread: ThreadId, location: Location | None,
                    names: tuple[Local, ...] = (), change: FieldChange | None = None,
                    returned: Summary | None = None) -> Verdict:
        """Decide which of the breakpoints hit together (same thread, same place) stop.

        ``names``: values the hit gives its conditions and messages besides frame 0's locals (a watchpoint's
        ``new_value``); ``change``: a watchpoint's field change, ``returned``: a method exit's value, which
        their logpoint hits carry.

        Raises:
            JdwpError: the VM failed outside an evaluation (the connection, or the thread's frames).
        """
        verdict = Verdict([])
        hit = _Hit(self, thread, location, self._names_of(breakpoint_ids), names)
        passes = self._breakpoints.passes
        for breakpoint_id in breakpoint_ids:
            # One pass through a line in one frame stops once (docs/design.md §3.10): a further code index of it is
            # let through before anything is evaluated.
            spot = self._breakpoints.pass_spot(breakpoint_id, location)
            depth = None
            if spot is not None:
                try:
                    depth = await hit.depth()
                except CommandError:  # no depth to tell the frame by: a pass of its own
                    spot = None
            if spot is not None and depth is not None and passes.same_pass(breakpoint_id, thread, depth, spot):
                continue
            state = self._breakpoints.hit_state(breakpoint_id)
            if state is None:  # a plain breakpoint: every hit of a new pass stops
                verdict.stopping.append(breakpoint_id)
                passes.stopped(breakpoint_id, thread, depth, spot)
                continue
            plan, counts = state
            if spent(plan, counts):  # a hit that was on its way when the breakpoint was spent
                continue
            error = None
            if plan.condition is not None:
                holds, error = await self._condition(hit, plan.condition)
                if not holds and error is None:
                    continue
                if spent(plan, counts):  # spent by another thread's hit while this condition was evaluated
                    continue
            counts.hits += 1
            wanted = plan.options.hit_count
            if error is None and wanted is not None and counts.hits < wanted:
                continue
            passes.stopped(breakpoint_id, thread, depth, spot)
            if plan.options.action == "log":
                await self._log(hit, breakpoint_id, plan, counts, location, error, verdict.after, change, returned)
                continue
            verdict.stopping.append(breakpoint_id)
            if count_stop(plan, counts):  # its maxHits-th stop: it is removed once the stop is made
                verdict.after.append(partial(self._spend, breakpoint_id))
            verdict.condition_error = verdict.condition_error or error
            verdict.hold = "all" if verdict.hold == "all" or plan.options.suspend == "all" else "thread"
        return verdict

    def _names_of(self, breakpoint_ids: Sequence[str]) -> frozenset[str] | None:
        names: set[str] = set()
        for breakpoint_id in breakpoint_ids:
            state = self._breakpoints.hit_state(breakpoint_id)
            if state is None:
                continue
            found = state[0].frame_names
            if found is None:
                return None
            names |= found
        return frozenset(names)

    @staticmethod
    async def _condition(hit: _Hit, condition: Expr) -> tuple[bool, str | None]:
        """Whether the condition holds, or why it could not be evaluated."""
        try:
            result = await hit.evaluate(condition)
        except (DebuggerError, CommandError) as exc:
            return False, str(exc)
        if isinstance(result, Value) and result.tag == Tag.BOOLEAN:
            return bool(result.value), None
        return False, "the condition's value is not a boolean"

    async def _log(self, hit: _Hit, breakpoint_id: str, plan: HitPlan, counts: HitCounts,
                   location: Location | None, error: str | None, after: list[Callable[[], Awaitable[None]]],
                   change: FieldChange | None = None, returned: Summary | None = None) -> None:
        """Count a logpoint's hit and read its message now, while the frame is paused; leave the rest (the
        thread's name, the position, publishing, spending) to ``after``."""
        counts.logged += 1
        captured, dropped = self.rate.admit()
        if captured:
            if plan.template is None and change is not None:
                message = _change_text(change)
            elif plan.template is None and returned is not None:
                message = f"returned {_shown(returned, quote=True)}"
            else:
                message = await self._message(hit, plan)
            captured_at_ms = int(time.time() * 1000)
            after.append(partial(self._publish_hit, breakpoint_id, hit.thread, location, message, captured_at_ms,
                                 dropped, error, change, returned))
        else:
            counts.dropped += 1
        max_hits = plan.options.max_hits
        if max_hits is not None and counts.logged >= max_hits:
            after.append(partial(self._spend, breakpoint_id))

    async def _publish_hit(self, breakpoint_id: str, thread: ThreadId, location: Location | None, message: str,
                           captured_at_ms: int, dropped: int, error: str | None,
                           change: FieldChange | None = None, returned: Summary | None = None) -> None:
        name, positions = await gather([partial(self._thread_name, thread),
                                        partial(self.symbols.describe, [location] if location is not None else [])])
        position: SourcePosition | None = positions[0] if positions else None
        self._publish(LogpointHit(breakpoint_id, name, position, message, captured_at_ms, dropped, error,
                                  watch=change, return_value=returned))

    async def _thread_name(self, thread: ThreadId) -> str:
        try:
            return await self.vm.thread_reference.name(thread)
        except CommandError:  # read after the release: the thread may have ended since its hit
            return ENDED_THREAD

    async def _spend(self, breakpoint_id: str) -> None:
        async with self._lock:
            gone = await self._breakpoints.spend(breakpoint_id)
        if gone is not None:
            self._publish(BreakpointSpent(gone))

    async def _message(self, hit: _Hit, plan: HitPlan) -> str:
        if plan.template is None:
            return _listing(await hit.locals())
        parts = []
        for part in plan.template:
            if isinstance(part, str):
                parts.append(part)
                continue
            try:
                result = await hit.evaluate(part)
            except (DebuggerError, CommandError) as exc:
                parts.append(f"<{exc}>")
                continue
            if isinstance(result, Text):  # a made string (a concatenation): cut as a string summary is
                shown, length = java_prefix(result.text, MAX_STRING)
                parts.append(shown + ("…" if length > MAX_STRING else ""))
            else:
                (summary,) = await self.values.summarize([result])
                parts.append(_shown(summary, quote=False))
        return "".join(parts)


def _change_text(change: FieldChange) -> str:
    """A watchpoint hit's default message: ``Account.balance = 961 (was 1000)``, or ``read Account.balance: 961``."""
    old = _shown(change.old_value, quote=True)
    if change.access == "read":
        return f"read {change.field}: {old}"
    return f"{change.field} = {_shown(change.new_value, quote=True)} (was {old})"


def _listing(found: Locals) -> str:
    """Frame 0's locals, shallowly: ``i=7, name="x", list=java.util.ArrayList s1-obj-3`` (at most 20)."""
    if found.availability != "available":
        return f"(locals {found.availability}: {found.reason})"
    shown = [f"{local.name}={_shown(local, quote=True)}" for local in found.locals[:SHOWN_LOCALS]]
    more = len(found.locals) - SHOWN_LOCALS
    if more > 0 or found.truncated:
        shown.append(f"… ({max(more, 0)} more{' and others' if found.truncated else ''})")
    return ", ".join(shown) if shown else "(no locals)"


def _shown(value: Summary | object, *, quote: bool) -> str:
    kind = getattr(value, "kind", None)
    text = getattr(value, "value", None)
    if kind == "null":
        return "null"
    if kind == "primitive":
        return str(text)
    if kind == "string":
        cut = "…" if getattr(value, "truncated", False) else ""
        return f'"{text}{cut}"' if quote else f"{text}{cut}"
    if kind == "array":
        return f"{getattr(value, 'runtime_type', None) or 'array'} length {getattr(value, 'length', '?')}"
    if kind == "object":
        if text is not None:  # a box's primitive or an enum constant's name (docs/design.md §3.7)
            return str(text)
        return f"{getattr(value, 'runtime_type', None) or 'object'} {getattr(value, 'object_id', '')}".rstrip()
    return f"<{getattr(value, 'reason', None) or 'unavailable'}>"


async def hold_vm(vm: JdwpClient, thread: ThreadId) -> None:
    """Turn a judged hit's EVENT_THREAD suspension into a SUSPEND_ALL stop, keeping ownership exact (docs/design.md
    §3.3).

    The VM is suspended first (``VirtualMachine.Suspend`` 1,8: the stop owns it; resuming the stop releases
    it with ``VirtualMachine.Resume`` 1,9), then the event's own suspension of the thread is released
    (``ThreadReference.Resume`` 11,3): the thread's suspend count goes 1 → 2 → 1, so it never runs in
    between, and the stop holds exactly one suspension.

    Raises:
        JdwpError: the VM did not confirm; the event's suspension is still the caller's to release (the VM
            suspension taken here is given back first).
    """
    await vm.suspend()
    try:
        await vm.thread_reference.resume(thread)
    except JdwpError:
        await vm.resume()
        raise
