"""``tools/list`` is read from ``src/server/answers/tool_list.json`` at the start (``pyjdwp_server.answers.tool_list``):
the file must be what the tool table derives (``pyjdwp_server.answers.tool_schemas``), and read back it must give the
very answer the derived definitions give, at every protocol version the SDK serves.

After changing a tool's description, input model or result type: ``python -m pyjdwp_server.answers.tool_schemas``.
"""

from __future__ import annotations

import json
from typing import Any

import mcp_types as types
from mcp_types import methods
from mcp_types.version import SUPPORTED_PROTOCOL_VERSIONS

from pyjdwp_server.answers.tool_list import LIST_FILE, listed_tools
from pyjdwp_server.answers.tool_schemas import file_text, tool_definition
from pyjdwp_server.tools import TOOLS


def test_the_file_is_what_the_tool_table_derives() -> None:
    assert LIST_FILE.read_text(encoding="utf-8") == file_text(), (
        f"{LIST_FILE.name} is stale: run `python -m pyjdwp_server.answers.tool_schemas` and commit the file")


def _wire(tools: list[types.Tool], version: str) -> dict[str, Any]:
    """The result as the SDK writes it at ``version`` (``ServerRunner._serialize``: dump, then the
    version's sieve)."""
    dumped = types.ListToolsResult(tools=tools).model_dump(by_alias=True, mode="json", exclude_none=True)
    return methods.serialize_server_result("tools/list", version, dumped)


def test_the_answer_read_from_the_file_is_the_derived_one_at_every_version() -> None:
    derived = [tool_definition(t) for t in TOOLS]
    read = list(listed_tools())
    assert read == derived
    for version in SUPPORTED_PROTOCOL_VERSIONS:
        assert json.dumps(_wire(read, version)) == json.dumps(_wire(derived, version)), version  # byte for byte
