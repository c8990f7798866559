"""Fixtures for tests/server (helpers: ``mcpkit``). The adb testbed fixtures (``testbed``, ``apps``)
come from tests/conftest.py, shared with tests/adb (one adbd per run)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.register_assert_rewrite("mcpkit", "jdwp_fault_proxy")
from mcpkit import MAIN  # noqa: E402

from support import agent_journeys  # noqa: E402
from support.jvm import Debuggee  # noqa: E402
from support.live import require_tool  # noqa: E402


@pytest.fixture(scope="session")
def shared_jvm(java_classes: Path) -> Iterator[Debuggee]:
    """One debuggee JVM for the run; a test using it must detach and leave it running unpaused."""
    jvm = Debuggee(java_classes, MAIN, java=require_tool("java"))
    try:
        jvm.wait_for_line("^ready$", timeout=30)
        yield jvm
    finally:
        jvm.stop()


@pytest.fixture(scope="session")
def journey_classes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``fixtures/journeys`` compiled (``javac -g`` and kotlinc): the agent journeys' programs."""
    javac, kotlinc = require_tool("javac"), require_tool("kotlinc")
    return agent_journeys.compile_programs(tmp_path_factory.mktemp("journeys"), javac=javac, kotlinc=kotlinc)
