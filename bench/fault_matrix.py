"""Fault injection at every packet boundary of the reference journey; writes the matrix to docs/reliability.md.

    python bench/fault_matrix.py                  # every packet x every fault (about 10 minutes)
    python bench/fault_matrix.py --sample 8       # 8 packets spread over the journey
    python bench/fault_matrix.py --no-write       # print only
    python bench/fault_matrix.py --journey condition --sample 6   # a conditional breakpoint's journey
    python bench/fault_matrix.py --journey logpoint --sample 6    # a logpoint storm's journey
    python bench/fault_matrix.py --journey watch --sample 6       # watchpoints and a method exit's value
    python bench/fault_matrix.py --hostile strings   # hostile heaps: 30M-char strings, 10,000 frames, 5,000 threads
    python bench/fault_matrix.py --hostile-containers   # 1M-entry maps/sets, 10M-element arrays (no faults)

A clean run of the journey (tests/faults/journey.py: attach, a pending and a loaded breakpoint, stop, stack,
locals, step, resume, a pause with the threads listed and a listed thread's stack, resume, detach, through
pyjdwp's MCP server; or the ``condition`` or ``logpoint`` journey of the same module) is relayed by
tests/faults/proxy.py to a real
JVM and its packets counted; then, for each packet and each fault (EOF, a stall of 2 x timeoutMs + 0.5 s,
48 garbage bytes, the packet cut in half then EOF), the journey runs again with that fault injected there.
Every run checks: each tool call returns within its timeoutMs + 1 s, every response is an envelope (no
exception escapes), the session ends detached/disconnected/failed with a terminal_reason, the server's JDWP
connection is closed afterwards, and the JVM prints heartbeats (nothing left suspended). Exits 1 if any
run failed a check.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

import trio

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import hostile_containers as hostile
from reliability_doc import machine, write_section

from faults.journey import JOURNEYS, Bench, Outcome, packet_points, summarise
from faults.proxy import FAULTS
from support.jvm import compile_fixtures

SHORT = {"detached": "det", "disconnected": "disc", "failed": "fail", "attach failed": "no-attach"}


def cell(outcome: Outcome) -> str:
    end = outcome.end.split(" (")[0] if not outcome.end.startswith("no session") else "attach failed"
    text = SHORT.get(end, end or "?")
    marks = [f"{k[0].upper()}{n}" for k, n in (("hangs", len(outcome.hangs)), ("escaped", len(outcome.escaped)),
                                                 ("unnamed", len(outcome.unnamed)), ("leaks", len(outcome.leaks)))
             if n]
    return text + (" **" + " ".join(marks) + "**" if marks else "")


JOURNEY_TEXT = {
    "reference": "attach, a pending and a loaded breakpoint, stop, stack, locals, step over, resume, a pause with "
                 "the threads listed and a listed thread's stack, resume, detach",
    "condition": "attach, a conditional breakpoint (true every 40th hit; every hit judged with only its thread "
                 "held), two stops with stack and locals, resume, detach",
    "logpoint": "attach, a logpoint hit some 200 times a second (past the 100 a second rate limit), events "
                "polled, a state read while it fires, detach while it fires",
    "watch": "attach, a read watchpoint (Main.running, read some 200 times a second) stops with the field's "
             "value, stack, removed, resume; a method-exit breakpoint (Worker.step) stops with its return value, "
             "removed, resume; a logging read watchpoint fires while the session detaches",
}


async def run(classes: Path, sample: int | None, timeout_ms: int,
              journey: str = "reference") -> tuple[Outcome, list[Outcome], int, float]:
    bench = Bench(classes, shutil.which("java") or "java")
    started = time.monotonic()
    try:
        async with trio.open_nursery() as nursery:
            await bench.serve(nursery)
            clean = await bench.run(None, None, timeout_ms, journey)
            if not clean.clean or clean.failed_at:
                raise SystemExit(f"the clean journey failed: {clean}")
            points = packet_points(clean.packets, sample)
            print(f"clean journey: {clean.packets} packets, {clean.calls} tool calls; "
                  f"{len(points)} points x {len(FAULTS)} faults")
            outcomes = []
            for point in points:
                for fault in FAULTS:
                    outcome = await bench.run(point, fault, timeout_ms, journey)
                    outcomes.append(outcome)
                    flag = "" if outcome.clean else "   <-- " + "; ".join(
                        outcome.hangs + outcome.escaped + outcome.unnamed + outcome.leaks)
                    print(f"  {point:>3} {fault:<8} {outcome.injected:<40} {outcome.end}{flag}", flush=True)
            nursery.cancel_scope.cancel()
    finally:
        bench.stop()
    return clean, outcomes, bench.restarts, time.monotonic() - started


def report(clean: Outcome, outcomes: list[Outcome], restarts: int, elapsed: float, timeout_ms: int,
           command: str, journey: str = "reference") -> str:
    by_point: dict[int, dict[str, Outcome]] = {}
    for o in outcomes:
        assert o.point is not None and o.fault is not None
        by_point.setdefault(o.point, {})[o.fault] = o
    every = len(by_point) == clean.packets
    lines = [
        f"## Fault injection {'at every packet' if every else f'at {len(by_point)} packets'} of the {journey} journey",
        "",
        f"Regenerate: `{command}` ({elapsed / 60:.1f} minutes here). Machine: {machine()}.",
        "",
        f"The journey ({JOURNEY_TEXT[journey]}; "
        f"{clean.calls} tool calls, every timeoutMs {timeout_ms}) relayed through `tests/faults/proxy.py` to a real "
        f"JVM takes **{clean.packets} packets** (both directions, the two handshakes included). Each point below "
        "is the packet at which the fault struck, in the direction it travelled; faults: `eof` (packet dropped, "
        f"both connections closed), `stall` (nothing delivered either way for {2 * timeout_ms / 1000 + 0.5:g} s, "
        "then everything), `garbage` (48 random bytes before the packet), `truncate` (half the packet, then EOF).",
        "",
        "Checked in every run: **H**angs — tool calls slower than timeoutMs + 1 s; **E**scaped — responses that "
        "are not an envelope, or exceptions out of the client or the server; **U**nnamed — a session that did not "
        "end detached/disconnected/failed with a terminal_reason; **L**eaks — the server's JDWP connection still "
        "open afterwards, or the JVM printing no heartbeats (a thread left suspended).",
        "",
        "| fault | runs | clean | tool calls | hangs | escaped | unnamed | leaks | how sessions ended | slowest call |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for fault in (*FAULTS, "all"):
        subset = [o for o in outcomes if fault == "all" or o.fault == fault]
        s = summarise(subset)
        ends = ", ".join(f"{k} {v}" for k, v in sorted(s["ends"].items()))
        name = f"**{fault}**" if fault == "all" else f"`{fault}`"
        lines.append(f"| {name} | {s['runs']} | {s['clean']} | {s['calls']} | {s['hangs']} | {s['escaped']} | "
                     f"{s['unnamed']} | {s['leaks']} | {ends} | {s['worst_call']} |")
    lines += [
        "",
        f"JVM restarts needed (a run left it suspended): {restarts}.",
        "",
        "Per point: how the session ended (`det` detached, `disc` disconnected, `fail` failed, `no-attach` the "
        "attach failed with an error envelope), and the failed checks in bold.",
        "",
        "| # | packet | " + " | ".join(FAULTS) + " |",
        "|---|---|" + "---|" * len(FAULTS),
    ]
    for point in sorted(by_point):
        row = by_point[point]
        what = next((o.injected for o in row.values() if o.injected and o.injected != "(not reached)"),
                    "(not reached)")
        lines.append(f"| {point} | {what} | " + " | ".join(cell(row[f]) if f in row else "" for f in FAULTS) + " |")
    failing = [o for o in outcomes if not o.clean]
    if failing:
        lines += ["", "Failed checks:", ""]
        lines += [f"- point {o.point} `{o.fault}`: " + "; ".join(o.hangs + o.escaped + o.unnamed + o.leaks)
                  for o in failing]
    return "\n".join(lines) + "\n"


def hostile_containers(classes: Path, write: bool) -> None:
    """The hostile heaps' containers (bench/hostile_containers.py): read-only calls on 1,000,000-entry maps and
    sets and 1,000,000/10,000,000-element arrays; the app and the session must stay alive."""
    rows, health = trio.run(hostile.measure, classes)
    text = (f"## Hostile heaps: containers\n\n`python bench/fault_matrix.py --hostile-containers` on {machine()}. "
            "No command asks for more than 4,096 array elements (HotSpot's agent ends the VM above ~65,536 "
            "references in one `ArrayReference.GetValues`); a deep hash map page walks the chains before it once "
            "per stop, at most 10 s a call (then \"not located yet\", asked again: `calls`).\n\n"
            + hostile.table(rows, health))
    print(text)
    if write:
        print(f"wrote {write_section('hostile_containers', text)}")
    if not (health.process_alive and health.session_alive and not health.hs_err):
        sys.exit(1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sample", type=int, help="this many packet points, spread evenly (default: all)")
    parser.add_argument("--timeout-ms", type=int, default=1000, help="every tool call's timeoutMs (default 1000)")
    parser.add_argument("--no-write", action="store_true", help="print only; leave docs/reliability.md alone")
    parser.add_argument("--journey", choices=JOURNEYS, default="reference", help="which journey (default reference)")
    parser.add_argument("--hostile", choices=("strings",), help="instead, read-only calls on hostile heaps "
                        "(bench/hostile_strings.py: strings, stacks, threads)")
    parser.add_argument("--hostile-containers", action="store_true", help="the hostile heaps' containers instead")
    args = parser.parse_args()
    if not shutil.which("java") or not shutil.which("javac"):
        sys.exit("bench/fault_matrix.py needs java and javac (OpenJDK 17) on PATH")
    if args.hostile == "strings":
        sys.exit(hostile_strings(args.no_write))
    if args.hostile_containers:
        with tempfile.TemporaryDirectory() as tmp:
            hostile_containers(compile_fixtures(Path(tmp), javac=shutil.which("javac") or "javac"), not args.no_write)
        return
    with tempfile.TemporaryDirectory() as tmp:
        classes = compile_fixtures(Path(tmp), javac=shutil.which("javac") or "javac")
        clean, outcomes, restarts, elapsed = trio.run(run, classes, args.sample, args.timeout_ms, args.journey)
    command = "python bench/fault_matrix.py" + (f" --journey {args.journey}" if args.journey != "reference" else "") + (
        f" --sample {args.sample}" if args.sample else "") + (
        f" --timeout-ms {args.timeout_ms}" if args.timeout_ms != 1000 else "")
    text = report(clean, outcomes, restarts, elapsed, args.timeout_ms, command, args.journey)
    total = summarise(outcomes)
    print(f"{total['runs']} runs: {total['clean']} clean; hangs {total['hangs']}, escaped {total['escaped']}, "
          f"unnamed {total['unnamed']}, leaks {total['leaks']}; {elapsed:.0f} s")
    if not args.no_write:
        section = "faults" if args.journey == "reference" else f"faults_{args.journey}"
        print(f"wrote {write_section(section, text)}")
    sys.exit(0 if total["clean"] == total["runs"] else 1)


def hostile_strings(no_write: bool) -> int:
    import hostile_strings as hostile

    with tempfile.TemporaryDirectory() as tmp:
        classes = compile_fixtures(Path(tmp), javac=shutil.which("javac") or "javac")
        text, ok = hostile.measure(classes, shutil.which("java") or "java", machine())
    print(text)
    if not no_write:
        print(f"wrote {write_section('hostile_strings', text)}")
    return 0 if ok else 1


if __name__ == "__main__":
    main()
