"""Bugs as an agent meets them, each played through pyjdwp-mcp over stdio as the shortest call sequence
the tools allow: calls and response bytes against each journey's budget (``support.agent_journeys.BUDGETS``:
issue 36's crash, wrong value and freeze in ≤ 3 calls and ≤ 4 KB each), and the tool definitions' size.

    python bench/agent_journeys.py                  # 5 runs of each journey
    python bench/agent_journeys.py --sample         # 1 run of each (CI: tests/server/test_agent_journeys.py)
    python bench/agent_journeys.py --runs 10
    python bench/agent_journeys.py --doc            # also writes its section of docs/performance.md

The programs (``fixtures/journeys``, compiled with ``javac -g`` and ``kotlinc``) are the bench's own: a
Kotlin checkout whose worker thread dies of an ``IllegalStateException`` (a voucher counted once per unit),
a Java latency report whose mean is too low (it divides by every sample but sums only the successful
ones), a Java bank whose balances freeze (two tellers lock two accounts in opposite orders). Each run
starts the program fresh, waits until the bug has shown (the crash's stack trace, the report's line, the
watchdog's ``stale``), then plays the journey's calls (``tests/support/agent_journeys.py``: the calls
are data, the same as docs/agents.md shows) with the MCP SDK's client on a ``pyjdwp-mcp`` started once
for all runs. A run counts only if the answers show the root cause (the voucher's discount times the
quantity; the count of samples summed against the size divided by; both tellers in one deadlock cycle)
and the program runs on after the detach. Each journey is also played as its round-2 sequence (no
capture, one expression a call, pause then threads), for comparison.

Bytes are those of the JSON text of each answer's first content block (what a model reads; the
structured content repeats it on the wire). The tool definitions are the compact JSON of each tool's
name, description and inputSchema from ``tools/list``. It prints whether each budget is met, and exits 1
when one is missed that nothing is said to block (a journey's ``blocked``), or when the definitions exceed
theirs (``pyjdwp_server.answers.budgets.TOOL_DEFINITIONS``). A journey is one function of ``support.agent_journeys`` and
a row of its ``BUDGETS``: adding one is adding those two.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

import anyio
from common import REPO, Table, java_env, server_command
from mcp import Client, StdioServerParameters

from pyjdwp_server.answers.budgets import TOOL_DEFINITIONS
from support import agent_journeys as journeys
from support.agent_journeys import Journey, Played

TOOLS_GOAL = TOOL_DEFINITIONS.goal  # every tool definition, model-visible
DOC = REPO / "docs" / "performance.md"
SECTION = "## Agent journeys: one bug in a few calls and a few kilobytes"
#: Where the section goes in docs/performance.md when it is not there yet (bench/report.py's order).
BEFORE = "## What a conditional breakpoint"


def server_params() -> StdioServerParameters:
    """pyjdwp-mcp of this checkout (``src/`` first on its path: the SDK gives a child a sanitised
    environment, and the console script would otherwise import the installed package)."""
    return StdioServerParameters(command=server_command(), args=["--log-level", "warning"],
                                 env={"PYTHONPATH": str(REPO / "src"), **{k: v for k, v in java_env().items()
                                                                          if k == "PATH"}})


async def run(classes: Path, runs: int, java: str) -> tuple[dict[str, list[Played]], dict[str, list[Played]], int, int]:
    """``runs`` runs of every journey, shortest and round-2 sequences; the tool and prompt definitions' bytes."""
    shortest: dict[str, list[Played]] = {}
    baseline: dict[str, list[Played]] = {}
    async with Client(server_params()) as client:
        tools = journeys.tool_definition_bytes((await client.list_tools()).tools)
        prompts = await journeys.prompt_definition_bytes(client)
        for journey in journeys.journeys():
            shortest[journey.name] = [await journeys.run_journey(client, classes, journey, java=java)
                                      for _ in range(runs)]
            if journey.baseline:
                baseline[journey.name] = [await journeys.run_journey(client, classes, journey, java=java,
                                                                     calls=journey.baseline)]
    return shortest, baseline, tools, prompts


def median_bytes(played: list[Played]) -> int:
    return int(statistics.median(p.bytes for p in played))


def missed(journey: Journey, played: list[Played]) -> list[str]:
    """What of its budget a journey missed in any run: ``calls``, ``bytes``, or nothing."""
    calls, size = max(len(p.calls) for p in played), max(p.bytes for p in played)
    return [what for what, ok in (("calls", calls <= journey.goal_calls), ("bytes", size <= journey.goal_bytes))
            if not ok]


def verdict(journey: Journey, played: list[Played]) -> str:
    over = missed(journey, played)
    return "met" if not over else "not met (" + ", ".join(over) + ")"


def failures(shortest: dict[str, list[Played]], tools: int) -> list[str]:
    """Each budget missed that no journey's ``blocked`` explains: what ``main`` exits 1 for."""
    found = [f"{journey.name}: {', '.join(missed(journey, shortest[journey.name]))} over budget"
             for journey in journeys.journeys() if not journey.blocked and missed(journey, shortest[journey.name])]
    if tools > TOOLS_GOAL:
        found.append(f"tool definitions: {tools:,} B over {TOOLS_GOAL:,} B")
    return found


