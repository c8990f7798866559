"""The engine's errors speak the library's words; the server turns them into the tools' words."""

from __future__ import annotations

import ast
import dataclasses
import json
from pathlib import Path

from jdwp.debugger import errors
from jdwp.debugger.events.holds import LAUNCH_NOTE
from jdwp.debugger.reading.threads import PAUSE_NOTE, RUNNING_NOTE
from pyjdwp_server.answers.envelope import jsonable
from pyjdwp_server.answers.failures import failure_of, in_tool_words
from pyjdwp_server.answers.tool_words import WORDED_FIELDS

SRC = Path(__file__).resolve().parents[2] / "src"
TOOLS = [tool["name"] for tool in json.loads((SRC / "server" / "answers" / "tool_list.json").read_text())["tools"]]


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


INPUT_NAMES = ("stopId", "frameId", "objectId", "stackDepth", "timeoutMs", "debugSessionId", "breakpointId")


def _texts(path: Path) -> list[tuple[int, str]]:
    """Every string the module can show a user: its constants, docstrings left out (they speak to readers)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr)
                  and isinstance(node.value, ast.Constant)}
    return [(node.lineno, node.value) for node in ast.walk(tree) if isinstance(node, ast.Constant)
            and isinstance(node.value, str) and id(node) not in docstrings]


def test_no_library_text_names_a_tool_or_a_tool_input() -> None:
    """Notes (a stop's, a thread listing's) reach library users too: they name methods and parameters."""
    named = [f"{path.relative_to(SRC)}:{line}: {text}" for path in sorted((SRC / "jdwp").rglob("*.py"))
             for line, text in _texts(path)
             if any(tool in text for tool in TOOLS) or any(name in text for name in INPUT_NAMES)]
    assert named == []


@dataclasses.dataclass
class _Noted:
    note: str


def test_notes_reach_an_agent_in_tool_words() -> None:
    assert "note" in WORDED_FIELDS
    running = jsonable(_Noted(RUNNING_NOTE))["note"]
    assert running.startswith("no stopId: the threads run")
    assert "pause_debugger (or any stop) and pass its stopId" in running
    assert jsonable(_Noted(PAUSE_NOTE))["note"].endswith("see pause_debugger's answer or get_debugger_threads")
    assert "then resume_debugger starts it" in jsonable(_Noted(LAUNCH_NOTE))["note"]
