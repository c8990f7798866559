"""``examples/``: the method-call tracer, the heap inspector and the replay test, each run against a real JVM
(``com.example.debuggee.Shop``), as a user runs them."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from support.jvm import REPO, Debuggee, debuggees
from support.live import require_tool

EXAMPLES = REPO / "examples"
SHOP = "com.example.debuggee.Shop"
ENV = {**os.environ, "PYTHONPATH": str(REPO / "src")}  # this checkout's jdwp, installed or not


@pytest.fixture
def shop(java_classes: Path) -> Iterator[Debuggee]:
    yield from debuggees(java_classes, SHOP, java=require_tool("java"))


def run(*argv: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *argv], capture_output=True, text=True, timeout=120, env=ENV, cwd=cwd)


def test_the_tracer_prints_calls_with_arguments_and_returns_with_values(shop: Debuggee) -> None:
    result = run(str(EXAMPLES / "trace_calls.py"), f"127.0.0.1:{shop.port}", SHOP, "--limit", "8")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[-1] == "traced 4 calls"
    calls = [line for line in lines if line.startswith("→")]
    assert len(calls) == 4 and len([line for line in lines if line.startswith("←")]) == 4
    assert any(re.fullmatch(rf"→ {SHOP}\.add\(item='(pear|plum|fig)', count=[1-4]\)", line) for line in calls)
    assert any(re.fullmatch(rf"→ {SHOP}\.sell\(item='(pear|plum|fig)', count=1, price=\d\.\d+\)", line)
               for line in calls)
    assert "← add = true" in lines and any(re.fullmatch(r"← sell = \d+", line) for line in lines)
    assert shop.process.poll() is None  # the VM runs on


def test_the_tracer_is_short() -> None:
    assert len((EXAMPLES / "trace_calls.py").read_text(encoding="utf-8").splitlines()) <= 80


def test_the_heap_inspector_shows_the_shop(shop: Debuggee) -> None:
    result = run(str(EXAMPLES / "inspect_heap.py"), f"127.0.0.1:{shop.port}", SHOP)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == f"{SHOP}: 1 instance(s)"
    assert re.fullmatch(r"  #1: stock=java\.util\.HashMap\(size=3\), name='corner', revenueCents=\d+, sales=\d+",
                        lines[1])
    assert shop.process.poll() is None


def pytest_on(path: Path, *options: str) -> subprocess.CompletedProcess[str]:
    """pytest on one file, with the plugin loaded by name (an installed pyjdwp loads it by its entry point)."""
    return run("-m", "pytest", "-q", "-p", "jdwp.pytest_plugin", "-p", "no:cacheprovider", str(path), *options,
               cwd=path.parent)


def test_the_replay_test_passes_on_its_recording() -> None:
    result = pytest_on(EXAMPLES / "test_replay_shop.py")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 passed" in result.stdout


def copied_example(tmp_path: Path) -> Path:
    for name in ("test_replay_shop.py", "inspect_heap.py"):
        shutil.copy(EXAMPLES / name, tmp_path / name)
    shutil.copytree(EXAMPLES / "recordings", tmp_path / "recordings")
    return tmp_path / "test_replay_shop.py"


def test_the_replay_test_records_anew_from_a_live_vm_and_replays_that(shop: Debuggee, tmp_path: Path) -> None:
    test = copied_example(tmp_path)
    recording = tmp_path / "recordings" / "shop.jsonl"
    recording.unlink()
    recorded = pytest_on(test, "--jdwp-record", f"127.0.0.1:{shop.port}")
    assert recorded.returncode == 0, recorded.stdout + recorded.stderr
    text = recording.read_text(encoding="utf-8")
    assert '"t":' not in text and '"ids": "renumbered in order of first appearance"' in text
    assert '"decoded": "ClassesBySignatureOut(signature=\\"Lcom/example/debuggee/Shop;\\")"' in text
    replayed = pytest_on(test)
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr


def test_a_diverging_replay_fails_the_test_with_the_difference(tmp_path: Path) -> None:
    test = copied_example(tmp_path)
    test.write_text(test.read_text(encoding="utf-8").replace('"com.example.debuggee.Shop"',
                                                             '"com.example.debuggee.Main"'), encoding="utf-8")
    result = pytest_on(test)
    assert result.returncode == 1
    assert "jdwp.replay.ReplayMismatch" in result.stdout
    assert 'signature: recorded "Lcom/example/debuggee/Shop;", sent "Lcom/example/debuggee/Main;"' in result.stdout


def test_the_readme_shows_the_replay_test_in_ten_lines() -> None:
    section = (REPO / "README.md").read_text(encoding="utf-8").split("### Test against a recording", 1)[1]
    match = re.search(r"```python\n(.*?)```", section, re.S)
    assert match
    body = (EXAMPLES / "test_replay_shop.py").read_text(encoding="utf-8").split('"""', 2)[2].lstrip("\n")
    assert match.group(1) == body and len(body.splitlines()) <= 10