def tables(shortest: dict[str, list[Played]], baseline: dict[str, list[Played]], tools: int, prompts: int,
           runs: int) -> list[Table]:
    rows = []
    for journey in journeys.journeys():
        played = shortest[journey.name]
        sizes = [p.bytes for p in played]
        rows.append([journey.name, str(len(played[0].calls)), f"{median_bytes(played):,}",
                     f"{min(sizes):,}–{max(sizes):,}", f"≤ {journey.goal_calls} calls, ≤ {journey.goal_bytes:,} B",
                     verdict(journey, played),
                     f"{len(baseline[journey.name][0].calls)} / {baseline[journey.name][0].bytes:,}"
                     if journey.name in baseline else "—"])
    notes = [f"{journey.name}: {' → '.join(shortest[journey.name][0].calls)}; found: "
             f"{shortest[journey.name][0].found}" for journey in journeys.journeys()]
    notes += [f"{journey.name}: held at ≤ {journey.held_calls} calls, ≤ {journey.held_bytes:,} B: {journey.blocked}"
              for journey in journeys.journeys() if journey.blocked]
    notes.append("bytes: the JSON text of each answer (what a model reads), attach and detach included; "
                 f"median and range over {runs} run(s), each on a freshly started program.")
    notes.append("round 2: the same bug found with round 2's call sequence (no capture, no until, one expression "
                 "a call, pause then get_debugger_threads) on this server, one run.")
    journey_table = Table(f"Agent journeys over stdio ({runs} run(s) each)",
                          ["journey", "calls", "bytes (median)", "bytes (range)", "goal", "goal met",
                           "round 2: calls / bytes"], rows, notes)
    definitions = Table("What a model carries every turn", ["definitions", "bytes", "goal", "goal met"], [
        ["tools/list: name, description, inputSchema (compact JSON)", f"{tools:,}", f"≤ {TOOLS_GOAL:,}",
         "met" if tools <= TOOLS_GOAL else "not met"],
        ["prompts/list (compact JSON)", f"{prompts:,}", "—", "—"],
    ])
    per_call = Table("Where a journey's bytes go (its first run)", ["journey", "call", "bytes"], [
        [journey.name if index == 0 else "", tool, f"{size:,}"]
        for journey in journeys.journeys()
        for index, (tool, size) in enumerate(zip(shortest[journey.name][0].calls, shortest[journey.name][0].sizes,
                                                 strict=True))])
    return [journey_table, per_call, definitions]


def tools_needed() -> tuple[str, str, str]:
    """``java``, ``javac`` and ``kotlinc``; exits with a message when one is missing."""
    found = [shutil.which(name) for name in ("java", "javac", "kotlinc")]
    if not all(found):
        sys.exit("this benchmark needs java, javac (OpenJDK 17) and kotlinc (Debian's kotlin) on PATH")
    return found[0], found[1], found[2]  # type: ignore[return-value]


def measure(runs: int) -> tuple[list[Table], list[str]]:
    """The tables, and the budgets missed (:func:`failures`)."""
    java, javac, kotlinc = tools_needed()
    with tempfile.TemporaryDirectory() as tmp:
        classes = journeys.compile_programs(Path(tmp), javac=javac, kotlinc=kotlinc)
        shortest, baseline, tools, prompts = anyio.run(run, classes, runs, java, backend="trio")
    return tables(shortest, baseline, tools, prompts, runs), failures(shortest, tools)


def write_section(tables_: list[Table], runs: int) -> None:
    """Replace this bench's section of docs/performance.md (or put it where bench/report.py would)."""
    lines = [SECTION, "", f"`python bench/agent_journeys.py --runs {runs}`", ""]
    for table in tables_:
        lines += [table.markdown(), ""]
    section = "\n".join(lines)
    text = DOC.read_text(encoding="utf-8")
    if SECTION in text:
        start = text.index(SECTION)
        end = text.find("\n## ", start + len(SECTION))
        text = text[:start] + section + (text[end + 1:] if end >= 0 else "")
    elif BEFORE in text:
        text = text.replace(BEFORE, section + "\n" + BEFORE, 1)
    else:
        text = text.rstrip("\n") + "\n\n" + section
    DOC.write_text(text, encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="runs of each journey (default 5)")
    parser.add_argument("--sample", action="store_true", help="one run of each journey (CI)")
    parser.add_argument("--doc", action="store_true", help=f"write its section of {DOC.relative_to(REPO)}")
    args = parser.parse_args()
    runs = 1 if args.sample else args.runs
    if not 1 <= runs <= 100:
        sys.exit("--runs must be between 1 and 100")
    measured, missing = measure(runs)
    for table in measured:
        print(table.text(), end="\n\n")
    if args.doc:
        write_section(measured, runs)
        print(f"wrote its section of {DOC.relative_to(REPO)}")
    if missing:
        sys.exit("budgets missed: " + "; ".join(missing))


if __name__ == "__main__":
    main()
