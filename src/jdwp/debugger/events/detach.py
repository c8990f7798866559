"""Detach: clear every request of ours, release every suspension we own, dispose, and say what is left.

Layer: ``jdwp.debugger`` on ``jdwp.client``; no MCP, no ``android``. docs/design.md §3.3 (suspension ownership)
and §3.13 (cleanup: never claim the app runs without evidence). :meth:`.engine.Debugger.detach` runs it under
its deadline and makes it idempotent.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Literal

import trio

from ...client import JdwpClient
from ...protocol.commands import Empty, VirtualMachine
from ...protocol.constants import SuspendPolicy
from ...protocol.errors import CommandError, JdwpError
from ...protocol.types import ThreadId
from ..model import Cleanup
from ..requests.manager import Requests
from ..requests.prepares import note_cleared
from ..requests.steps import Steps
from .stops import Stops, release_command
from .suspension import suspended_among, threads_suspended_now

__all__ = ["DETACH_DEADLINE", "NEXT_SET_WITHIN", "SETTLE_WITHIN", "clean_up"]

#: Waits until the event sets received so far are handled; returns how many have been handled, ever.
Drain = Callable[[], Awaitable[int]]
#: Whether one more event set than the count given is handled within the seconds given.
SetHandledAfter = Callable[[int, float], Awaitable[bool]]

DETACH_DEADLINE = 10.0

#: How long detach goes on reading whether the app runs while event sets still on their way come (each
#: is released as it comes), and how long it waits for the next one while a thread is seen suspended.
#: Well inside :data:`DETACH_DEADLINE`; a suspension no event set explains ends the wait at once.
SETTLE_WITHIN = 2.0
NEXT_SET_WITHIN = 1.0


async def clean_up(vm: JdwpClient, lock: trio.Lock, steps: Steps, breakpoints: Requests, stops: Stops,
                   drain: Drain, set_handled_after: SetHandledAfter) -> Cleanup:
    """Clear our requests, release the suspensions of every stop (current and queued), then
    ``VirtualMachine.Dispose`` (1,6). ``drain`` and ``set_handled_after`` tell of the engine's event loop.

    Returns the cleanup: ``complete`` only when every request was cleared and every suspension released;
    the app is ``running`` only when no thread is suspended afterwards. A connection that fails meanwhile
    is closed, and the cleanup is ``failed`` with what could not be confirmed.
    """
    remaining: list[str] = []
    errors: list[str] = []
    try:
        async with lock:
            # Taken at once under the lock: an event set handled after this sees the engine detaching and is
            # released, so nothing of ours is made that this does not clear.
            clears = [*steps.take_all(), *breakpoints.take_all()]
            states = stops.take_all()
            releases = [(state, *release_command(state.suspension)) for state in states
                        if state.suspension.policy != SuspendPolicy.NONE]
            # The clears, the releases and the thread list in one write. The VM runs one connection's commands
            # in order: every request is gone before a thread is resumed, so no event of ours follows.
            remaining = [clear.what for clear in clears]  # until the VM answers
            answers = await vm.request_all([*(clear.command() for clear in clears),
                                            *((command, out) for _, command, out in releases),
                                            (VirtualMachine.AllThreads, Empty())])
            remaining = []
        cleared, released, threads = answers[:len(clears)], answers[len(clears):-1], answers[-1]
        note_cleared(clears, cleared)
        errors += [f"releasing {state.stop.stop_id}: {answer}" for (state, _, _), answer in zip(releases, released,
                                                                                               strict=True)
                   if isinstance(answer, CommandError)]
        listed = None if isinstance(threads, CommandError) else threads.threads
        running = await _runs(vm, listed, drain, set_handled_after)
        await vm.dispose()  # a VM that closes instead of answering did what Dispose asks: the counts stand
    except JdwpError as exc:  # lost, garbled (ProtocolError) or unanswered: nothing more can be confirmed
        await vm.aclose()
        return Cleanup("failed", "unknown", tuple(remaining) or ("unconfirmed",), (str(exc),))
    status: Literal["complete", "failed"] = "complete" if not errors and not remaining else "failed"
    return Cleanup(status, "running" if running else "unknown", tuple(remaining), tuple(errors))


async def _runs(vm: JdwpClient, threads: Sequence[ThreadId] | None, drain: Drain,
                set_handled_after: SetHandledAfter) -> bool:
    """Whether no thread is suspended once the event sets still on their way have come and been released.

    The replies to our clears do not prove that every event set of ours has been sent: in the OpenJDK agent
    (which ART runs too, as oj-libjdwp) an event's thread queues its set for the agent's event helper
    thread, which suspends the threads and then writes the set, on its own, while the command thread goes
    on answering (``eventHelper.c``: ``enqueueCommand``, ``handleReportEventCompositeCommand``). A set
    queued just before a ``Clear`` can suspend the threads after the status we read; its packet follows.
    So while a thread is seen suspended, we wait for the next event set (released as it comes, since the
    engine is detaching) and read again, for at most :data:`SETTLE_WITHIN` seconds in all. A suspension
    that no event set follows is not ours to explain: the app's state is then unknown. ``threads`` is
    ``None`` when listing them failed (a thread ended meanwhile): they are listed once more.
    """
    give_up = trio.current_time() + SETTLE_WITHIN
    listed_again = False
    while True:
        seen = await drain()  # the event sets received so far, released
        count = await threads_suspended_now(vm) if threads is None else await suspended_among(vm, threads)
        if count == 0:
            return True
        if count is None:  # a thread ended while we asked: no proof either way
            if listed_again:
                return False
            listed_again, threads = True, None
            continue
        left = give_up - trio.current_time()
        if left <= 0 or not await set_handled_after(seen, min(NEXT_SET_WITHIN, left)):
            return False
        threads = None  # threads may have started or ended meanwhile: list them afresh
