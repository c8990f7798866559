"""Run every performance benchmark and write docs/performance.md from what they measured.

    python bench/report.py                    # all benchmarks, then writes docs/performance.md
    python bench/report.py --out /tmp/perf.md --rounds 5 --cycles 50 --starts 3   # a quicker run

Runs, one after the other (never in parallel, so they do not compete for the CPUs): bench/journey.py,
bench/server_startup.py, bench/latency.py, bench/tokens.py, bench/tool_budget.py, bench/agent_journeys.py,
and as subprocesses (their output included verbatim) bench/logpoints.py, bench/jetty_load.py,
bench/tracing.py, bench/coroutine_noise.py, bench/roundtrips.py at 10 ms injected RTT and bench/codec.py.
The document holds the machine, the commands, the tables and what each needs said to be read right (the prose
below: why, never a figure of its own).
"""

from __future__ import annotations

import argparse
import datetime
import subprocess
import sys
import time

import agent_journeys
import journey
import latency
import server_startup
import tokens
import tool_budget
from common import REPO, Table, machine

DOC = REPO / "docs" / "performance.md"
#: Issue 26 measures a logging watchpoint over 10,000 writes; the MCP series is the slow one, 50 hits tell it.
LOGPOINT_ARGS = ("--hits", "10000", "--mcp-hits", "50")

DISPATCH_PROSE = """\

Until 2026-12-07 the server answered `tools/call` beside the MCP SDK's dispatcher, with its own stdio streams
and serialisation (`server/direct_calls.py`, 557 lines with its streams), to save about 0.6 ms of a call. It
now uses the SDK's server and stdio transport as they ship; only stdin is read by trio, so that SIGTERM ends
the input and every session detaches as at EOF. Measured side by side before the change, in one run each
(warm `get_debugger_state` of an unknown session, the official MCP client, over stdio), while the machine was
heavily loaded (load average 11-14 on 2 CPUs, other jobs running):

| warm tool call over stdio (ms) | median | p10 | min |
|---|---|---|---|
| own dispatch and streams (before), 500 calls in batches of 50 alternated with the other server | 6.11 | 1.92 | 1.22 |
| the SDK's dispatch and stdio transport (after), the same run | 11.77 | 5.59 | 2.10 |
| own dispatch (before), `bench/server_startup.py --against`, 10 starts x 100 calls | 12.58 | — | 0.89 |
| the SDK's (after), the same run | 20.20 | — | 2.16 |

The difference (the SDK writes each line through a worker thread, and runs each request in a task of its own)
is milliseconds in an agent's turn that costs seconds; no figure a user sees depends on it.
"""

LOGPOINT_PROSE = """\
The watchpoint rows: a logging watchpoint on the static field `Loops.last`, written once per call; the app
never stopped. A logging watchpoint's hit costs more than a line logpoint's rate-limited hit: the field's old
value is read at each write (`ReferenceType.GetValues`, one round trip while the writing thread waits), which
the line logpoint does not need. Both goals of issue 13 are a median ≤ 1 ms and a p99 ≤ 5 ms."""

JETTY_PROSE = """\
A real server under load: our handler on Debian's Jetty 9 (200 pool threads), 40 client threads of a child
process on 127.0.0.1, each scenario after the previous one on the same JVM (the *no debugger* row on a JVM
without the agent). Hits of different threads are judged at once (docs/tools.md, conditions). Each hit is, in
the VM, the event's report and the thread's suspension, then `ThreadReference.Frames` and `StackFrame.GetValues`
of the slots the condition names (one write, frame 0's ID guessed), then `ThreadReference.Resume`, sent without
waiting for its reply. Those reads do not stop the app's other threads: a never-true condition's run with
`-Xlog:safepoint` on OpenJDK 17.0.21 logged no safepoint for them, only the periodic `Cleanup` ones and G1's
pauses. The *hit count* row is the floor of any judged hit (its event and its release, no reads); the notes give
the condition's bound (that floor plus the reads' round trip measured under the same load, per request), how
close to it the condition comes, and the debugger's CPU per hit. That CPU is what keeps the condition under its
bound: the debugger is one Python process, at most one core, sharing the machine's cores with the JVM's 200
threads and the 40 load threads, and once its share is used up hits queue in it. A logpoint reads its message
for the hits it captures (100 a second) and counts the rest like a hit count. On a machine whose load average is
far above its CPU count, every process's share of the CPUs moves the figures from run to run."""

