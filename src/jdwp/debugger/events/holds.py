"""Holding an app at its start: which thread a ``launch`` stop names, and what it tells the user.

Layer: ``jdwp.debugger`` on ``jdwp.client``; knows nothing of Android's tools (the server decides that
an app was launched). Used by :meth:`Debugger.hold_at_launch`. docs/design.md §4.6.

An app started with ``am start -D`` waits in ``Debug.waitForDebugger()`` on its main thread, and lets
itself go 1.3 s after the debugger's last command (frameworks/base ``android.os.Debug``): so the whole
VM is suspended at once, and the stop names the main thread, whose stack shows where it waits.
"""

from __future__ import annotations

from functools import partial

from ...client import JdwpClient
from ...protocol.errors import CommandError
from ...protocol.types import ThreadId
from .._gather import gather

__all__ = ["LAUNCH_NOTE", "main_thread"]

LAUNCH_NOTE = ("the app was started for debugging and is held before its code runs (the whole VM is "
               "suspended): set breakpoints now — they bind as classes load — then Debugger.resume() starts it")


async def main_thread(vm: JdwpClient) -> ThreadId:
    """The thread named ``main`` (an Android app's UI thread), else the first thread the VM lists.

    Raises:
        CommandError: the VM lists no thread at all (nothing to hold a stop on).
        JdwpError: the VM did not answer.
    """
    threads = await vm.all_threads()
    if not threads:
        raise CommandError("VirtualMachine.AllThreads", 10)  # INVALID_THREAD: nothing to name
    try:
        names = await gather([partial(vm.thread_reference.name, t) for t in threads])
    except CommandError:
        return threads[0]  # a thread ended while we asked: any live one will do
    for thread, name in zip(threads, names, strict=True):
        if name == "main":
            return thread
    return threads[0]
