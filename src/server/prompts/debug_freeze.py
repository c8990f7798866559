"""``debug_freeze``: the fewest calls for a freeze (threads that wait for ever: a deadlock, a blocked thread)."""

from __future__ import annotations

from ._prompt import TARGET, Prompt

PROMPT = Prompt(
    "debug_freeze",
    "Find why an app hangs or its data stops changing (deadlock, blocked thread), in three calls.",
    (TARGET,),
    "Debug a freeze with pyjdwp in as few calls as possible ({target}).\n"
    "1. attach_debugger.\n"
    "2. pause_debugger: it answers the app's threads (status, top frame, the monitors each owns and waits "
    "for, with previews of those objects) and deadlocks, the cycles of threads waiting on each other; "
    "threads idle at the same top frame are one entry (count, thread_ids); the VM's own threads are only "
    "counted (systemThreads: true lists them).\n"
    "3. detach_debugger: releases the pause (a deadlock stays one: the fix is in the lock order).\n"
    "No get_debugger_threads or get_debugger_object: the pause answered them.",
    order=30,
)
