"""Whether a VM's threads are suspended, as a debugger that just connected can tell.

Layer: ``jdwp.debugger`` (trio, over ``jdwp.client``); no MCP, no ``android``. docs/design.md §3.13 (cleanup:
never claim the app runs without evidence) and issue 14 §3.

When a debugger's connection ends, the JDWP agent resets (external/oj-libjdwp ``threadControl.c``,
``threadControl_reset``): it resumes the threads it had suspended for that debugger and sets every
thread's suspend count to 0. A debugger connecting afterwards therefore reads ``SuspendCount`` (11,12)
= 0 on every thread whatever happened before: the count is the agent's bookkeeping for *this*
connection, not evidence that the app runs. ``ThreadReference.Status`` (11,4) reports the thread's JVMTI
state instead (its ``suspend_status`` comes from ``JVMTI_THREAD_STATE_SUSPENDED``), which is.

So the status is the one evidence this package takes for "the app runs", on every path: detach on its own
connection (after its clears and releases, :mod:`.detach`) and a cleanup retry on a fresh one (the server's).
On the detaching connection the two would agree (our suspensions are JVMTI suspensions); only the status
stays true after the agent's reset, and one rule for both keeps the reports comparable.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...client import JdwpClient
from ...protocol.commands import ThreadReference
from ...protocol.commands.threads import ThreadOut
from ...protocol.errors import CommandError
from ...protocol.types import ThreadId

__all__ = ["AGENT_RESET", "suspended_among", "suspended_threads", "threads_suspended_now"]

AGENT_RESET = ("agent reset: the JDWP agent accepted a new connection, so it dropped the old one's requests and "
               "released its suspensions; its suspend counts restart at 0 and prove nothing")


async def threads_suspended_now(vm: JdwpClient) -> int | None:
    """How many threads the VM reports suspended (``ThreadReference.Status``, asked of every thread in one
    write), or ``None`` when a thread ended while we asked (no proof either way). Zero is the evidence for
    "the app runs" that detach and its retry report."""
    try:
        threads = await vm.all_threads()
    except CommandError:
        return None
    return await suspended_among(vm, threads)


async def suspended_among(vm: JdwpClient, threads: Sequence[ThreadId]) -> int | None:
    """:func:`threads_suspended_now` of ``threads``, already listed (detach lists them with its clears)."""
    statuses = await vm.request_all([(ThreadReference.Status, ThreadOut(t)) for t in threads])
    if any(isinstance(status, CommandError) for status in statuses):
        return None  # a thread ended while we asked
    return sum(1 for status in statuses if status.suspend_status & 1)


#: The name detach's count was published under (``jdwp.debugger.__all__``): the same function.
suspended_threads = threads_suspended_now
