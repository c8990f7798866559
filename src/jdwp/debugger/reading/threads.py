"""Every thread of the VM: status, group, and — at a stop — top frames, monitors and deadlocks.

Layer: ``jdwp.debugger`` (trio, via ``jdwp.client``). docs/design.md §3.9, limits §6.

Without a stop the threads run, so only what JDWP answers of a running thread is read:
``ThreadReference.Name`` (11,1), ``Status`` (11,4) and ``ThreadGroup`` (11,5), with the groups'
``ThreadGroupReference.Name`` (12,1). At a stop every thread the stop suspended also gets a stop-scoped
``thread_id`` (the same handles the stop's own thread has: stack, locals and steps take them), its top
frames (``FrameCount`` 11,7 and ``Frames`` 11,6), the monitors it owns (``OwnedMonitors`` 11,8) and the one it
waits for (``CurrentContendedMonitor`` 11,9) with that monitor's owner (``ObjectReference.MonitorInfo``
9,5) — each as far as ``VirtualMachine.CapabilitiesNew`` (1,17) allows; JDWP answers these only for
suspended threads. Requests go out per round for every thread at once: four rounds whatever the count, then
the frames' positions and the monitors' classes (one or two more for classes not seen before).

A thread that ends while it is listed (possible only without a stop) is left out; a thread the stop did
not suspend (a stop of one thread) is listed without frames or monitors.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable, Sequence
from functools import partial
from typing import Any, Literal

from ...client import JdwpClient
from ...protocol.constants import ErrorCode
from ...protocol.errors import CommandError
from ...protocol.types import ObjectId, ThreadGroupId, ThreadId
from ...protocol.values import Value
from .._gather import gather
from ..classes.symbols import Symbols
from ..model import OMIT_EMPTY, OMIT_NONE, Frame, Stop, bound_names
from .deadlocks import Deadlock, find_cycles, links
from .frames import FrameRef
from .values import Summary, Values

__all__ = ["MAX_DEPTH", "MAX_THREADS", "Listing", "Monitor", "ThreadHead", "ThreadInfo", "Threads", "ThreadsPage",
           "WaitingFor", "pause_stop"]

MAX_THREADS = 1000
MAX_DEPTH = 50
#: Frames one listing carries in all (docs/design.md §2.7: 1,000 threads x 50 frames would be a 12 MB answer):
#: past it each thread gets an equal share, at least one frame, and the note says so.
MAX_LISTED_FRAMES = 2000
ThreadStatusName = Literal["running", "sleeping", "waiting", "monitor", "zombie", "not_started"]
#: JDWP ThreadStatus (0–4); 5 is JDI's "not started", which some back ends send for a thread not yet run.
STATUS: dict[int, ThreadStatusName] = {0: "zombie", 1: "running", 2: "sleeping", 3: "monitor", 4: "waiting",
                                       5: "not_started"}
_GONE = frozenset({ErrorCode.INVALID_THREAD, ErrorCode.INVALID_OBJECT, ErrorCode.THREAD_NOT_SUSPENDED,
                   ErrorCode.INVALID_THREAD_GROUP})
RUNNING_NOTE = ("no stop_id: the threads run, so only name, status, suspended and group are shown; Debugger.pause() "
                "(or any stop) and pass its stop_id for thread IDs, frames, monitors and deadlocks")
NO_MONITORS_NOTE = "this VM cannot tell owned or contended monitors (CapabilitiesNew), so deadlocks are not looked for"
PAUSE_NOTE = "every thread is suspended, none is the stop's own: see Debugger.pause()'s answer or Debugger.threads()"


@dataclasses.dataclass(frozen=True, slots=True)
class Monitor:
    """An object whose monitor a thread owns or waits for: the session's handle and its class."""

    object_id: str
    runtime_type: str | None
    preview: str | None = dataclasses.field(default=None, metadata=OMIT_NONE)


@dataclasses.dataclass(frozen=True, slots=True)
class WaitingFor:
    """The monitor a thread waits to enter (status ``monitor``) or to regain after ``Object.wait``, and
    its owner at this stop (``None`` when nobody owns it, e.g. while the waiter waits for a ``notify``)."""

    object_id: str
    runtime_type: str | None
    owner_thread: str | None = dataclasses.field(default=None, metadata=OMIT_NONE)
    owner_name: str | None = dataclasses.field(default=None, metadata=OMIT_NONE)
    truncated_names: tuple[str, ...] = dataclasses.field(default=(), metadata=OMIT_EMPTY)
    preview: str | None = dataclasses.field(default=None, metadata=OMIT_NONE)

    def __post_init__(self) -> None:
        bound_names(self, "owner_name")


