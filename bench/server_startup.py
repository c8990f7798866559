"""pyjdwp-mcp's cold start to an answered ``tools/list``, its idle memory, and what its imports cost.

    python bench/server_startup.py                               # 10 starts of this checkout's server
    python bench/server_startup.py --starts 30
    python bench/server_startup.py --against /path/to/other/src   # and another tree's, interleaved

- *Cold start*: spawn ``pyjdwp-mcp`` with the MCP SDK's stdio client, initialise, and time until
  ``list_tools`` returns. Then read the server's ``VmRSS`` from ``/proc/<pid>/status`` (idle: no
  session), time the first tool call (it imports the engine: the server answers ``initialize`` and
  ``tools/list`` without it), and 100 more of a tool that needs no JVM (``get_debugger_state`` of an
  unknown session, which answers DEBUGGER_NOT_FOUND) as the bare cost of one tool call over stdio. The
  server runs this checkout's ``src`` (``PYTHONPATH``), whichever copy the console script was installed from;
  ``--against`` adds another ``src`` tree, started in turn with this one, so that a change is measured
  side by side on a machine whose speed varies.
- *Imports*: in a fresh interpreter each, the wall time and the RSS after importing a module — the
  interpreter alone, then trio, the MCP SDK's modules the server uses, our packages, the server's start
  and what its first tool call adds.

Goals (issue 6, docs/design.md §5.9): cold start ≤ 1 s, idle RSS ≤ 80 MB. Prints medians; asserts nothing.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import anyio
from common import REPO, Table, children, rss_mib, server_command
from mcp import Client, StdioServerParameters

from pyjdwp_server.tools import TOOLS

IMPORTS = (
    ("(interpreter only)", "pass"),
    ("trio", "import trio"),
    ("mcp SDK (lowlevel server, stdio, types)", "import mcp.server.lowlevel, mcp.server.stdio, mcp_types"),
    ("jdwp (client + protocol)", "import jdwp"),
    ("jdwp.debugger", "import jdwp.debugger"),
    ("android", "import pyjdwp_android"),
    ("pyjdwp_server.cli (what pyjdwp-mcp imports to start)", "import pyjdwp_server.cli"),
    ("pyjdwp_server.transport.handling (with the first tool call: engine, android, tools)",
     "import pyjdwp_server.cli, pyjdwp_server.transport.handling"),
)
PROBE = """
import time
t = time.perf_counter()
{statement}
t = time.perf_counter() - t
rss = [line.split()[1] for line in open('/proc/self/status') if line.startswith('VmRSS:')][0]
print(t, int(rss) / 1024)
"""


async def start_once(src: Path) -> tuple[float, float, float, list[float]]:
    """One cold start of the server in ``src``: (seconds to tools/list answered, server RSS MiB, seconds of
    the first tool call, seconds per later bare tool call)."""
    before = set(children())
    started = time.perf_counter()
    params = StdioServerParameters(command=server_command(), args=["--log-level", "warning"],
                                   env={"PYTHONPATH": str(src)})
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
        for _ in range(101):
            t = time.perf_counter()
            body = (await client.call_tool("get_debugger_state", {"debugSessionId": "dbg-none"})).structured_content
            calls.append(time.perf_counter() - t)
            if not body or body["error"]["code"] != "DEBUGGER_NOT_FOUND":
                raise RuntimeError(f"unexpected answer {body}")
    return elapsed, rss, calls[0], calls[1:]


async def floor_once() -> float:
    """One cold start of the SDK's smallest server (``bench/sdk_floor_server.py``): seconds to tools/list."""
    started = time.perf_counter()
    params = StdioServerParameters(command=sys.executable, args=[str(Path(__file__).with_name("sdk_floor_server.py"))],
                                   env={"PYTHONPATH": str(REPO / "src")})
    async with Client(params) as client:
        await client.list_tools()
        return time.perf_counter() - started