TRACING_PROSE = """\
The library's tracer (`jdwp.open_tracer`, arguments and return values) and the same tracer written on JDI
(`bench/java/JdiTrace.java`: `frame(0).getArgumentValues()` on each entry, `returnValue()` on each exit), each
on a fresh JVM running `Shop` (fixtures/java) as fast as it goes, runs alternating; once with one thread calling,
once with four (`-Dthreads=4`). *Suspend + release only* makes the same requests and releases each entry's thread
at once from the reader without reading anything: the ceiling of any tracer that reads arguments. The tracer
handles event sets in the client's reader (`JdwpClient.handle_events`): an entry's `StackFrame.GetValues` (frame
0's ID guessed, `jdwp/frame_guess.py`) goes out from there and its reply's callback sends the release, so a call
holds its thread for one round trip, and for three with JDI. What bounds both is that read: on HotSpot 17 each
slot it reads is a VM operation. Like every figure here it moves with the machine's load."""

NOISE_PROSE = """\
Once coroutines are loaded, an uncaught exception breakpoint also watches caught throwables (to stop where a
coroutine crashes, docs/tools.md `set_debugger_exception_breakpoint`); each caught one holds its thread for one
event round trip. The program (`fixtures/coroutines`) catches 20,000 `Integer.parseInt` failures inside a
coroutine and times them itself. An app without coroutines pays nothing (the watch is made only once
`BaseContinuationImpl` loads); `exceptionClass` limits it to one class's throwables."""

ROUNDTRIP_PROSE = """\
(m), the bare Kotlin file, reads every class's source map: one pipelined write of 30,000
`ReferenceType.SourceDebugExtension`, answers read raw, maps parsed only when they contain the name. Most of
its wall time is the VM answering 30,000 commands, not the engine's own CPU (`time.process_time` tells them
apart), so on a busy machine (the load averages above) the VM's JDWP thread's share of the CPUs decides it."""


def script_output(name: str, *args: str) -> str:
    """A bench script run as a subprocess; its output, verbatim."""
    result = subprocess.run([sys.executable, str(REPO / "bench" / name), *args],
                            capture_output=True, text=True, cwd=REPO, timeout=900)
    if result.returncode:
        raise RuntimeError(f"bench/{name} failed:\n{result.stdout}\n{result.stderr}")
    return result.stdout.rstrip()


