"""The tools' definitions as ``tools/list`` answers them, derived from the tool table, and the file that
holds them for the server's start (``tool_list.json``, read by :mod:`.tool_list`).

Layer: ``server``. Deriving the schemas needs every record type an answer can hold, and so the engine and
``android``: a few hundred milliseconds at each start, for an answer that changes only with the code. The
file is made from the code by this module and compared with it by ``tests/unit/test_tool_list.py``:

    python -m server.tool_schemas           # rewrite src/server/tool_list.json after changing a tool
    python -m server.tool_schemas --check   # exit 1 if the file is not what the code derives
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import mcp_types as types

from .envelope import output_schema
from .tool_list import LIST_FILE
from .tools import TOOLS, Tool


def tool_definition(tool: Tool) -> types.Tool:
    schema = tool.model.model_json_schema()
    schema.pop("title", None)
    return types.Tool(
        name=tool.name,
        title=tool.title,
        description=tool.description,
        input_schema=schema,
        output_schema=output_schema(tool.result),
        annotations=types.ToolAnnotations(title=tool.title, read_only_hint=tool.read_only,
                                          destructive_hint=tool.destructive, idempotent_hint=tool.idempotent,
                                          open_world_hint=False),
    )


def definitions() -> list[dict[str, Any]]:
    """Every tool's definition in the table's order, as the JSON the file holds: the SDK's model of each,
    dumped with the fields that were set (read back, each gives the same model, so the same answer)."""
    return [tool_definition(t).model_dump(mode="json", by_alias=True, exclude_unset=True) for t in TOOLS]


def file_text() -> str:
    """What ``tool_list.json`` holds: one field per line, so that a change to a tool reads as a small diff."""
    return json.dumps({"tools": definitions()}, ensure_ascii=False, indent=1) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m server.tool_schemas", description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only compare: exit 1 if the file is stale")
    parser.add_argument("--out", type=Path, default=LIST_FILE, help=f"where to write (default {LIST_FILE.name})")
    args = parser.parse_args(argv)
    text = file_text()
    if args.check:
        current = args.out.read_text(encoding="utf-8") if args.out.exists() else ""
        if current != text:
            print(f"{args.out} is not what the tool table derives: run python -m server.tool_schemas",
                  file=sys.stderr)
            return 1
        return 0
    args.out.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
