"""``debug_crash``: the fewest calls for a crash (an exception that kills a thread or the app)."""

from __future__ import annotations

from ._prompt import TARGET, Argument, Prompt

PROMPT = Prompt(
    "debug_crash",
    "Find why an exception kills a thread or the app, in two calls.",
    (TARGET, Argument("exceptionClass", "The exception's binary class name, from the log.",
                      "the exception class from the log (binary name)")),
    "Debug a crash with pyjdwp in as few calls as possible ({target}; exception {exceptionClass}).\n"
    "1. attach_debugger (platform jvm with address, or android with appId) with wait: true, timeoutMs 30000 "
    "and breakpoints: [{{exceptionClass, capture: {{locals: true}}}}] (add stack: 5 to the capture for the "
    "callers, expressions: [...] for values the locals do not hold; uncaught, the default, is a thread that "
    "dies): its answer is the stop, with the exception (type, message, throw_location) and the capture, frame "
    "0 and its locals. Read the cause there.\n"
    "2. detach_debugger: the app runs on (the thread then dies of its exception as it would have).\n"
    "No get_debugger_stack or get_debugger_locals: the capture answered them.",
    order=10,
)