def section(title: str, command: str, tables: list[Table]) -> list[str]:
    out = [f"## {title}", "", f"`{command}`", ""]
    for table in tables:
        out += [table.markdown(), ""]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=15, help="journey rounds (default 15)")
    parser.add_argument("--cycles", type=int, default=200, help="latency cycles per way and series (default 200)")
    parser.add_argument("--starts", type=int, default=10, help="server cold starts (default 10)")
    parser.add_argument("--journey-runs", type=int, default=5, help="runs of each agent journey (default 5)")
    parser.add_argument("--out", default=str(DOC), help=f"where to write (default {DOC.relative_to(REPO)})")
    args = parser.parse_args()

    began = time.monotonic()
    before = Table("Machine, before the run", ["", ""], [list(row) for row in machine()])
    print("journey …", flush=True)
    journey_tables = journey.measure(args.rounds)
    print("server startup …", flush=True)
    startup_tables = server_startup.measure(args.starts)
    print("latency …", flush=True)
    latency_tables = latency.measure(args.cycles)
    print("response bytes …", flush=True)
    token_table = tokens.measure()
    print("budgets …", flush=True)
    budget_tables = tool_budget.measure()
    print("agent journeys …", flush=True)
    agent_tables = agent_journeys.measure(args.journey_runs)
    print("per-hit cost …", flush=True)
    hits = script_output("logpoints.py", *LOGPOINT_ARGS)
    print("jetty under load …", flush=True)
    jetty = script_output("jetty_load.py")
    print("tracing …", flush=True)
    tracing = script_output("tracing.py")
    print("coroutine exception noise …", flush=True)
    noise = script_output("coroutine_noise.py").strip()
    print("round trips …", flush=True)
    trips = script_output("roundtrips.py", "--rtt-ms", "10")
    print("decoding …", flush=True)
    decoding = script_output("codec.py")

    after = Table("Machine, after the run", ["", ""], [list(row) for row in machine()][1:2])
    lines = [
        "# Performance",
        "",
        "Written by `bench/report.py` on "
        f"{datetime.datetime.now(datetime.UTC).strftime('%Y-%m-%d %H:%M UTC')} "
        f"in {time.monotonic() - began:.0f} s; rerun it to replace this file. Every figure below comes from "
        "one run on the machine shown; ratios are between ways measured side by side in that run. The "
        "benchmarks assert nothing about time.",
        "",
        before.markdown(),
        "",
        after.markdown(),
        "",
        "Other processes may run on the machine during the run; the load averages show how busy it was.",
        "",
        "To rerun one part: `python bench/journey.py`, `python bench/server_startup.py`, "
        "`python bench/latency.py`, `python bench/tokens.py`, `python bench/tool_budget.py`, "
        "`python bench/agent_journeys.py`, "
        "`python bench/logpoints.py`, `python bench/jetty_load.py`, `python bench/tracing.py`, "
        "`python bench/coroutine_noise.py`, "
        "`python bench/roundtrips.py --rtt-ms 10`, "
        "`python bench/codec.py` (each `--help` lists its "
        "options). They need `java`, `javac` and `jdb` (OpenJDK 17) and `kotlinc` on PATH and the package "
        "installed (`pip install -e .`) so that `pyjdwp-mcp` is beside the Python running them.",
        "",
    ]
    lines += section("The journey: pyjdwp (library, MCP) and jdb side by side",
                     f"python bench/journey.py --rounds {args.rounds}", journey_tables)
    lines += section("Server cold start and idle memory", f"python bench/server_startup.py --starts {args.starts}",
                     startup_tables)
    lines += ["### A warm tool call through the SDK's dispatch, as it ships (issue 33)", "", DISPATCH_PROSE]
    lines += section("Breakpoint hit to a visible stop", f"python bench/latency.py --cycles {args.cycles}",
                     latency_tables)
    lines += section("What an agent reads: response bytes, envelope and payload", "python bench/tokens.py",
                     [token_table])
    lines += section("Budgets for agents (docs/design.md §5.8): definitions, attach, envelope, logpoints",
                     "python bench/tool_budget.py", budget_tables)
    lines += section("Agent journeys: one bug in a few calls and a few kilobytes",
                     f"python bench/agent_journeys.py --runs {args.journey_runs}", agent_tables)
    lines += ["## What a conditional breakpoint or a logpoint costs the thread that hits it", "",
              f"`python bench/logpoints.py {' '.join(LOGPOINT_ARGS)}`", "", "```", hits, "```", "",
              LOGPOINT_PROSE, ""]
    lines += ["## Jetty under load: conditions, logpoints and hit counts on a 200-thread server", "",
              "`python bench/jetty_load.py`", "", JETTY_PROSE, "", "```", jetty, "```", ""]
    lines += ["## Method tracing: the library's tracer and JDI side by side", "", "`python bench/tracing.py`", "",
              TRACING_PROSE, "", "```", tracing, "```", ""]
    lines += ["## What an uncaught exception breakpoint costs a coroutine app that catches many exceptions", "",
              "`python bench/coroutine_noise.py`", "", NOISE_PROSE, "", "```", noise, "```", ""]
    lines += ["## Round trips at 10 ms injected RTT", "", "`python bench/roundtrips.py --rtt-ms 10`", "",
              "```", trips, "```", "", ROUNDTRIP_PROSE, ""]
    lines += ["## Decoding and encoding the hot paths, against hand-written struct code", "",
              "`python bench/codec.py`", "",
              "```", decoding, "```", ""]
    text = "\n".join(lines)
    with open(args.out, "w", encoding="utf-8") as out:
        out.write(text)
    print(text)
    print(f"\nwrote {args.out}")


if __name__ == "__main__":
    main()
