"""Threads at scale: threads that look the same at a stop, folded into one entry, the interesting ones first.

Layer: ``jdwp.debugger`` (pure: it sorts and folds a :class:`.threads.ThreadsPage`'s threads; no I/O, no trio).
Described in docs/tools.md (``get_debugger_threads``, "Similar threads").

A server with a pool of 200 threads has 190 of them parked in the same place: listed one by one, they are
most of a listing, and say one thing. As a reader of ``jstack`` output does (and IntelliJ's "group similar
threads"), threads whose listed frames read the same — same classes, methods, source files and lines, as
:func:`frame_text` writes them — and whose status (and thread group, unless told otherwise) is the same are
said once, as :class:`SimilarThreads`: how many, the frames, the first :data:`SHOWN_NAMES` names and every
thread's ID (each works as a listed thread's does: a thread's stack, with its frames' IDs, is one ``stack``
call away).

A listing writes each frame as one line, as ``jstack`` does (:func:`frame_text`): a listing is read to see
where threads are, and a frame written as an object with its ID, index and code index takes twice the bytes
(a 200-thread server under load lists 20–30 threads by themselves). The frames' IDs come from the stack.

Never folded: a thread with no listed frames (nothing says it does what another does: a listing without a
stop, or with ``stackDepth`` 0), a thread without a stop-scoped ID (a thread the stop did not suspend),
and a thread a freeze is read from — one that owns a monitor, waits for one (entering it or in
``Object.wait``), or is in a deadlock. A set of one stays the thread itself.

The entries come most telling first (a stable sort, so the VM's order within a rank): threads in a
deadlock, threads blocked entering a monitor, threads running Java code (a top frame with a code index: a
thread in a native method, such as a socket read or ``epoll``, waits on the world), threads that own or
wait for a monitor, every other thread, then the folded sets, smallest first (the biggest is the idle pool);
the VM's own threads (:func:`.diagnosis.is_system`) after the app's.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from ..model import OMIT_NONE, Place
from .deadlocks import Deadlock
from .diagnosis import is_system
from .threads import ThreadInfo, ThreadStatusName

__all__ = ["SHOWN_NAMES", "SimilarThreads", "fold_threads", "frame_text"]

#: Names a folded set shows (its IDs are all there).
SHOWN_NAMES = 5

# Ranks, most telling first (see the module).
_DEADLOCKED, _BLOCKED, _BUSY, _MONITORS, _OTHER, _FOLDED = range(6)
_SYSTEM = 10  # added to a VM thread's rank: the app's threads come first


@dataclasses.dataclass(frozen=True, slots=True)
class SimilarThreads:
    """``count`` threads with the same ``status`` (and thread ``group``, when grouped by it) stopped at the
    same ``frames`` (each as :func:`frame_text` writes it): the first :data:`SHOWN_NAMES` of their names, and
    every one's ``thread_id``, in the VM's order. Every one is suspended (a listing has frames only of
    suspended threads) and owns and waits for no monitor. The frames' IDs (each thread has its own) come from
    the stack of one of the threads."""

    count: int
    status: ThreadStatusName
    frames: tuple[str, ...]
    thread_names: tuple[str, ...]
    thread_ids: tuple[str, ...]
    group: str | None = dataclasses.field(default=None, metadata=OMIT_NONE)


def fold_threads(threads: Sequence[ThreadInfo], deadlocks: Sequence[Deadlock] | None = None, *,
                 by_group: bool = True) -> tuple[ThreadInfo | SimilarThreads, ...]:
    """The threads, similar ones folded and the most telling first (see the module).

    Args:
        threads: a listing's threads (:class:`.threads.ThreadsPage`), in the VM's order.
        deadlocks: the listing's cycles; their threads are never folded.
        by_group: fold only threads of the same thread group (and say it); ``False`` for a list of the
            app's threads that does not show groups.

    Returns:
        Single threads as they were, and a :class:`SimilarThreads` for each set of two or more.
    """
    in_cycle = {link.thread_id for cycle in deadlocks or () for link in cycle.threads}
    # Each entry with its sort key: (rank, size of a folded set or 0, the VM's position of its first thread).
    entries: list[tuple[tuple[int, int, int], ThreadInfo | SimilarThreads]] = []
    sets: dict[tuple[object, ...], tuple[int, int, list[ThreadInfo]]] = {}
    for position, thread in enumerate(threads):
        rank = _rank(thread, in_cycle) + (_SYSTEM if is_system(thread) else 0)
        if not _foldable(thread, in_cycle):
            entries.append(((rank, 0, position), thread))
            continue
        key = (rank, thread.status, thread.group if by_group else None, tuple(frame_text(f) for f in thread.frames))
        sets.setdefault(key, (rank, position, []))[2].append(thread)
    for rank, position, members in sets.values():
        if len(members) == 1:
            entries.append(((rank, 0, position), members[0]))
        else:
            folded_rank = rank - rank % _SYSTEM + _FOLDED
            entries.append(((folded_rank, len(members), position), _folded(members, by_group)))
    entries.sort(key=lambda entry: entry[0])
    return tuple(entry for _, entry in entries)


def _foldable(thread: ThreadInfo, in_cycle: set[str]) -> bool:
    return (bool(thread.frames) and thread.thread_id is not None and thread.thread_id not in in_cycle
            and not thread.owned_monitors and thread.waiting_for is None)


def _rank(thread: ThreadInfo, in_cycle: set[str]) -> int:
    if thread.thread_id is not None and thread.thread_id in in_cycle:
        return _DEADLOCKED
    if thread.status == "monitor":
        return _BLOCKED
    if thread.status == "running" and (not thread.frames or thread.frames[0].code_index >= 0):
        return _BUSY  # a native method's frame has code index -1 (JDWP Location of a native method)
    if thread.owned_monitors or thread.waiting_for is not None:
        return _MONITORS
    return _OTHER


def frame_text(place: Place) -> str:
    """A frame as a listing writes it, one line as ``jstack`` does: ``Class.method(File.java:123)``;
    ``(File.java)`` without a line table, ``(Unknown Source)`` without a source name, ``(Native Method)`` for a
    native method (code index -1, JDWP's Location of a native method). A name cut to the bound
    (:func:`.model.bound_names`) ends with ``…``; a frame of code inlined from another function (Kotlin) ends
    with `` [inlined]``: its source and line are that function's."""
    cut = set(getattr(place, "truncated_names", ()))
    class_name, method, source = (getattr(place, name) + ("…" if name in cut else "")
                                  if getattr(place, name) is not None else None
                                  for name in ("class_name", "method", "source"))
    if place.code_index < 0:
        where = "Native Method"
    elif source is None:
        where = "Unknown Source" if place.line is None else f"Unknown Source:{place.line}"
    else:
        where = source if place.line is None else f"{source}:{place.line}"
    inlined = " [inlined]" if getattr(place, "inlined", False) else ""
    return f"{class_name}.{method}({where}){inlined}"


def _folded(members: Sequence[ThreadInfo], by_group: bool) -> SimilarThreads:
    first = members[0]
    return SimilarThreads(len(members), first.status, tuple(frame_text(f) for f in first.frames),
                          tuple(t.name for t in members[:SHOWN_NAMES]),
                          tuple(t.thread_id or "" for t in members), first.group if by_group else None)
