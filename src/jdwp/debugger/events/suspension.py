"""Whether a VM's threads are suspended, as a debugger that just connected can tell.

Layer: ``jdwp.debugger`` (trio, over ``jdwp.client``); no MCP, no ``android``. DESIGN.md §5 (cleanup:
never claim the app runs without evidence) and issue 14 §3.

When a debugger's connection ends, the JDWP agent resets (external/oj-libjdwp ``threadControl.c``,
``threadControl_reset``): it resumes the threads it had suspended for that debugger and sets every
thread's suspend count to 0. A debugger connecting afterwards therefore reads ``SuspendCount`` (11,12)
= 0 on every thread whatever happened before: the count is the agent's bookkeeping for *this*
connection, not evidence that the app runs. ``ThreadReference.Status`` (11,4) reports the thread's JVMTI
state instead (its ``suspend_status`` comes from ``JVMTI_THREAD_STATE_SUSPENDED``), which is.
"""

from __future__ import annotations

from functools import partial

from ...client import JdwpClient
from ...protocol.errors import CommandError
from .._gather import gather

__all__ = ["AGENT_RESET", "threads_suspended_now"]

AGENT_RESET = ("agent reset: the JDWP agent accepted a new connection, so it dropped the old one's requests and "
               "released its suspensions; its suspend counts restart at 0 and prove nothing")


async def threads_suspended_now(vm: JdwpClient) -> int | None:
    """How many threads the VM reports suspended (``ThreadReference.Status``, asked of every thread at
    once), or ``None`` when a thread ended while we asked."""
    try:
        threads = await vm.all_threads()
        statuses = await gather([partial(vm.thread_reference.status, t) for t in threads])
    except CommandError:
        return None
    return sum(1 for status in statuses if status.suspend_status & 1)
