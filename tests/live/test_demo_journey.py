"""The main job's journey (``scripts/demo`` runs ``docs/examples/mcp_journey.py``) against a real JVM."""

from __future__ import annotations

import json
import subprocess
import sys

from support.jvm import REPO, Debuggee, find_mark


def test_journey_through_pyjdwp_mcp(debuggee: Debuggee) -> None:
    _, line = find_mark("step")
    result = subprocess.run([sys.executable, str(REPO / "docs" / "examples" / "mcp_journey.py"), "127.0.0.1",
                             str(debuggee.port), "com.example.debuggee.Worker", str(line)],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    tools = len(json.loads((REPO / "src" / "server" / "answers" / "tool_list.json").read_text())["tools"])
    assert f"server offers {tools} tools" in out
    assert f"breakpoint s1-bp-1 at com.example.debuggee.Worker:{line}: verified" in out  # the first session: s1
    assert f"at com.example.debuggee.Worker.step(Worker.java:{line})" in out
    assert '  java.lang.String greeting = "h\u00e9llo \U0001F600 nul:\\u0000:end"' in out
    assert "  long big = 1152921504606846983" in out
    assert f"stepped over to line {line + 1}" in out
    assert "detached: cleanup complete, app running" in out
    debuggee.wait_for_more_heartbeats()
