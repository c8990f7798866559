"""``debug_crash``: the fewest calls for a crash (an exception that kills a thread or the app)."""

from __future__ import annotations

from ._prompt import TARGET, Argument, Prompt

PROMPT = Prompt(
    "debug_crash",
    "Find why an exception kills a thread or the app, in four calls.",
    (TARGET, Argument("exceptionClass", "The exception's binary class name, from the log.",
                      "the exception class from the log (binary name)")),
    "Debug a crash with pyjdwp in as few calls as possible ({target}; exception {exceptionClass}).\n"
    "1. attach_debugger (platform jvm with address, or android with appId).\n"
    "2. set_debugger_exception_breakpoint with exceptionClass and capture {{locals: true}} (add stack: 5 for "
    "the callers, expressions: [...] for values the locals do not hold); uncaught, the default, is a thread "
    "that dies.\n"
    "3. wait_for_debugger_event with until: \"stopped\" and timeoutMs 30000: the stop has the exception "
    "(type, message, throw_location) and the capture: frame 0 and its locals. Read the cause there.\n"
    "4. detach_debugger: the app runs on (the thread then dies of its exception as it would have).\n"
    "No get_debugger_stack or get_debugger_locals: the capture answered them.",
    order=10,
)
