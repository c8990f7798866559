"""The README's countable facts, checked against the code: how many tools the server lists, and the limits a tool's
definition is held to (``pyjdwp_server.answers.budgets``). A tool added or a budget changed fails here until the README
says so too."""

from __future__ import annotations

import re
from pathlib import Path

from pyjdwp_server.answers import budgets
from pyjdwp_server.prompts import PROMPTS
from pyjdwp_server.tools import TOOLS

README = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")

NUMBERS = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
           "sixteen seventeen eighteen nineteen twenty twenty-one twenty-two twenty-three twenty-four "
           "twenty-five").split()


def _counted(noun: str) -> list[str]:
    """Every "<count> <noun>" of the README ("nineteen tools", "19 tools"), the count as written."""
    words = "|".join(sorted(NUMBERS, key=len, reverse=True))
    return re.findall(rf"\b({words}|\d+)\s+{noun}\b", README, flags=re.IGNORECASE)


def test_the_tool_count_is_the_servers() -> None:
    said = _counted("tools")
    assert said, "the README no longer says how many tools there are: keep this test in step"
    for count in said:
        assert count.lower() in (NUMBERS[len(TOOLS)], str(len(TOOLS))), (
            f'the README says "{count} tools"; the server lists {len(TOOLS)} ({NUMBERS[len(TOOLS)]})')


def test_a_prompt_count_if_said_is_the_servers() -> None:
    for count in _counted("prompts"):
        assert count.lower() in (NUMBERS[len(PROMPTS)], str(len(PROMPTS)))


def test_the_definition_limits_are_the_budgets() -> None:
    text = " ".join(README.split())  # as read, whatever the line breaks
    assert f"at most {budgets.DESCRIPTION_CHARS} characters" in text
    size_kb = budgets.TOOL_DEFINITIONS.held / 1000
    assert f"at most {size_kb:g} KB" in text, f"the README gives another definitions budget than {size_kb:g} KB"
    assert f"at most {budgets.FIELD_DESCRIPTION_CHARS} characters" in text
