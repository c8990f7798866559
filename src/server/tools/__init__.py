"""The debugger tools: one module per tool, named as the tool, each holding its description, input model,
result type and handler, and ending with ``TOOL = Tool(...)``; the tool table is derived from them.

Layer: ``server``. Adding a tool is adding its module here (and its section to ``docs/tools.md``): nothing
else lists it. :mod:`..handling` dispatches on :data:`BY_NAME`; :mod:`..tool_schemas` derives
``tools/list`` (``tool_list.json``) from :data:`TOOLS`. docs/design.md §5.3 holds the contract; ``docs/tools.md``
shows an example of each response. Shared inputs are in :mod:`..models`, shared records in :mod:`..results`.
"""

from __future__ import annotations

from ..answers.registry import collect
from ._tool import Attached, Call, Handler, Tool

TOOLS: tuple[Tool, ...] = collect(__name__, __path__, "TOOL", Tool)

BY_NAME = {tool.name: tool for tool in TOOLS}

__all__ = ["BY_NAME", "TOOLS", "Attached", "Call", "Handler", "Tool"]
