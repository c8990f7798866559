"""Soak: 10,000 stop/resume cycles through pyjdwp's MCP server on a hot-loop breakpoint.

    python bench/soak.py                       # 10,000 cycles, writes docs/reliability.md (section "soak")
    python bench/soak.py --cycles 2000 --no-write

The server runs in this process behind the MCP SDK's in-memory client, attached to a real JVM
(``com.example.debuggee.Main``) with a breakpoint on ``Worker.step``'s marked line, which the main loop
reaches every few milliseconds: each cycle waits for the stop (``wait_for_debugger_event``) and resumes it
(``resume_debugger``). Every 1,000 cycles it samples this process's RSS (VmRSS), open file descriptors,
living trio tasks and the session's event ring. Prints the figures; asserts nothing about memory (exits
1 only if the ring passed 256 or descriptors or tasks grew after warm-up).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

import trio

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from reliability_doc import machine, write_section

from faults.soakrun import Sample, soak
from support.jvm import Debuggee, compile_fixtures


def show(sample: Sample) -> None:
    print(f"  cycle {sample.cycle:>6}  {sample.seconds:7.1f} s  RSS {sample.rss_kib / 1024:7.1f} MiB  "
          f"fds {sample.fds:>3}  tasks {sample.tasks:>3}  ring {sample.ring:>3} (newest {sample.newest})", flush=True)


def report(samples: list[Sample], cycles: int, command: str) -> tuple[str, bool]:
    first, warm, last = samples[0], samples[1], samples[-1]
    ok = (max(s.ring for s in samples) <= 256 and all(s.fds <= warm.fds and s.tasks <= warm.tasks
                                                      for s in samples[1:]))
    rate = cycles / last.seconds
    lines = [
        "## Soak: stop/resume cycles through the MCP server",
        "",
        f"Regenerate: `{command}`. Machine: {machine()}.",
        "",
        f"**{cycles:,} cycles** (wait_for_debugger_event → stopped, resume_debugger) on a breakpoint the JVM's "
        f"main loop hits every few milliseconds, in {last.seconds:.0f} s ({rate:.0f} cycles/s, "
        f"{1000 / rate:.1f} ms per cycle including the loop's 5 ms sleep). The server runs in-process behind the "
        "SDK's in-memory client; samples are taken between cycles.",
        "",
        f"- RSS: {first.rss_kib / 1024:.1f} MiB at the start, {warm.rss_kib / 1024:.1f} MiB after "
        f"{warm.cycle:,} cycles, {last.rss_kib / 1024:.1f} MiB at the end: **{(last.rss_kib - warm.rss_kib):+,} KiB "
        f"after warm-up** ({(last.rss_kib - warm.rss_kib) * 1024 / max(1, last.cycle - warm.cycle):.0f} bytes per "
        "cycle; this includes the test harness and the in-memory MCP transport in the same process).",
        f"- Event ring: at most **{max(s.ring for s in samples)}** events buffered (capacity 256), "
        f"newest sequence {last.newest:,}.",
        f"- Open file descriptors: {warm.fds} after warm-up, {last.fds} at the end (max "
        f"{max(s.fds for s in samples[1:])}).",
        f"- Living trio tasks: {warm.tasks} after warm-up, {last.tasks} at the end (max "
        f"{max(s.tasks for s in samples[1:])}).",
        "",
        "| cycle | seconds | RSS (MiB) | fds | trio tasks | ring |",
        "|---|---|---|---|---|---|",
        *(f"| {s.cycle:,} | {s.seconds:.1f} | {s.rss_kib / 1024:.1f} | {s.fds} | {s.tasks} | {s.ring} |"
          for s in samples),
    ]
    return "\n".join(lines) + "\n", ok


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cycles", type=int, default=10_000)
    parser.add_argument("--every", type=int, default=1_000, help="sample every N cycles (default 1,000)")
    parser.add_argument("--no-write", action="store_true", help="print only; leave docs/reliability.md alone")
    args = parser.parse_args()
    if not shutil.which("java") or not shutil.which("javac"):
        sys.exit("bench/soak.py needs java and javac (OpenJDK 17) on PATH")
    with tempfile.TemporaryDirectory() as tmp:
        classes = compile_fixtures(Path(tmp), javac=shutil.which("javac") or "javac")
        jvm = Debuggee(classes, "com.example.debuggee.Main", java=shutil.which("java") or "java")
        try:
            jvm.wait_for_line("^ready$", timeout=30)
            samples = trio.run(lambda: soak(jvm.port, args.cycles, every=args.every, on_sample=show))
            jvm.wait_for_more_heartbeats(3, timeout=10)  # detached: the JVM runs on
        finally:
            jvm.stop()
    command = "python bench/soak.py" + (f" --cycles {args.cycles}" if args.cycles != 10_000 else "") + (
        f" --every {args.every}" if args.every != 1_000 else "")
    text, ok = report(samples, args.cycles, command)
    print(text)
    if not args.no_write:
        print(f"wrote {write_section('soak', text)}")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
