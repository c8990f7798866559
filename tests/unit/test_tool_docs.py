"""docs/tools.md documents every tool the server offers, with every input it takes."""

from __future__ import annotations

import re
from pathlib import Path

from pyjdwp_server.answers.failures import CODES
from pyjdwp_server.tools import TOOLS

DOC = (Path(__file__).resolve().parents[2] / "docs" / "tools.md").read_text(encoding="utf-8")


def test_every_tool_has_a_section_naming_its_inputs() -> None:
    sections = dict(re.findall(r"^## (\w+)\n(.*?)(?=^## |\Z)", DOC, re.S | re.M))
    for tool in TOOLS:
        assert tool.name in sections, f"docs/tools.md has no section for {tool.name}"
        text = sections[tool.name]
        for name, info in tool.model.model_fields.items():
            field = info.alias or name  # the name a client sends (``lambda``, a Python keyword, is ``lambda_``)
            if field in {"platform", "deviceId", "appId", "processId", "address"}:
                assert "target" in text, f"{tool.name}: the doc should say it takes a target"
            else:
                assert f"`{field}`" in text, f"{tool.name}: input {field} is not documented"


def test_every_error_code_is_documented() -> None:
    for code in CODES:
        assert f"`{code}`" in DOC, code
