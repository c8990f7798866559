"""The debugger tools: one module per tool, named as the tool, each holding its description, input model,
result type and handler, and ending with ``TOOL = Tool(...)``; the tool table is derived from them.

Layer: ``server``. Adding a tool is adding its module here (and its section to ``docs/tools.md``): nothing
else lists it. :mod:`..handling` dispatches on :data:`BY_NAME`; :mod:`..tool_schemas` derives
``tools/list`` (``tool_list.json``) from :data:`TOOLS`. DESIGN.md §5 holds the contract; ``docs/tools.md``
shows an example of each response. Shared inputs are in :mod:`..models`, shared records in :mod:`..results`.
"""

from __future__ import annotations

import importlib
import pkgutil

from ._tool import Attached, Call, Handler, Tool


def _collect() -> tuple[Tool, ...]:
    """Every tool module's ``TOOL``, in (order, name) order; a module's name must be its tool's name."""
    found: list[Tool] = []
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        tool = getattr(module, "TOOL", None)
        if not isinstance(tool, Tool) or tool.name != info.name:
            raise ImportError(f"{module.__name__} must define TOOL = Tool({info.name!r}, ...)")
        found.append(tool)
    return tuple(sorted(found, key=lambda t: (t.order, t.name)))


TOOLS: tuple[Tool, ...] = _collect()

BY_NAME = {tool.name: tool for tool in TOOLS}

__all__ = ["BY_NAME", "TOOLS", "Attached", "Call", "Handler", "Tool"]
