"""The tools' definitions as ``tools/list`` answers them, derived from the tool table, and the file that
holds them for the server's start (``tool_list.json``, read by :mod:`.tool_list`).

Layer: ``server``. Deriving the schemas needs every record type an answer can hold, and so the engine and
``android``: a few hundred milliseconds at each start, for an answer that changes only with the code. The
file is made from the code by this module and compared with it by ``tests/unit/test_tool_list.py``:

    python -m pyjdwp_server.answers.tool_schemas          # rewrite src/server/answers/tool_list.json after a change
    python -m pyjdwp_server.answers.tool_schemas --check  # exit 1 if the file is not what the code derives
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import mcp_types as types

from ..session.models import MAX_SAFE_INT
from ..tools import TOOLS, Tool
from .envelope import output_schema
from .tool_list import LIST_FILE

#: Bounds every input has, which the server's ``instructions`` state once instead of every field repeating
#: them (a model reads every definition every turn: docs/design.md §5.8's budget): strings 1–512 characters,
#: integers 0 or 1 to 2^53−1, ``timeoutMs`` 100–30000 with its default 10000, and that unknown fields are
#: rejected (no ``additionalProperties: false`` in each schema). The models still check all of them; only the
#: schema is quiet.
_TIMEOUT = {"default": 10000, "minimum": 100}
_STANDARD_BOUNDS = ({"minLength": 1, "maxLength": 512}, {"minimum": 1, "maximum": MAX_SAFE_INT},
                    {"minimum": 0, "maximum": MAX_SAFE_INT}, {"maximum": MAX_SAFE_INT})


def compact_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """An input model's JSON schema as a model reads it, with what says nothing left out: pydantic's titles
    (the property names again), the model's docstring, ``null`` as the alternative of an optional field
    (leaving it out is how a client omits it; ``null`` is still accepted), the standard bounds and
    ``timeoutMs``' bounds and default, ``additionalProperties: false``, a string enum's type, an ``anyOf`` of
    bare types (a type list instead), and ``$defs`` (a nested model is written where it is used)."""
    defs = schema.get("$defs", {})

    def node(value: Any) -> Any:
        if isinstance(value, list):
            return [node(v) for v in value]
        if not isinstance(value, dict):
            return value
        if "$ref" in value:
            return node(defs[value["$ref"].rsplit("/", 1)[-1]]) | {k: node(v) for k, v in value.items() if k != "$ref"}
        out: dict[str, Any] = {}
        for key, item in value.items():
            if key in ("title", "$defs") or (key == "additionalProperties" and item is False):
                continue
            out[key] = {name: field(prop) for name, prop in item.items()} if key == "properties" else node(item)
        choices = out.get("anyOf")
        if out.pop("nullable", False):  # a field whose null means something (clear it) keeps it
            if out.get("default", ...) is None:
                del out["default"]  # left out, it is unchanged: not the same as null
        elif choices and {"type": "null"} in choices and out.get("default", ...) is None:
            rest = [c for c in choices if c != {"type": "null"}]
            del out["anyOf"], out["default"]
            out = (rest[0] | out) if len(rest) == 1 else {"anyOf": rest, **out}
        choices = out.get("anyOf")
        if choices and all(set(c) == {"type"} and isinstance(c["type"], str) for c in choices):
            out["type"] = [c["type"] for c in out.pop("anyOf")]  # {"type": ["string", "null"]}: the same, shorter
        for bounds in _STANDARD_BOUNDS:
            if all(out.get(k) == v for k, v in bounds.items()):
                for k in bounds:
                    del out[k]
        for key in ("minimum", "minItems"):
            if out.get(key) in (0, 1) and out.get(key) is not True:
                del out[key]  # the instructions: integers >= 0 (a 0 where 1 is the least is refused by name)
        if out.get("default", None) in (False, 0) and not isinstance(out.get("default"), float):
            del out["default"]  # left out is false or 0: the instructions say so once
        if "enum" in out and out.get("default") == out["enum"][0]:
            del out["default"]  # an enum's first value is its default: the instructions say so once
        if out.get("minimum") == _TIMEOUT["minimum"]:  # timeoutMs: the instructions give its bounds and default
            del out["minimum"]
            if out.get("default") == _TIMEOUT["default"]:
                del out["default"]
        for key in ("maximum", "maxItems"):
            out.pop(key, None)  # a limit: the instructions and get_debugger_capabilities' limits; over it, an error
        if "enum" in out and out.get("type") == "string" and all(isinstance(v, str) for v in out["enum"]):
            del out["type"]  # the enum says it
        if out.get("default", ...) is None:
            del out["default"]  # a field whose schema is given whole (a capture): left out is the same
        return out

    def field(prop: Any) -> Any:
        out = node(prop)
        for schema in (out, out.get("items")):
            if isinstance(schema, dict) and schema.get("type") == "string" and "enum" not in schema:
                del schema["type"]  # a field with no type is a string: the instructions say so once
        return out

    top: dict[str, Any] = node(schema)
    top.pop("description", None)  # the input model's docstring: for developers
    return top


def tool_definition(tool: Tool) -> types.Tool:
    schema = compact_schema(tool.model.model_json_schema())
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
    parser = argparse.ArgumentParser(prog="python -m pyjdwp_server.answers.tool_schemas",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only compare: exit 1 if the file is stale")
    parser.add_argument("--out", type=Path, default=LIST_FILE, help=f"where to write (default {LIST_FILE.name})")
    args = parser.parse_args(argv)
    text = file_text()
    if args.check:
        current = args.out.read_text(encoding="utf-8") if args.out.exists() else ""
        if current != text:
            print(f"{args.out} is not what the tool table derives: run python -m pyjdwp_server.answers.tool_schemas",
                  file=sys.stderr)
            return 1
        return 0
    args.out.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
