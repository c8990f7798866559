"""Shared helpers of the bench scripts: the machine, free ports, child processes, medians, tables.

Not a benchmark itself. The scripts import it from their own directory (``python bench/journey.py`` puts
``bench/`` first on ``sys.path``); it also puts ``src/`` and ``tests/`` there, so a checkout runs without
installing, and the live tests' ``support.jvm.Debuggee`` starts the JVMs.
"""

from __future__ import annotations

import dataclasses
import os
import platform
import shutil
import statistics
import subprocess
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
for _path in (REPO / "tests", REPO / "src"):
    if str(_path) not in sys.path:
        sys.path.insert(1, str(_path))

# Shared with the tests; the scripts import it from here. Importable only once tests/ is on the path.
from support.net import free_port as free_port  # noqa: E402


def server_command() -> str:
    """The ``pyjdwp-mcp`` console script beside this Python, else the one on PATH."""
    beside = Path(sys.executable).with_name("pyjdwp-mcp")
    return str(beside) if beside.exists() else (shutil.which("pyjdwp-mcp") or "pyjdwp-mcp")


def java_tools() -> tuple[str, str, str]:
    """``java``, ``javac`` and ``jdb``; exits with a message when one is missing."""
    found = [shutil.which(name) for name in ("java", "javac", "jdb")]
    if not all(found):
        sys.exit("this benchmark needs java, javac and jdb (OpenJDK 17) on PATH")
    return found[0], found[1], found[2]  # type: ignore[return-value]


def java_env() -> dict[str, str]:
    """The environment for JVMs we start: without JAVA_TOOL_OPTIONS (it makes every JVM print a line)."""
    return {key: value for key, value in os.environ.items() if key != "JAVA_TOOL_OPTIONS"}


def children(pid: int | None = None) -> list[int]:
    """The pids whose parent is ``pid`` (default: this process), from ``/proc``."""
    parent = os.getpid() if pid is None else pid
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == parent:
            found.append(int(entry))
    return found


def rss_mib(pid: int) -> float:
    """Resident set size of a process (``VmRSS`` of ``/proc/<pid>/status``) in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise LookupError(f"no VmRSS for pid {pid}")


def median_ms(seconds: Iterable[float]) -> float:
    return statistics.median(seconds) * 1000


def machine() -> list[tuple[str, str]]:
    """What the numbers were measured on: CPUs, CPU model, kernel, Python, Java."""
    model = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    java = "not found"
    if shutil.which("java"):
        out = subprocess.run(["java", "-version"], capture_output=True, text=True, env=java_env()).stderr
        java = out.splitlines()[0].strip() if out else "unknown"
        runtime = [line for line in out.splitlines() if "Runtime Environment" in line]
        if runtime:
            java += f" ({runtime[0].split('(build', 1)[-1].rstrip(')').strip()})"
    return [
        ("CPUs (nproc)", str(os.cpu_count())),
        ("load average (1, 5, 15 min) when read", " ".join(Path("/proc/loadavg").read_text().split()[:3])),
        ("CPU model", model),
        ("kernel", f"{platform.system()} {platform.release()}"),
        ("Python", f"{platform.python_implementation()} {platform.python_version()}"),
        ("Java", java),
    ]


@dataclasses.dataclass
class Table:
    """One table of results: printed to the terminal and written to ``docs/performance.md`` alike."""

    title: str
    headers: Sequence[str]
    rows: list[Sequence[str]]
    notes: list[str] = dataclasses.field(default_factory=list)

    def text(self) -> str:
        widths = [max(len(str(cell)) for cell in column) for column in zip(self.headers, *self.rows, strict=False)]
        lines = [self.title, "  " + "  ".join(h.ljust(w) for h, w in zip(self.headers, widths, strict=True))]
        lines += ["  " + "  ".join(str(c).ljust(w) for c, w in zip(row, widths, strict=True)) for row in self.rows]
        lines += [f"  - {note}" for note in self.notes]
        return "\n".join(lines)

    def markdown(self) -> str:
        lines = [f"| {' | '.join(self.headers)} |", "|" + "---|" * len(self.headers)]
        lines += [f"| {' | '.join(str(c) for c in row)} |" for row in self.rows]
        out = [f"### {self.title}", "", *lines]
        if self.notes:
            out += ["", *(f"- {note}" for note in self.notes)]
        return "\n".join(out)


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f}"


def ratio(numerator: float, denominator: float) -> str:
    """``numerator/denominator`` as a fraction ("1/26.3"), the way the goals are written."""
    if numerator <= 0:
        return "n/a"
    return f"1/{denominator / numerator:.1f}" if numerator < denominator else f"{numerator / denominator:.2f}x"
