"""The engine's errors speak the library's words; the server turns them into the tools' words."""

from __future__ import annotations

import ast
import json
from pathlib import Path

from jdwp.debugger import errors
from server.failures import failure_of, in_tool_words

SRC = Path(__file__).resolve().parents[2] / "src"
TOOLS = [tool["name"] for tool in json.loads((SRC / "server" / "tool_list.json").read_text())["tools"]]


def _raised_texts(path: Path) -> list[tuple[int, str]]:
    texts = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Raise) and node.exc is not None:
            for inner in ast.walk(node.exc):
                if isinstance(inner, ast.Constant) and isinstance(inner.value, str):
                    texts.append((node.lineno, inner.value))
    return texts


def test_no_engine_error_names_a_tool() -> None:
    assert len(TOOLS) > 10
    named = [f"{path.relative_to(SRC)}:{line}: {text}" for path in sorted((SRC / "jdwp").rglob("*.py"))
             for line, text in _raised_texts(path) if any(tool in text for tool in TOOLS)]
    assert named == []


def test_the_server_says_the_tool_where_the_engine_says_the_method() -> None:
    failure = failure_of(errors.InvalidArgument("this stop has no frame of its own: give frame_id, from "
                                                "Debugger.threads() or Debugger.stack()"))
    assert failure.message.startswith("this stop has no frame of its own: give frameId, from get_debugger_threads "
                                      "or get_debugger_stack")
    assert in_tool_words("resume it (Debugger.resume()) and pause again") == "resume_debugger it and pause again"
