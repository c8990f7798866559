"""The launch stand-ins on the adb testbed: ``am``, ``cmd package``, ``pm clear``, ``dumpsys`` and apps that
wait for a debugger the way an app started with ``am start -D`` does.

Its fixtures are registered in tests/conftest.py, next to the testbed's (``launch_bed`` for the session,
``launcher`` per test). They add scripts to the testbed's stand-in directory, which is on adbd's PATH;
each runs :mod:`adb.android_shims`, which starts :mod:`adb.launch_app` (the app behind a played
adbconnection). The test's apps are described in ``apps.txt``; every process a test started is killed
after it. ``api_level`` rewrites ``getprop``'s ``ro.build.version.sdk`` for one test (34+: ``--suspend``).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from .testbed import HERE, Testbed

TOOLS = {"am": "am", "cmd": "cmd", "dumpsys": "dumpsys", "pm-clear": "pm-clear"}


@dataclass
class LaunchBed:
    """The stand-ins' directory and the compiled ``LaunchedApp``."""

    __test__ = False

    bed: Testbed
    classes: Path
    apps: list[tuple[str, str, bool, str]] = field(default_factory=list)

    @property
    def run(self) -> Path:
        return self.bed.standins / "run"

    def data(self, pkg: str) -> Path:
        path = self.bed.standins / "data" / pkg
        path.mkdir(parents=True, exist_ok=True)
        return path

    def add_app(self, pkg: str, activity: str = ".MainActivity", *, launcher: bool = True, mode: str = "settle",
                uid: int = 10123) -> None:
        """Install ``pkg`` with one activity; ``mode`` is how it starts (launch_app.py: settle, die, nodebug)."""
        self.bed.install_package(pkg, uid)
        self.apps.append((pkg, activity, launcher, mode))
        (self.bed.standins / "apps.txt").write_text("".join(f"{p} {a} {int(la)} {m}\n" for p, a, la, m in self.apps))

    def set_api_level(self, level: int) -> None:
        props = self.bed.standins / "props.txt"
        lines = [line for line in props.read_text().splitlines() if not line.startswith("ro.build.version.sdk=")]
        props.write_text("\n".join([f"ro.build.version.sdk={level}", *lines]) + "\n")

    def log(self, pkg: str) -> str:
        path = self.run / f"{pkg}.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def started(self, pkg: str) -> list[int]:
        """Pids of ``pkg``'s app processes the stand-in am started that still run."""
        out = []
        for path in self.run.glob("*.pid"):
            if path.read_text().split()[0] == pkg and Path(f"/proc/{path.stem}").exists():
                out.append(int(path.stem))
        return out

    def stop_all(self) -> None:
        for path in list(self.run.glob("*.pid")):
            pid, helper = int(path.stem), int(path.read_text().split()[1])
            for p in (helper, pid):
                try:
                    os.kill(p, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            path.unlink(missing_ok=True)


@pytest.fixture(scope="session")
def launch_bed(testbed: Testbed, java_tools: tuple[str, str], tmp_path_factory: pytest.TempPathFactory) -> LaunchBed:
    classes = tmp_path_factory.mktemp("launched-classes")
    subprocess.run([java_tools[1], "-g", "-d", str(classes), str(HERE / "java" / "LaunchedApp.java")],
                   check=True, timeout=120)
    standins = testbed.standins
    (standins / "run").mkdir(exist_ok=True)
    (standins / "apps.txt").write_text("")
    (standins / "launch.conf").write_text(f"CLASSES={classes}\nJAVA={java_tools[0]}\n")
    for script, tool in TOOLS.items():
        install_shim(standins, script, tool)
    return LaunchBed(testbed, classes)


def install_shim(standins: Path, script: str, tool: str) -> None:
    """Put ``script`` on adbd's PATH, running ``android_shims.py tool``."""
    path = standins / script
    path.write_text(f'#!/bin/sh\nPYJDWP_STANDINS="{standins}" exec "{sys.executable}" '
                    f'"{HERE / "android_shims.py"}" {tool} "$@"\n')
    path.chmod(0o755)


@pytest.fixture
def launcher(launch_bed: LaunchBed) -> Iterator[LaunchBed]:
    """The launch stand-ins for one test: its apps, API level and processes are undone afterwards."""
    props = launch_bed.bed.standins / "props.txt"
    saved_props = props.read_text()
    try:
        yield launch_bed
    finally:
        launch_bed.stop_all()
        launch_bed.apps.clear()
        (launch_bed.bed.standins / "apps.txt").write_text("")
        props.write_text(saved_props)
