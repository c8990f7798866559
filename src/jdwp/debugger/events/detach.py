"""Detach: clear every request of ours, release every suspension we own, dispose, and say what is left.

Layer: ``jdwp.debugger`` on ``jdwp.client``; no MCP, no ``android``. DESIGN.md §3 (suspension ownership)
and §5 (cleanup: never claim the app runs without evidence). :meth:`.engine.Debugger.detach` runs it under
its deadline and makes it idempotent.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Literal

import trio

from ...client import JdwpClient
from ...protocol.commands import Empty, VirtualMachine
from ...protocol.constants import SuspendPolicy
from ...protocol.errors import CommandError, JdwpError
from ..model import Cleanup
from ..requests.breakpoints import Breakpoints
from ..requests.prepares import note_cleared
from ..requests.steps import Steps
from .stops import Stops, release_command
from .suspension import suspended_among

__all__ = ["DETACH_DEADLINE", "clean_up"]

DETACH_DEADLINE = 10.0


async def clean_up(vm: JdwpClient, lock: trio.Lock, steps: Steps, breakpoints: Breakpoints, stops: Stops,
                   drain: Callable[[], Awaitable[None]]) -> Cleanup:
    """Clear our requests, release the suspensions of every stop (current and queued), then
    ``VirtualMachine.Dispose`` (1,6); ``drain`` waits until the event sets received so far are handled.

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
        # Every event our requests caused came before the replies to clearing them; once those are
        # handled (released, since we are detaching), what is left suspended is not ours.
        await drain()
        running = not isinstance(threads, CommandError) and await suspended_among(vm, threads.threads) == 0
        await vm.dispose()  # a VM that closes instead of answering did what Dispose asks: the counts stand
    except JdwpError as exc:  # lost, garbled (ProtocolError) or unanswered: nothing more can be confirmed
        await vm.aclose()
        return Cleanup("failed", "unknown", tuple(remaining) or ("unconfirmed",), (str(exc),))
    status: Literal["complete", "failed"] = "complete" if not errors and not remaining else "failed"
    return Cleanup(status, "running" if running else "unknown", tuple(remaining), tuple(errors))
