"""``pause_debugger``: pause the whole app, and answer what its threads are doing (a freeze in one call)."""

from __future__ import annotations

import dataclasses

from pydantic import StrictBool

from jdwp import JdwpError
from jdwp.debugger import (
    OMIT_EMPTY,
    OMIT_NONE,
    Deadlock,
    DebuggerError,
    SimilarThreads,
    Stop,
    ThreadInfo,
    fold_threads,
    frame_text,
)

from ..answers.results import ListedThread, optional
from ..session.models import SessionInput
from ._tool import Call, Tool

DESCRIPTION = (
    "Suspend the app (a stop); answers its threads, monitors and deadlocks.")


class PauseInput(SessionInput):
    systemThreads: StrictBool = False


@dataclasses.dataclass(frozen=True, slots=True)
class PausedMonitor:
    """A monitor an app thread owns or waits for, said once for the whole answer: its class, its preview and
    the thread that owns it (``None``: nobody, e.g. while its waiter waits for a ``notify``)."""

    object_id: str
    runtime_type: str | None
    preview: str | None = optional()
    owner_thread: str | None = optional()


@dataclasses.dataclass(frozen=True, slots=True)
class PausedWait:
    """The monitor a thread waits for (an ``object_id`` of ``monitors``), and its owner's name."""

    object_id: str
    owner_name: str | None = optional()


@dataclasses.dataclass(frozen=True, slots=True)
class PausedThread:
    """An app thread at the pause: its status, ID, top frame (one line, :func:`jdwp.debugger.frame_text`: its
    ``frame_id`` comes from get_debugger_stack) and the monitors it owns and waits for, by ``object_id`` (every
    thread is suspended by the pause: no ``suspended`` flag to repeat)."""

    name: str
    status: str
    thread_id: str | None = optional()
    frame_count: int | None = optional()
    frames: tuple[str, ...] = dataclasses.field(default=(), metadata=OMIT_EMPTY)
    owned_monitors: tuple[str, ...] | None = optional()
    waiting_for: PausedWait | None = optional()
    truncated_names: tuple[str, ...] = dataclasses.field(default=(), metadata=OMIT_EMPTY)


@dataclasses.dataclass(frozen=True, slots=True)
class PausedLink:
    """One thread of a deadlock: the monitor it waits for (an ``object_id`` of ``monitors``) and the thread
    of the cycle that owns it."""

    thread_id: str
    thread_name: str
    waiting_for: str
    owner_thread: str


@dataclasses.dataclass(frozen=True, slots=True)
class PausedDeadlock:
    threads: tuple[PausedLink, ...]


@dataclasses.dataclass(frozen=True, slots=True)
class Paused:
    """What pause_debugger answers: the ``pause`` stop it made (also published as a ``stopped`` event), and the
    app's threads as of it (:class:`jdwp.debugger.Diagnosis`): each with status, its top frame and the monitors
    it owns and waits for, most telling first, threads stopped at the same top frame folded into one entry
    (:class:`jdwp.debugger.SimilarThreads`, :func:`jdwp.debugger.fold_threads`); each monitor once, in
    ``monitors``, with its class, preview and owner; the deadlocks; the VM's own threads counted
    (``system_count``), listed when asked (as get_debugger_threads lists threads). ``note`` says why the
    threads are missing when they could not be read (the pause stands).

    A freeze is read in this one answer, so nothing in it is said twice (docs/design.md §3.9): a thread names a
    monitor by its ``object_id``, and ``monitors`` says what it is.
    """

    stop: Stop
    acknowledged: bool = True
    threads: tuple[PausedThread | SimilarThreads, ...] | None = dataclasses.field(default=None, metadata=OMIT_NONE)
    monitors: tuple[PausedMonitor, ...] = dataclasses.field(default=(), metadata=OMIT_EMPTY)
    deadlocks: tuple[PausedDeadlock, ...] | None = dataclasses.field(default=None, metadata=OMIT_NONE)
    system_count: int | None = dataclasses.field(default=None, metadata=OMIT_NONE)
    system_threads: tuple[ListedThread, ...] | None = dataclasses.field(default=None, metadata=OMIT_NONE)
    truncated: bool | None = dataclasses.field(default=None, metadata=OMIT_NONE)
    note: str | None = dataclasses.field(default=None, metadata=OMIT_NONE)


def monitors_of(threads: tuple[ThreadInfo, ...]) -> tuple[PausedMonitor, ...]:
    """Every monitor the threads own or wait for, once each, in the order first met, with its owner."""
    found: dict[str, PausedMonitor] = {}
    for thread in threads:
        for owned in thread.owned_monitors or ():
            known = found.get(owned.object_id)
            found[owned.object_id] = PausedMonitor(owned.object_id, owned.runtime_type,
                                                   owned.preview or (known.preview if known else None),
                                                   thread.thread_id)
        wait = thread.waiting_for
        if wait is not None:
            known = found.get(wait.object_id)
            if known is None:
                found[wait.object_id] = PausedMonitor(wait.object_id, wait.runtime_type, wait.preview,
                                                      wait.owner_thread)
            elif known.owner_thread is None and wait.owner_thread is not None:
                found[wait.object_id] = dataclasses.replace(known, owner_thread=wait.owner_thread)
    return tuple(found.values())


def paused_thread(thread: ThreadInfo) -> PausedThread:
    wait = thread.waiting_for
    owned = tuple(m.object_id for m in thread.owned_monitors) if thread.owned_monitors else None
    return PausedThread(thread.name, thread.status, thread.thread_id, thread.frame_count,
                        tuple(frame_text(f) for f in thread.frames), owned,
                        PausedWait(wait.object_id, wait.owner_name) if wait is not None else None,
                        thread.truncated_names)


def paused_deadlock(deadlock: Deadlock) -> PausedDeadlock:
    return PausedDeadlock(tuple(PausedLink(link.thread_id, link.thread_name, link.waiting_for, link.owner_thread)
                                for link in deadlock.threads))


async def pause(call: Call) -> Paused:
    inp: PauseInput = call.input
    session, engine = call.attached()
    async with session.lock:
        stop = await engine.pause()
        try:
            found = await engine.diagnosis(stop.stop_id, inp.systemThreads)
        except (DebuggerError, JdwpError) as exc:  # the pause stands: its threads are one get_debugger_threads away
            return Paused(stop, note=f"paused, but its threads could not be read ({exc}); list them with "
                                     "get_debugger_threads and this stopId")
        deadlocks = tuple(paused_deadlock(d) for d in found.deadlocks) if found.deadlocks is not None else None
        # The pause shows no thread groups, so it folds across them (its threads are the app's alone).
        folded = fold_threads(found.threads, found.deadlocks, by_group=False)
        threads = tuple(paused_thread(t) if isinstance(t, ThreadInfo) else t for t in folded)
        system = tuple(ListedThread.of(t, system_frames=True) for t in found.system_threads)
        return Paused(stop, True, threads, monitors_of(found.threads),
                      deadlocks, found.system_count, system if inp.systemThreads else None,
                      found.truncated or None, found.note)


TOOL = Tool("pause_debugger", "Pause the whole app", DESCRIPTION,
            PauseInput, pause, Paused, read_only=False, idempotent=False, uncertain_on_interrupt=True, order=130)
