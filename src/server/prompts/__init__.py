"""MCP prompts (``prompts/list``, ``prompts/get``): the fewest-call sequences for a crash, a wrong value and a
freeze (issue 24, docs/design.md §5.8), each a short text a client puts in front of its model.

Layer: ``server``; plain text, no engine or ``android`` import. One module per prompt, named as the prompt,
ending with ``PROMPT = Prompt(...)`` (as :mod:`pyjdwp_server.tools` holds one module per tool); the list is
derived from them. The sequences are the ones ``bench/agent_journeys.py`` plays and measures
(``tests/support/agent_journeys.py``); ``tests/unit/test_prompts.py`` checks that each prompt names the same
tools in the same order, with inputs the tools have. docs/agents.md explains the choices.
"""

from __future__ import annotations

import mcp_types as types
from mcp.shared.exceptions import MCPError

from ..answers.registry import collect
from ._prompt import Argument, Prompt

PROMPTS: tuple[Prompt, ...] = collect(__name__, __path__, "PROMPT", Prompt)

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
        MCPError: INVALID_PARAMS for an unknown prompt or argument (a JSON-RPC error, as MCP's spec says).
    """
    prompt = BY_NAME.get(name)
    if prompt is None:
        raise MCPError(types.INVALID_PARAMS, f"unknown prompt {name!r}; prompts: {', '.join(BY_NAME)}")
    given = dict(arguments or {})
    unknown = sorted(set(given) - {a.name for a in prompt.arguments})
    if unknown:
        raise MCPError(types.INVALID_PARAMS, f"prompt {name} has no argument {', '.join(unknown)}")
    return prompt.text(given)


def get_prompt(name: str, arguments: dict[str, str] | None = None) -> types.GetPromptResult:
    """``prompts/get``: the prompt's text as one user message.

    Raises:
        MCPError: INVALID_PARAMS for an unknown prompt or argument.
    """
    text = prompt_text(name, arguments)
    return types.GetPromptResult(description=BY_NAME[name].description,
                                 messages=[types.PromptMessage(role="user",
                                                               content=types.TextContent(type="text", text=text))])


__all__ = ["BY_NAME", "PROMPTS", "Argument", "Prompt", "get_prompt", "listed_prompts", "prompt_text"]
