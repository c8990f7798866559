"""``debug_wrong_value``: the fewest calls for a wrong value (a computation whose result is wrong)."""

from __future__ import annotations

from ._prompt import TARGET, Argument, Prompt

PROMPT = Prompt(
    "debug_wrong_value",
    "Find why a computed value is wrong, in two calls.",
    (TARGET,
     Argument("location", "file:line (or class:line) where the value is computed or returned.",
              "the file:line where the value is returned"),
     Argument("expressions", "What would explain the value (expressions, comma-separated).",
              "the inputs of the computation")),
    "Debug a wrong value with pyjdwp in as few calls as possible ({target}; at {location}).\n"
    "1. attach_debugger with wait: true, timeoutMs 30000 and breakpoints: [{{file and line of {location} (where "
    "the value is returned: every local is set), capture: {{locals: true, expressions: [{expressions}]}}}}]: name "
    "now every value you may need (up to 10); an expression more costs bytes, a call more costs a turn. Its "
    "answer is the stop, with frame 0's locals and each expression's value or error.\n"
    "2. detach_debugger (it removes the breakpoint and resumes the app).\n"
    "Still missing a value before detaching: evaluate_debugger_expression with stopId and expressions: [...] "
    "(frameId defaults to the stop's frame 0) asks them all in one call.",
    order=20,
)
