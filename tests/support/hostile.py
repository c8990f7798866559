"""Shared checks of the hostile-heap live tests and ``bench/fault_matrix.py`` (docs/design.md §2.7): the app alive
(its process running, no ``hs_err`` file), answers bounded in bytes."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from support.jvm import Debuggee


def answer_bytes(result: Any) -> int:
    """The size of an engine result as JSON (as the MCP tools send it, near enough)."""
    return len(json.dumps(dataclasses.asdict(result), default=str, ensure_ascii=False).encode("utf-8"))


def app_alive(debuggee: Debuggee, cwd: Path) -> bool:
    """The process still runs and HotSpot wrote no crash report (``hs_err_pid*.log`` in its working directory)."""
    return debuggee.process.poll() is None and not list(cwd.glob("hs_err_pid*.log"))
