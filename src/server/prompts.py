"""MCP prompts (``prompts/list``, ``prompts/get``): the fewest-call sequences for a crash, a wrong value and a
freeze (issue 24, DESIGN.md §8.6), each a short text a client puts in front of its model.

Layer: ``server``; plain text, no engine or ``android`` import (``prompts/list`` is answered before any
tool call, like ``tools/list``). The sequences are the ones ``bench/agent_journeys.py`` plays and measures
(``tests/support/agent_journeys.py``); ``tests/unit/test_prompts.py`` checks that each prompt names the
same tools in the same order. docs/agents.md explains the choices.
"""

from __future__ import annotations

import dataclasses

import mcp_types as types
from mcp.shared.exceptions import MCPError


@dataclasses.dataclass(frozen=True)
class Argument:
    name: str
    description: str
    #: Written into the text when the client leaves the argument out.
    default: str


@dataclasses.dataclass(frozen=True)
class Journey:
    name: str
    description: str
    arguments: tuple[Argument, ...]
    #: The text, with ``{argument}`` for each argument.
    template: str


TARGET = Argument("target", "How to reach the app: host:port of a JVM, or an Android app id.",
                  "the JVM's host:port, or the Android app id")

PROMPTS = (
    Journey(
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
        "6. detach_debugger: the app runs on (the thread then dies of the exception as it would have)."),
    Journey(
        "debug_wrong_value",
        "Find why a computed value is wrong, in few calls.",
        (TARGET, Argument("location", "file:line (or class:line) where the value is computed or returned.",
                          "the file:line where the value is returned"),
         Argument("expressions", "An expression that would explain the value.",
                  "an input of the computation")),
        "Debug a wrong value with pyjdwp in as few calls as possible ({target}; at {location}).\n"
        "1. attach_debugger.\n"
        "2. set_debugger_breakpoint at {location}.\n"
        "3. wait_for_debugger_event with timeoutMs 30000, again with next_cursor until a stopped event.\n"
        "4. get_debugger_stack with limit 1: frame 0's frame_id.\n"
        "5. get_debugger_locals of that frame.\n"
        "6. evaluate_debugger_expression for what the locals do not show ({expressions}).\n"
        "7. detach_debugger (it removes the breakpoint and resumes the app)."),
    Journey(
        "debug_freeze",
        "Find why an app hangs or its data stops changing (deadlock, blocked thread), in few calls.",
        (TARGET,),
        "Debug a freeze with pyjdwp in as few calls as possible ({target}).\n"
        "1. attach_debugger.\n"
        "2. pause_debugger: every thread suspended, one stop.\n"
        "3. get_debugger_threads with the pause's stopId and stackDepth 1: each thread's status, top frame, "
        "owned_monitors and waiting_for, and deadlocks, the cycles of threads waiting on each other.\n"
        "4. detach_debugger: releases the pause (a deadlock stays a deadlock; the fix is in the code)."),
)

BY_NAME = {prompt.name: prompt for prompt in PROMPTS}


def listed_prompts() -> list[types.Prompt]:
    """``prompts/list``: each prompt with its arguments (all optional)."""
    return [types.Prompt(name=p.name, description=p.description,
                         arguments=[types.PromptArgument(name=a.name, description=a.description, required=False)
                                    for a in p.arguments])
            for p in PROMPTS]


def prompt_text(name: str, arguments: dict[str, str] | None = None) -> str:
    """The text of one prompt with its arguments written in (a missing one by its default's words).

    Raises:
        MCPError: INVALID_PARAMS for an unknown prompt or argument (JSON-RPC error, as the spec says).
    """
    prompt = BY_NAME.get(name)
    if prompt is None:
        raise MCPError(types.INVALID_PARAMS, f"unknown prompt {name!r}; prompts: {', '.join(BY_NAME)}")
    given = dict(arguments or {})
    unknown = sorted(set(given) - {a.name for a in prompt.arguments})
    if unknown:
        raise MCPError(types.INVALID_PARAMS, f"prompt {name} has no argument {', '.join(unknown)}")
    values = {a.name: given.get(a.name) or a.default for a in prompt.arguments}
    return prompt.template.format(**values)


def get_prompt(name: str, arguments: dict[str, str] | None = None) -> types.GetPromptResult:
    """``prompts/get``: the prompt's text as one user message."""
    return types.GetPromptResult(description=BY_NAME[name].description if name in BY_NAME else None,
                                 messages=[types.PromptMessage(role="user", content=types.TextContent(
                                     type="text", text=prompt_text(name, arguments)))])
