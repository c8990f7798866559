"""The engine speaks the library's words (``Debugger.stack()``, ``stop_id``); an agent calls tools, so the
server says the tools' (``get_debugger_stack``, ``stopId``).

Applied to error messages (``failures``) and to the free-text fields of answers (``note``,
``condition_error``: ``envelope.jsonable``). Phrases, not bare words: an answer's own keys are snake_case
(``stop_id`` in a stop), so only a phrase that names an input is rewritten.
"""

from __future__ import annotations

__all__ = ["WORDED_FIELDS", "in_tool_words"]

#: Longer phrases first where one contains another (``resume it (Debugger.resume())``).
_TOOL_WORDS = (
    ("Debugger.object()", "get_debugger_object"),
    ("Debugger.locals()", "get_debugger_locals"),
    ("Debugger.stack()", "get_debugger_stack"),
    ("Debugger.threads()", "get_debugger_threads"),
    ("Debugger.pause()", "pause_debugger"),
    ("Debugger.set_value()", "set_debugger_value"),
    ("Debugger.remove_breakpoint()", "remove_debugger_breakpoint"),
    ("resume it (Debugger.resume())", "resume_debugger it"),
    ("Debugger.resume()", "resume_debugger"),
    ("set the debugger's allow_mutation to True", "start the server with --allow-mutation"),
    ("give frame_id,", "give frameId,"),
    ("with this stop_id", "with this stopId"),
    ("give thread_id,", "give threadId,"),
    ("no stop_id:", "no stopId:"),
    ("pass its stop_id", "pass its stopId"),
    ("needs a stop_id", "needs a stopId"),
    ("stack_depth must be", "stackDepth must be"),
    ("stack_depth ", "stackDepth "),
    ("exactly one of frame_id (a local) or object_id", "exactly one of frameId (a local) or objectId"),
    ("an array's object_id", "an array's objectId"),
)

#: The fields of the engine's records whose text is read by an agent, not by code.
WORDED_FIELDS = frozenset({"note", "condition_error"})


def in_tool_words(message: str) -> str:
    """An engine text with its library words (``Debugger.stack()``) as the tools' (``get_debugger_stack``)."""
    if "Debugger." not in message and "_" not in message:
        return message
    for library, tool in _TOOL_WORDS:
        message = message.replace(library, tool)
    return message