async def cold_starts(count: int, trees: list[Path]) -> tuple[list[list[tuple[float, float, float, list[float]]]],
                                                            list[float]]:
    """``count`` starts of each tree's server and of the SDK's smallest one, taking turns (one start each,
    round after round)."""
    runs: list[list[tuple[float, float, float, list[float]]]] = [[] for _ in trees]
    floor = []
    for _ in range(count):
        for runs_of, src in zip(runs, trees, strict=True):
            runs_of.append(await start_once(src))
        floor.append(await floor_once())
    return runs, floor


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


def _start_rows(label: str, runs: list[tuple[float, float, float, list[float]]]) -> list[Sequence[str]]:
    start_s = [r[0] for r in runs]
    rss = [r[1] for r in runs]
    first = [r[2] for r in runs]
    calls = [c for r in runs for c in r[3]]

    def ms(values: list[float], digits: int = 0) -> list[str]:
        return [f"{statistics.median(values) * 1000:.{digits}f}", f"{min(values) * 1000:.{digits}f}",
                f"{max(values) * 1000:.{digits}f}"]

    return [
        [f"{label}spawn → tools/list answered (ms)", *ms(start_s), "≤ 1000"],
        [f"{label}idle RSS after tools/list (MiB)", f"{statistics.median(rss):.1f}", f"{min(rss):.1f}",
         f"{max(rss):.1f}", "≤ 80 MB"],
        [f"{label}first tool call, imports the engine (ms)", *ms(first), "—"],
        [f"{label}one tool call without JVM, over stdio (ms)", *ms(calls, 2), "—"],
    ]


def measure(starts: int, against: Path | None = None) -> list[Table]:
    trees = [REPO / "src"] + ([against] if against else [])
    runs, floor = anyio.run(cold_starts, starts, trees, backend="trio")
    rows = _start_rows("", runs[0])
    notes = ["Cold start: the SDK's stdio client spawns the console script, initialises the MCP session and "
             "lists the tools. The first tool call, and then 100 more, are `get_debugger_state` of an unknown "
             "session; the first imports the engine, android and the tool table, which the start does without."]
    if against:
        rows = _start_rows("this checkout: ", runs[0]) + _start_rows(f"{against}: ", runs[1])
        notes.append(f"Both trees' servers were started in turn, {starts} times each, in one run.")
    rows.append(["the SDK's smallest server: spawn → tools/list answered (ms)",
                 f"{statistics.median(floor) * 1000:.0f}", f"{min(floor) * 1000:.0f}", f"{max(floor) * 1000:.0f}",
                 "—"])
    notes.append("The SDK's smallest server (bench/sdk_floor_server.py: one tool, on pyjdwp-mcp's stdio streams) "
                 "is started in the same turns: the floor of any server on this SDK, its import included.")
    start_table = Table(f"pyjdwp-mcp cold start and idle memory ({starts} starts)",
                        ["measure", "median", "min", "max", "goal"], rows, notes=notes)
    repeats = max(3, min(starts, 7))
    costs = import_costs(repeats)
    base_rss = costs[0][2]
    import_rows: list[Sequence[str]] = [[label, f"{seconds * 1000:.0f}", f"{mib:.1f}", f"{mib - base_rss:+.1f}"]
                                        for label, seconds, mib in costs]
    import_table = Table(f"What the imports cost, each in a fresh interpreter ({repeats} times)",
                         ["import", "import ms (fastest)", "RSS after (MiB, median)", "RSS over interpreter"],
                         import_rows,
                         notes=["Rows overlap: jdwp.debugger includes jdwp, "
                                "pyjdwp_server.transport.handling includes all of them; "
                                "pyjdwp_server.cli is what the server imports before its first tool call."])
    return [start_table, import_table]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--starts", type=int, default=10, help="cold starts (default 10)")
    parser.add_argument("--against", type=Path, metavar="SRC",
                        help="also start the server of another source tree (its src directory), in turn with this one")
    args = parser.parse_args()
    if not 1 <= args.starts <= 1000:
        sys.exit("--starts must be between 1 and 1000")
    if args.against and not (args.against / "server" / "cli.py").is_file():
        sys.exit(f"--against: no server package in {args.against}")
    for table in measure(args.starts, args.against.resolve() if args.against else None):
        print(table.text(), end="\n\n")


if __name__ == "__main__":
    main()
