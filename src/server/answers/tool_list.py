"""``tools/list``'s answer, read from ``tool_list.json``: the server starts without deriving the schemas.

Layer: ``server``. Imports nothing of ``jdwp``, ``android`` or the tool table: a server that is started and
asked for its tools (what every MCP client does at its own start) never imports the engine. The file is
what :mod:`.tool_schemas` derives from the tool table; ``tests/unit/test_tool_list.py`` fails when the two
differ (rewrite it with ``python -m pyjdwp_server.answers.tool_schemas``).
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

import mcp_types as types

LIST_FILE = Path(__file__).with_name("tool_list.json")


@functools.cache
def listed_tools() -> tuple[types.Tool, ...]:
    """The tools' definitions that every ``tools/list`` answers, read and validated once per process."""
    with LIST_FILE.open(encoding="utf-8") as file:
        return tuple(types.ListToolsResult.model_validate(json.load(file)).tools)
