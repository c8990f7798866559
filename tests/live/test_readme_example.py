"""The README's library example is ``docs/examples/print_vm.py``, and it works against a real JVM."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from support.jvm import REPO, Debuggee, find_mark

EXAMPLE = REPO / "docs" / "examples" / "print_vm.py"


def readme_example() -> str:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split("## Use it as a library", 1)[1]
    match = re.search(r"```python\n(.*?)```", section, re.S)
    assert match, "the README's library section has no python block"
    return match.group(1)


def test_readme_shows_the_example_file() -> None:
    body = EXAMPLE.read_text(encoding="utf-8").split('"""', 2)[2].lstrip("\n")
    assert readme_example() == body


def test_example_prints_version_and_threads_and_leaves_the_vm_running(debuggee: Debuggee, tmp_path: Path) -> None:
    result = subprocess.run([sys.executable, str(EXAMPLE), "127.0.0.1", str(debuggee.port)],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert re.match(r"OpenJDK 64-Bit Server VM 17\.\S+ \(JDWP 17\.0\)$", lines[0])
    assert "  thread 'main': " in "\n".join(lines)
    assert "  thread 'heartbeat': " in "\n".join(lines)
    debuggee.wait_for_more_heartbeats()


def test_the_engine_example_stops_and_detaches(debuggee: Debuggee, tmp_path: Path) -> None:
    text = (REPO / "README.md").read_text(encoding="utf-8").split("### The debugger engine", 1)[1]
    match = re.search(r"```python\n(.*?)```", text, re.S)
    assert match
    script = tmp_path / "engine_example.py"
    script.write_text(match.group(1), encoding="utf-8")
    _, line = find_mark("step")
    result = subprocess.run([sys.executable, str(script), str(debuggee.port), "com.example.debuggee.Worker", str(line)],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "status='verified'" in result.stdout
    assert f"  com.example.debuggee.Worker.step(Worker.java:{line})" in result.stdout
    assert "  locals: i, greeting" in result.stdout
    assert "Cleanup(status='complete', execution_state='running'" in result.stdout
    debuggee.wait_for_more_heartbeats()
