"""A tool is defined where it is handled (docs/design.md §5.3): one module of ``pyjdwp_server.tools`` per tool, named as
the tool, holding its description and handler (and its own input model and result type, unless shared)."""

from __future__ import annotations

import pkgutil
import types
from typing import get_args

import pyjdwp_server.tools
from pyjdwp_server.tools import BY_NAME, TOOLS

SHARED = ("pyjdwp_server.session.models", "pyjdwp_server.answers.results", "jdwp.")


def test_each_tool_is_one_module_named_as_the_tool() -> None:
    modules = {m.name for m in pkgutil.iter_modules(pyjdwp_server.tools.__path__) if not m.name.startswith("_")}
    assert modules == {tool.name for tool in TOOLS} == set(BY_NAME)
    assert len(TOOLS) == len(BY_NAME)


def test_what_a_tool_module_defines_is_its_own_or_shared() -> None:
    for tool in TOOLS:
        home = f"pyjdwp_server.tools.{tool.name}"
        assert tool.handler.__module__ == home, tool.name
        results = get_args(tool.result) if isinstance(tool.result, types.UnionType) else (tool.result,)
        for kind in (tool.model, *results):
            assert kind.__module__ == home or kind.__module__.startswith(SHARED), (tool.name, kind)


def test_the_table_is_in_session_order() -> None:
    assert [t.name for t in TOOLS][:2] == ["get_debugger_capabilities", "attach_debugger"]
    assert TOOLS[-1].name == "detach_debugger"
    assert [(t.order, t.name) for t in TOOLS] == sorted((t.order, t.name) for t in TOOLS)
