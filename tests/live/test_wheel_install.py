"""pyjdwp installed from its wheel works without the checkout (docs/design.md §5.9: the install).

The wheel is built from a copy of the sources (``pip wheel --no-deps``; building in the checkout would leave
``build/`` and an ``egg-info`` in it), installed with its dependencies into a fresh venv in a temporary
directory, and run from there with nothing of the checkout on the path: ``pyjdwp-mcp`` through ``tools/list``
and a journey on a real JVM (attach, breakpoint, stop, stack, locals, step, resume, detach: the MCP client
of ``docs/examples/mcp_journey.py``, copied out and run by the venv's own Python), then ``pyjdwp-doctor
--help`` and ``pyjdwp-record --help``. The dependencies come through pip as a user's would (its cache and
index), pinned to the versions this test runs on so that the result does not change with a new release
between two runs; a clean machine downloads them once.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import shutil
import sys
import tomllib
from pathlib import Path

import pytest

from support.jvm import REPO, Debuggee, find_mark
from support.wheels import build_wheel, import_packages, run

pytestmark = pytest.mark.live  # a JVM, and pip reaching its index (or its cache) for the dependencies


def outside_env(venv: Path) -> dict[str, str]:
    """This process's environment (pip's settings included) with nothing that points at the checkout or at
    the test's own venv, and the fresh venv first on PATH."""
    env = {key: value for key, value in os.environ.items()
           if key not in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "VIRTUAL_ENV", "PYTHONSAFEPATH")}
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    return env


def constraints(path: Path) -> Path:
    """Every distribution this test runs on, at its version (not pyjdwp itself: that is the wheel)."""
    pins = sorted({f"{d.metadata['Name']}=={d.version}" for d in importlib.metadata.distributions()
                   if d.metadata["Name"] and d.metadata["Name"].lower() != "pyjdwp"})
    path.write_text("\n".join(pins) + "\n")
    return path


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A venv outside the checkout with pyjdwp installed from a freshly built wheel; its directory."""
    root = tmp_path_factory.mktemp("wheel")
    venv = root / "venv"
    env = outside_env(venv)
    wheel = build_wheel(root, env)
    run([sys.executable, "-m", "venv", venv], cwd=root, env=env, timeout=120)
    run([venv / "bin" / "python", "-m", "pip", "install", "--quiet", "-c", constraints(root / "pins.txt"), wheel],
        cwd=root, env=env, timeout=300)
    return venv


def test_the_installed_wheel_debugs_a_jvm_outside_the_checkout(installed: Path, debuggee: Debuggee,
                                                                tmp_path: Path) -> None:
    env = outside_env(installed)
    python = installed / "bin" / "python"
    probe = ("import importlib, json, sys; "
             "print(json.dumps([importlib.import_module(name).__file__ for name in sys.argv[1:]]))")
    where = json.loads(run([python, "-c", probe, *import_packages()], cwd=tmp_path, env=env, timeout=60))
    for path in where:  # the packages are the wheel's, not the checkout's
        assert Path(path).resolve().is_relative_to(installed.resolve()), path
    version = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]
    for script in ("pyjdwp-mcp", "pyjdwp"):  # the second: what `uvx pyjdwp` runs (server.json)
        assert run([installed / "bin" / script, "--version"], cwd=tmp_path, env=env, timeout=60).strip() == (
            f"pyjdwp-mcp {version}")

    client = tmp_path / "mcp_journey.py"  # the agent's side: the SDK's client, in the venv; no repo file
    shutil.copy2(REPO / "docs" / "examples" / "mcp_journey.py", client)
    _, line = find_mark("step")
    out = run([python, client, "127.0.0.1", str(debuggee.port), "com.example.debuggee.Worker", str(line)],
              cwd=tmp_path, env=env, timeout=120)
    tools = len(json.loads((REPO / "src" / "server" / "answers" / "tool_list.json").read_text())["tools"])
    assert f"server offers {tools} tools" in out
    assert f"breakpoint s1-bp-1 at com.example.debuggee.Worker:{line}: verified" in out
    assert f"at com.example.debuggee.Worker.step(Worker.java:{line})" in out
    assert "  long big = 1152921504606846983" in out  # a local, read through the installed engine
    assert f"stepped over to line {line + 1}" in out
    assert "detached: cleanup complete, app running" in out
    debuggee.wait_for_more_heartbeats()


@pytest.mark.parametrize("script", ["pyjdwp-doctor", "pyjdwp-record"])
def test_the_installed_tools_start_outside_the_checkout(installed: Path, script: str, tmp_path: Path) -> None:
    out = run([installed / "bin" / script, "--help"], cwd=tmp_path, env=outside_env(installed), timeout=60)
    assert out.startswith(f"usage: {script} ")
