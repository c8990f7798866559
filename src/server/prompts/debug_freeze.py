"""``debug_freeze``: the fewest calls for a freeze (threads that wait for ever: a deadlock, a blocked thread)."""

from __future__ import annotations

from ._prompt import TARGET, Prompt

PROMPT = Prompt(
    "debug_freeze",
    "Find why an app hangs or its data stops changing (deadlock, blocked thread), in few calls.",
    (TARGET,),
    "Debug a freeze with pyjdwp in as few calls as possible ({target}).\n"
    "1. attach_debugger.\n"
    "2. pause_debugger: every thread suspended, one stop.\n"
    "3. get_debugger_threads with the pause's stopId and stackDepth 1: each thread's status, top frame, "
    "owned_monitors and waiting_for, and deadlocks, the cycles of threads waiting on each other.\n"
    "4. detach_debugger: releases the pause (a deadlock stays a deadlock; the fix is in the code).",
    order=30,
)
