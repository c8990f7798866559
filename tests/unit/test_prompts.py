"""The MCP prompts (``pyjdwp_server.prompts``, issue 24 item 8): listed and got through the SDK's in-memory client,
unknown names refused as the spec says (a JSON-RPC error), and each prompt naming exactly the calls the
bench plays for its journey (``tests/support/agent_journeys.py``), with inputs the tools have.
"""

from __future__ import annotations

import json
import re

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS

from pyjdwp_server import Config, build_server
from pyjdwp_server.answers.tool_list import LIST_FILE
from pyjdwp_server.prompts import PROMPTS, Prompt, prompt_text
from support.agent_journeys import journeys

#: Prompt → the bench journey whose calls it describes.
JOURNEY_OF = {"debug_crash": "crash", "debug_wrong_value": "wrong value", "debug_freeze": "freeze"}
TOOLS = {tool["name"]: tool for tool in json.loads(LIST_FILE.read_text(encoding="utf-8"))["tools"]}
STEP = re.compile(r"^\d+\. (\w+)", re.MULTILINE)


def steps(text: str) -> list[str]:
    """The tools a prompt's numbered steps call, in order."""
    return STEP.findall(text)


async def test_prompts_are_listed_and_got_through_the_sdk() -> None:
    async with Client(build_server(Config())) as client:
        listed = (await client.list_prompts()).prompts
        assert [p.name for p in listed] == list(JOURNEY_OF)
        for prompt in listed:
            assert prompt.description and all(a.required is False for a in prompt.arguments or ())
            got = await client.get_prompt(prompt.name)
            assert len(got.messages) == 1 and got.messages[0].role == "user"
            assert got.messages[0].content.text == prompt_text(prompt.name)  # type: ignore[union-attr]
        crash = await client.get_prompt("debug_crash", {"exceptionClass": "java.lang.IllegalStateException",
                                                        "target": "127.0.0.1:5005"})
        text = crash.messages[0].content.text  # type: ignore[union-attr]
        assert "java.lang.IllegalStateException" in text and "127.0.0.1:5005" in text
        for name, arguments in (("debug_nothing", None), ("debug_crash", {"exception": "X"})):
            with pytest.raises(MCPError) as refused:
                await client.get_prompt(name, arguments)
            assert refused.value.code == INVALID_PARAMS


@pytest.mark.parametrize("prompt", PROMPTS, ids=lambda p: p.name)
def test_each_prompt_names_the_calls_its_journey_plays(prompt: Prompt) -> None:
    journey = next(j for j in journeys() if j.name == JOURNEY_OF[prompt.name])
    assert steps(prompt_text(prompt.name)) == [call["tool"] for call in journey.calls]
    assert len(prompt_text(prompt.name)) <= 1200  # a short text: it is put in front of the model


@pytest.mark.parametrize("prompt", PROMPTS, ids=lambda p: p.name)
def test_the_inputs_a_prompt_names_are_the_tools_inputs(prompt: Prompt) -> None:
    """Every ``word:`` or ``word {`` after a tool's name in a step is one of that tool's inputs."""
    for line in prompt_text(prompt.name).splitlines():
        match = STEP.match(line)
        if not match:
            continue
        inputs = set(TOOLS[match.group(1)]["inputSchema"]["properties"])
        if match.group(1) == "attach_debugger":  # its breakpoints are those two tools' inputs
            inputs |= {name for tool in ("set_debugger_breakpoint", "set_debugger_exception_breakpoint")
                       for name in TOOLS[tool]["inputSchema"]["properties"]}
        named = set(re.findall(r"\b([a-z]+[A-Z]\w*)\b", line))  # camelCase words: the tools' input names
        assert named <= inputs, (match.group(1), named - inputs)