@dataclasses.dataclass(frozen=True)
class ThreadHead:
    """What every listing says of a thread before its frames (a base without slots of its own, as
    :class:`.model.Place` is: :class:`ThreadInfo` and a server's listing of it share it)."""

    __slots__ = ()
    name: str
    status: ThreadStatusName
    suspended: bool
    group: str | None
    thread_id: str | None = dataclasses.field(default=None, metadata=OMIT_NONE)
    frame_count: int | None = dataclasses.field(default=None, metadata=OMIT_NONE)


@dataclasses.dataclass(frozen=True, slots=True)
class ThreadInfo(ThreadHead):
    """One thread. ``thread_id``, ``frames``, ``frame_count``, ``owned_monitors`` and ``waiting_for`` are
    there only at a stop, for a thread it suspended (``owned_monitors`` when the VM can tell)."""

    frames: tuple[Frame, ...] = dataclasses.field(default=(), metadata=OMIT_EMPTY)
    owned_monitors: tuple[Monitor, ...] | None = dataclasses.field(default=None, metadata=OMIT_NONE)
    waiting_for: WaitingFor | None = dataclasses.field(default=None, metadata=OMIT_NONE)
    truncated_names: tuple[str, ...] = dataclasses.field(default=(), metadata=OMIT_EMPTY)

    def __post_init__(self) -> None:
        bound_names(self, "name", "group")


@dataclasses.dataclass(frozen=True, slots=True)
class ThreadsPage:
    """The listing: at most :data:`MAX_THREADS` threads of ``total``; ``deadlocks`` only at a stop."""

    threads: tuple[ThreadInfo, ...]
    total: int
    truncated: bool
    deadlocks: tuple[Deadlock, ...] | None = dataclasses.field(default=None, metadata=OMIT_NONE)
    note: str | None = dataclasses.field(default=None, metadata=OMIT_NONE)


@dataclasses.dataclass
class Listing:
    """A page and, at a stop, the handles it issued, for the engine to keep while the stop lasts."""

    page: ThreadsPage
    threads: dict[str, ThreadId] = dataclasses.field(default_factory=dict)
    names: dict[ThreadId, str] = dataclasses.field(default_factory=dict)
    frames: dict[str, FrameRef] = dataclasses.field(default_factory=dict)
    frame_counts: dict[ThreadId, int] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(frozen=True, slots=True)
class _MonitorCaps:
    owned: bool
    contended: bool
    info: bool


@dataclasses.dataclass
class _Thread:
    """What is known of one listed thread as the rounds go."""

    id: ThreadId
    name: str
    status: int
    suspended: bool
    group: ThreadGroupId
    frame_count: int | None = None
    frames: list[Any] = dataclasses.field(default_factory=list)
    owned: list[Value] | None = None
    contended: Value | None = None
    owner: ThreadId | None = None
    waiting: WaitingFor | None = None


def pause_stop(stop_id: str) -> Stop:
    """The stop ``pause_debugger`` makes: reason ``pause``, no thread of its own, no location."""
    return Stop(stop_id, ("pause",), None, None, None, (), note=PAUSE_NOTE)


