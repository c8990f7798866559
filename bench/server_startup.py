"""pyjdwp-mcp's cold start to an answered ``tools/list``, its idle memory, and what its imports cost.

    python bench/server_startup.py             # 10 starts
    python bench/server_startup.py --starts 30

- *Cold start*: spawn ``pyjdwp-mcp`` with the MCP SDK's stdio client, initialise, and time until
  ``list_tools`` returns. Then read the server's ``VmRSS`` from ``/proc/<pid>/status`` (idle: no
  session), and time 100 calls of a tool that needs no JVM (``get_debugger_state`` of an unknown
  session, which answers DEBUGGER_NOT_FOUND) as the bare cost of one tool call over stdio.
- *Imports*: in a fresh interpreter each, the wall time and the RSS after importing a module — the
  interpreter alone, then trio, the MCP SDK's modules the server uses, our packages, and the whole server.

Goals (issue 6): cold start ≤ 1 s, idle RSS ≤ 80 MB. Prints medians; asserts nothing.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

import anyio
from common import REPO, Table, children, rss_mib, server_command
from mcp import Client, StdioServerParameters

from server.tools import TOOLS

IMPORTS = (
    ("(interpreter only)", "pass"),
    ("trio", "import trio"),
    ("mcp SDK (lowlevel server, stdio, types)", "import mcp.server.lowlevel, mcp.server.stdio, mcp_types"),
    ("jdwp (client + protocol)", "import jdwp"),
    ("jdwp.debugger", "import jdwp.debugger"),
    ("android", "import android"),
    ("server.cli (everything pyjdwp-mcp imports)", "import server.cli"),
)
PROBE = """
import time
t = time.perf_counter()
{statement}
t = time.perf_counter() - t
rss = [line.split()[1] for line in open('/proc/self/status') if line.startswith('VmRSS:')][0]
print(t, int(rss) / 1024)
"""


async def start_once() -> tuple[float, float, list[float]]:
    """One cold start: (seconds to tools/list answered, server RSS MiB, seconds per bare tool call)."""
    before = set(children())
    started = time.perf_counter()
    params = StdioServerParameters(command=server_command(), args=["--log-level", "warning"])
    async with Client(params) as client:
        tools = await client.list_tools()
        elapsed = time.perf_counter() - started
        if len(tools.tools) != len(TOOLS):
            raise RuntimeError(f"expected {len(TOOLS)} tools, got {len(tools.tools)}")
        new = [pid for pid in children() if pid not in before]
        servers = [pid for pid in new if "pyjdwp-mcp" in Path(f"/proc/{pid}/cmdline").read_text()]
        if len(servers) != 1:
            raise RuntimeError(f"cannot tell the server process among {new}")
        rss = rss_mib(servers[0])
        calls = []
        for _ in range(100):
            t = time.perf_counter()
            body = (await client.call_tool("get_debugger_state", {"debugSessionId": "dbg-none"})).structured_content
            calls.append(time.perf_counter() - t)
            if not body or body["error"]["code"] != "DEBUGGER_NOT_FOUND":
                raise RuntimeError(f"unexpected answer {body}")
    return elapsed, rss, calls


async def cold_starts(count: int) -> list[tuple[float, float, list[float]]]:
    return [await start_once() for _ in range(count)]


def import_costs(repeats: int) -> list[tuple[str, float, float]]:
    """(label, fastest seconds, median RSS MiB) per import, each in ``repeats`` fresh interpreters.

    The fastest run is the one least disturbed by other work on the machine; the work itself is the same.
    """
    out = []
    env_path = str(REPO / "src")
    for label, statement in IMPORTS:
        times, rss = [], []
        for _ in range(repeats):
            result = subprocess.run([sys.executable, "-c", PROBE.format(statement=statement)], capture_output=True,
                                    text=True, check=True, cwd=REPO, env={"PYTHONPATH": env_path})
            seconds, mib = (float(x) for x in result.stdout.split())
            times.append(seconds)
            rss.append(mib)
        out.append((label, min(times), statistics.median(rss)))
    return out


def measure(starts: int) -> list[Table]:
    runs = anyio.run(cold_starts, starts, backend="trio")
    start_s = [r[0] for r in runs]
    rss = [r[1] for r in runs]
    calls = [c for r in runs for c in r[2]]
    start_table = Table(f"pyjdwp-mcp cold start and idle memory ({starts} starts)", ["measure", "median", "min", "max",
                                                                                    "goal"], [
        ["spawn → tools/list answered (ms)", f"{statistics.median(start_s) * 1000:.0f}",
         f"{min(start_s) * 1000:.0f}", f"{max(start_s) * 1000:.0f}", "≤ 1000"],
        ["idle RSS after tools/list (MiB)", f"{statistics.median(rss):.1f}", f"{min(rss):.1f}", f"{max(rss):.1f}",
         "≤ 80 MB"],
        ["one tool call without JVM, over stdio (ms)", f"{statistics.median(calls) * 1000:.2f}",
         f"{min(calls) * 1000:.2f}", f"{max(calls) * 1000:.2f}", "—"],
    ], notes=["Cold start: the SDK's stdio client spawns the console script, initialises the MCP session and "
              "lists the tools. The tool call is `get_debugger_state` of an unknown session (100 per start)."])
    costs = import_costs(max(3, min(starts, 7)))
    base_time, base_rss = costs[0][1], costs[0][2]
    import_rows = [[label, f"{seconds * 1000:.0f}", f"{mib:.1f}", f"{mib - base_rss:+.1f}" if seconds else ""]
                   for label, seconds, mib in costs]
    import_rows[0][1] = f"{base_time * 1000:.0f}"
    repeats = max(3, min(starts, 7))
    import_table = Table(f"What the imports cost, each in a fresh interpreter ({repeats} times)",
                         ["import", "import ms (fastest)", "RSS after (MiB, median)", "RSS over interpreter"],
                         import_rows,
                         notes=["Rows overlap: jdwp.debugger includes jdwp, and server.cli includes all of them."])
    return [start_table, import_table]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--starts", type=int, default=10, help="cold starts (default 10)")
    args = parser.parse_args()
    if not 1 <= args.starts <= 1000:
        sys.exit("--starts must be between 1 and 1000")
    for table in measure(args.starts):
        print(table.text(), end="\n\n")


if __name__ == "__main__":
    main()
