"""``debug_wrong_value``: the fewest calls for a wrong value (a computation whose result is wrong)."""

from __future__ import annotations

from ._prompt import TARGET, Argument, Prompt

PROMPT = Prompt(
    "debug_wrong_value",
    "Find why a computed value is wrong, in few calls.",
    (TARGET,
     Argument("location", "file:line (or class:line) where the value is computed or returned.",
              "the file:line where the value is returned"),
     Argument("expressions", "What would explain the value (expressions, comma-separated).",
              "the inputs of the computation")),
    "Debug a wrong value with pyjdwp in as few calls as possible ({target}; at {location}).\n"
    "1. attach_debugger.\n"
    "2. set_debugger_breakpoint at {location}.\n"
    "3. wait_for_debugger_event with timeoutMs 30000, again with next_cursor until a stopped event.\n"
    "4. get_debugger_stack with limit 1: frame 0's frame_id.\n"
    "5. get_debugger_locals of that frame.\n"
    "6. evaluate_debugger_expression for what the locals do not show ({expressions}).\n"
    "7. detach_debugger (it removes the breakpoint and resumes the app).",
    order=20,
)