def _shared_depth(held: Sequence[_Thread], depth: int) -> int:
    """``depth``, or the equal share of :data:`MAX_LISTED_FRAMES` (at least 1) when the threads' frames would
    exceed it."""
    wanted = sum(min(depth, t.frame_count or 0) for t in held)
    if wanted <= MAX_LISTED_FRAMES or not held:
        return depth
    return max(1, min(depth, MAX_LISTED_FRAMES // len(held)))


async def _tolerant(thunk: Callable[[], Awaitable[Any]]) -> Any:
    """The thunk's result, or ``None`` when its thread (or object) is gone or not suspended."""
    try:
        return await thunk()
    except CommandError as exc:
        if exc.code in _GONE:
            return None
        raise


def _each(thunks: Sequence[Callable[[], Awaitable[Any]]]) -> Awaitable[list[Any]]:
    return gather([partial(_tolerant, thunk) for thunk in thunks])


class Threads:
    """Lists threads for one :class:`Debugger` (it keeps the VM's monitor capabilities once asked)."""

    def __init__(self, vm: JdwpClient, symbols: Symbols, values: Values) -> None:
        self.vm = vm
        self.symbols = symbols
        self.values = values
        self._caps: _MonitorCaps | None = None

    async def _capabilities(self) -> _MonitorCaps:
        if self._caps is None:
            try:
                reply = await self.vm.capabilities_new()
            except CommandError:
                self._caps = _MonitorCaps(False, False, False)
            else:
                self._caps = _MonitorCaps(reply.can_get_owned_monitor_info, reply.can_get_current_contended_monitor,
                                          reply.can_get_monitor_info)
        return self._caps

    async def listing(self, stop_id: str | None = None, depth: int = 0) -> Listing:
        """Every thread (at most :data:`MAX_THREADS`); at a stop (``stop_id``) with handles, ``depth`` top
        frames, monitors and deadlocks.

        Raises:
            JdwpError: the VM failed otherwise than by a thread ending.
        """
        if stop_id is None:
            everyone = await self.vm.all_threads()
            listed = await self._basics(everyone[:MAX_THREADS])
            groups = await self._group_names(listed)
            infos = [self._info(t, groups) for t in listed]
            return Listing(ThreadsPage(tuple(infos), len(everyone), len(everyone) > MAX_THREADS, None, RUNNING_NOTE))
        everyone, caps = await gather([self.vm.all_threads, self._capabilities])
        listed = await self._basics(everyone[:MAX_THREADS])
        held = [t for t in listed if t.suspended and t.status != 0]
        groups, _ = await gather([partial(self._group_names, listed), partial(self._monitors_and_counts, held, caps)])
        shared = _shared_depth(held, depth)
        await self._frames_and_owners(held, shared, caps)
        listing = Listing(ThreadsPage((), 0, False))
        listing.names = {t.id: t.name for t in listed}
        handle = partial(_handle, stop_id)
        infos = await self._stop_infos(listed, groups, handle, listing)
        cycles = _deadlocks(held, handle) if caps.contended else []
        note = None if caps.owned and caps.contended else NO_MONITORS_NOTE
        if shared < depth:
            cut = (f"stack_depth {depth} was cut to {shared} frame{'s' if shared != 1 else ''} a thread: a listing "
                   f"carries at most {MAX_LISTED_FRAMES:,} frames; Debugger.stack() pages one thread's stack")
            note = cut if note is None else f"{cut}; {note}"
        listing.page = ThreadsPage(tuple(infos), len(everyone), len(everyone) > MAX_THREADS, tuple(cycles), note)
        return listing

    # --- the rounds --------------------------------------------------------------------------------

    async def _basics(self, ids: Sequence[ThreadId]) -> list[_Thread]:
        """Round 1: name, status and group of every thread; threads that ended meanwhile are left out."""
        reference = self.vm.thread_reference
        thunks: list[Callable[[], Awaitable[Any]]] = []
        for thread in ids:
            thunks += [partial(reference.name, thread), partial(reference.status, thread),
                       partial(reference.thread_group, thread)]
        answers = await _each(thunks)
        out = []
        for index, thread in enumerate(ids):
            name, status, group = answers[3 * index: 3 * index + 3]
            if name is None or status is None:
                continue
            out.append(_Thread(thread, name, status.thread_status, status.suspend_status == 1,
                               ThreadGroupId(group or 0)))
        return out

    async def _group_names(self, threads: Sequence[_Thread]) -> dict[int, str | None]:
        groups = list(dict.fromkeys(t.group for t in threads if t.group))
        names = await _each([partial(self.vm.thread_group_reference.name, g) for g in groups])
        return dict(zip(groups, names, strict=True))

    async def _monitors_and_counts(self, held: Sequence[_Thread], caps: _MonitorCaps) -> None:
        """Round 2 (with the group names): frame counts, owned monitors and contended monitors."""
        reference = self.vm.thread_reference
        asks: list[tuple[_Thread, str, Callable[[], Awaitable[Any]]]] = []
        for t in held:
            asks.append((t, "frame_count", partial(reference.frame_count, t.id)))
            if caps.owned:
                asks.append((t, "owned", partial(reference.owned_monitors, t.id)))
            if caps.contended and t.status in (3, 4):  # only a blocked or waiting thread has one (JVMTI)
                asks.append((t, "contended", partial(reference.current_contended_monitor, t.id)))
        for (thread, field, _), answer in zip(asks, await _each([ask for _, _, ask in asks]), strict=True):
            setattr(thread, field, answer)

    async def _frames_and_owners(self, held: Sequence[_Thread], depth: int, caps: _MonitorCaps) -> None:
        """Round 3: the top frames and the owners of contended monitors, then their class names."""
        asks: list[tuple[_Thread, str, Callable[[], Awaitable[Any]]]] = []
        for t in held:
            wanted = min(depth, t.frame_count or 0)
            if wanted:
                asks.append((t, "frames", partial(self.vm.thread_reference.frames, t.id, 0, wanted)))
            if caps.info and t.contended is not None and not t.contended.is_null:
                asks.append((t, "owner", partial(self._owner, ObjectId(int(t.contended.value)))))  # type: ignore[arg-type]
        for (thread, field, _), answer in zip(asks, await _each([ask for _, _, ask in asks]), strict=True):
            setattr(thread, field, answer if answer is not None or field != "frames" else [])

    async def _owner(self, monitor: ObjectId) -> ThreadId | None:
        owner = (await self.vm.object_reference.monitor_info(monitor)).owner
        return owner or None

    async def _stop_infos(self, listed: Sequence[_Thread], groups: dict[int, str | None],
                          handle: Callable[[ThreadId], str], listing: Listing) -> list[ThreadInfo]:
        """Round 4: the frames' positions and the monitors' classes; the records, with their handles."""
        locations = [f.location for t in listed for f in t.frames]
        monitors = [v for t in listed for v in _monitor_values(t)]
        positions, summaries = await gather([partial(self.symbols.describe, locations),
                                             partial(self.values.summarize, monitors)])
        where, what = iter(positions), iter(summaries)
        infos = []
        for t in listed:
            info = self._info(t, groups)
            if not t.suspended or t.status == 0:
                infos.append(info)
                continue
            thread_id = handle(t.id)
            listing.threads[thread_id] = t.id
            if t.frame_count is not None:
                listing.frame_counts[t.id] = t.frame_count
            frames = []
            for index, frame in enumerate(t.frames):
                position = next(where)
                frame_id = f"{thread_id}.f{index}"
                listing.frames[frame_id] = FrameRef(t.id, frame.frame_id, frame.location)
                frames.append(Frame.at(frame_id, index, position))
            owned = tuple(_monitor(next(what)) for _ in t.owned) if t.owned is not None else None
            waiting = None
            if t.contended is not None and not t.contended.is_null:
                shown = next(what)
                owner = t.owner
                if owner is not None:
                    listing.threads.setdefault(handle(owner), owner)
                waiting = t.waiting = WaitingFor(shown.object_id or "", shown.runtime_type,
                                                 handle(owner) if owner is not None else None,
                                                 listing.names.get(owner) if owner is not None else None,
                                                 preview=shown.preview)
            infos.append(dataclasses.replace(info, thread_id=thread_id, frame_count=t.frame_count,
                                             frames=tuple(frames), owned_monitors=owned, waiting_for=waiting))
        return infos

    def _info(self, t: _Thread, groups: dict[int, str | None]) -> ThreadInfo:
        return ThreadInfo(t.name, STATUS.get(t.status, "not_started"), t.suspended, groups.get(t.group))


def _deadlocks(held: Sequence[_Thread], handle: Callable[[ThreadId], str]) -> list[Deadlock]:
    """The cycles among threads blocked entering a monitor (status ``monitor``) whose owner is known."""
    blocked = {t.id: t for t in held if t.status == 3 and t.owner is not None and t.waiting is not None}
    cycles = find_cycles({thread: t.owner for thread, t in blocked.items() if t.owner in blocked})
    described = {thread: (handle(thread), t.name, t.waiting.object_id, t.waiting.runtime_type, t.waiting.preview)
                 for thread, t in blocked.items() if t.waiting is not None}
    return [links(cycle, described) for cycle in cycles]


def _monitor_values(t: _Thread) -> list[Value]:
    values = list(t.owned or ())
    if t.contended is not None and not t.contended.is_null:
        values.append(t.contended)
    return values


def _monitor(summary: Summary) -> Monitor:
    return Monitor(summary.object_id or "", summary.runtime_type, summary.preview)


def _handle(stop_id: str, thread: ThreadId) -> str:
    return f"{stop_id}.t{thread:x}"
