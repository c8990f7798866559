"""``debug_crash``: the fewest calls for a crash (an exception that kills a thread or the app)."""

from __future__ import annotations

from ._prompt import TARGET, Argument, Prompt

PROMPT = Prompt(
    "debug_crash",
    "Find why an exception kills a thread or the app, in few calls.",
    (TARGET, Argument("exceptionClass", "The exception's binary class name, from the log.",
                      "the exception class from the log (binary name)")),
    "Debug a crash with pyjdwp in as few calls as possible ({target}; exception {exceptionClass}).\n"
    "1. attach_debugger (platform jvm with address, or android with appId).\n"
    "2. set_debugger_exception_breakpoint with exceptionClass (uncaught, the default, for a thread that dies).\n"
    "3. wait_for_debugger_event with timeoutMs 30000, again with next_cursor as afterSequence until a "
    "stopped event: it has the exception (type, message, throw_location) and thread_id.\n"
    "4. get_debugger_stack with limit 1: frame 0's frame_id.\n"
    "5. get_debugger_locals of that frame: the values that made it throw.\n"
    "6. detach_debugger: the app runs on (the thread then dies of the exception as it would have).",
    order=10,
)
