"""Fixtures shared by every tier. Live fixtures (a real JVM) mark their tests ``live``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from adb.launch_bed import launch_bed, launcher  # noqa: F401  (the launch stand-ins on that testbed)

# The adb testbed (tests/adb, tests/server) is registered here once: its adbd owns the machine-wide
# @jdwp-control socket, so a second testbed in the same run could not register any app process.
from adb.testbed import adb_path, adbd_path, apps, debuggee_classes, java_tools, testbed  # noqa: F401
from support.jvm import KOTLIN_STDLIB, Debuggee, compile_fixtures, compile_kotlin, debuggees
from support.live import require_tool, unavailable

LIVE_FIXTURES = frozenset({"java_classes", "java_classes_nodebug", "kotlin_classes", "debuggee",
                           "suspended_debuggee"})


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if LIVE_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.live)


@pytest.fixture(scope="session")
def java_classes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``fixtures/java`` compiled with ``javac -g``."""
    javac = require_tool("javac")
    return compile_fixtures(tmp_path_factory.mktemp("classes"), javac=javac)


@pytest.fixture(scope="session")
def java_classes_nodebug(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``fixtures/java`` compiled without debug information (no line or variable tables)."""
    javac = require_tool("javac")
    return compile_fixtures(tmp_path_factory.mktemp("classes-nodebug"), debug_info=False, javac=javac)


@pytest.fixture(scope="session")
def kotlin_classes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``fixtures/kotlin`` compiled with kotlinc (once per test run: it takes a while)."""
    kotlinc = require_tool("kotlinc")
    if not KOTLIN_STDLIB.is_file():
        unavailable(f"the Kotlin runtime is not at {KOTLIN_STDLIB} (Debian's kotlin package puts it there)")
    return compile_kotlin(tmp_path_factory.mktemp("kotlin-classes"), kotlinc=kotlinc)


@pytest.fixture
def debuggee(java_classes: Path) -> Iterator[Debuggee]:
    """The fixture program running under the JDWP agent (``suspend=n``), listening on a loopback port."""
    yield from debuggees(java_classes, "com.example.debuggee.Main", java=require_tool("java"))


@pytest.fixture
def watched(java_classes: Path) -> Iterator[Debuggee]:
    """``Watched`` (fixtures/java): runs the commands it reads on stdin (``write``, ``calls``, ``mutate``, …) and
    prints ``done COMMAND`` after each; the watchpoint, method breakpoint and set-value tests drive it."""
    yield from debuggees(java_classes, "com.example.debuggee.Watched", java=require_tool("java"))


@pytest.fixture
def suspended_debuggee(java_classes: Path) -> Iterator[Debuggee]:
    """The fixture program started with ``suspend=y``: it waits for a debugger; VMStart comes first."""
    yield from debuggees(java_classes, "com.example.debuggee.Main", ready=False, suspend=True,
                         java=require_tool("java"))
