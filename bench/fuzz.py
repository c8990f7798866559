"""Fuzz the decoders with ≥ 1,000,000 inputs; count exceptions by type and the peak allocation.

    python bench/fuzz.py                          # 1,000,000 decoder inputs + 100,000 tool inputs + atheris
    python bench/fuzz.py --inputs 50000 --atheris-runs 0 --vm-text 100 --no-write

Targets (tests/faults/fuzz_targets.py): every JDWP command's ``decode_reply`` and ``decode_out`` at four ID
widths, JDWP stream framing, the ADB framing and reply parsers (with DDM and track-app), every MCP tool's
input model, and the expression parser (as many texts as tool inputs). Inputs are seeded random data shaped
like the protocols (forged counts and lengths, tags, IDs, strings, cut streams), then — if atheris is
installed — a coverage-guided atheris run over the same decoder targets in a child process. Then VM text
through the whole server: scripted VMs whose thread, class, method, source, variable and VM names and string
and char values are random Java text (lone surrogates, pairs, NUL, names up to ~1,000,000 UTF-16 units), each
attached by the real server under the SDK's in-memory client for a whole journey; every answer must be an
envelope with bounded, JSON-safe text, and the server must keep answering. The only errors allowed are the
typed ones (``JdwpError`` and its ``ProtocolError``/``UsageError``, ``AdbError``, pydantic's
``ValidationError``); anything else is listed with its input. Peak allocation is measured with tracemalloc per
batch of inputs and must stay below the packet cap. Writes its numbers to docs/reliability.md (section
"fuzz"); exits 1 on any untyped error or an allocation over the cap.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import random
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

BATCH = 10_000


def _targets() -> Any:
    from faults import fuzz_targets

    return fuzz_targets


def run_random(inputs: int, model_inputs: int, seed: int) -> dict[str, Any]:
    t = _targets()
    from jdwp.protocol.wire import DEFAULT_MAX_PACKET

    rng = random.Random(seed)
    counts: collections.Counter[str] = collections.Counter()
    errors: collections.Counter[str] = collections.Counter()
    untyped: list[str] = []
    decoders = [(cmd, which, sizes) for cmd, which in t.DECODERS for sizes in t.SIZES]
    tracemalloc.start()
    peak = 0
    started = time.perf_counter()

    def attempt(target: str, allowed: tuple[type[BaseException], ...], fn: Any, *args: Any) -> None:
        counts[target] += 1
        try:
            fn(*args)
        except allowed as exc:
            errors[f"{target}: {type(exc).__name__}"] += 1
        except Exception as exc:  # a finding: record it with its input
            errors[f"{target}: {type(exc).__name__} (UNTYPED)"] += 1
            if len(untyped) < 20:
                untyped.append(f"{target} {type(exc).__name__}: {exc} <- {args[-1]!r:.200}")

    done = 0
    while done < inputs:
        base = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        for _ in range(min(BATCH, inputs - done)):
            r = rng.random()
            if r < 0.8:
                cmd, which, sizes = decoders[done % len(decoders)]
                attempt("jdwp decoders", t.JDWP_ALLOWED, t.decode_body, cmd, which, sizes, t.random_body(rng))
            elif r < 0.9:
                attempt("jdwp framing", t.JDWP_ALLOWED, t.frame_stream, t.random_stream(rng))
            else:
                _, parse = t.ADB_PARSERS[done % len(t.ADB_PARSERS)]
                attempt("adb framing", t.ADB_ALLOWED, parse, t.random_adb(rng))
            done += 1
        peak = max(peak, tracemalloc.get_traced_memory()[1] - base)
    decoder_seconds = time.perf_counter() - started
    for i in range(model_inputs):
        _, model = t.MODELS[i % len(t.MODELS)]
        value = t.random_tool_input(rng, model) if i % 2 else t.random_json(rng)
        attempt("tool inputs", t.MODEL_ALLOWED, t.validate_input, model, value)
        attempt("expressions", t.EXPRESSION_ALLOWED, t.parse_text, t.random_expression(rng))
    tracemalloc.stop()
    return {"counts": dict(counts), "errors": dict(errors), "untyped": untyped, "peak_bytes": peak,
            "cap_bytes": DEFAULT_MAX_PACKET, "decoder_seconds": decoder_seconds, "seed": seed}


def run_vm_text(journeys: int, seed: int) -> dict[str, Any]:
    """``journeys`` scripted VMs speaking random Java text (5% of the strings huge) through one server."""
    import trio

    t = _targets()
    rng = random.Random(seed)
    findings: list[str] = []
    failed: collections.Counter[str] = collections.Counter()
    stats: dict[str, Any] = {}

    async def main() -> None:
        async with t.vm_text_server() as vm_server:
            for _ in range(journeys):
                text = t.VmText.random(rng)
                try:
                    with trio.fail_after(60):
                        await vm_server.journey(text)
                except Exception as exc:  # a finding: record it with a glimpse of its input
                    failed[type(exc).__name__] += 1
                    if len(findings) < 20:
                        findings.append(f"{type(exc).__name__}: {str(exc)[:300]} <- {repr(text)[:200]}")
            alive = await vm_server.call("get_debugger_state", debugSessionId="dbg-000000000000")
            stats.update(answers=vm_server.answers, largest=vm_server.largest,
                         alive=alive["error"]["code"] == "DEBUGGER_NOT_FOUND")

    started = time.perf_counter()
    trio.run(main)
    return {"journeys": journeys, "failed": dict(failed), "findings": findings,
            "seconds": time.perf_counter() - started, "seed": seed, **stats}


# --- atheris: a child process, since atheris.Fuzz() owns the process until it exits ----------------

def atheris_child(runs: int) -> None:
    import atheris

    with atheris.instrument_imports():
        import jdwp  # noqa: F401
        import pyjdwp_android  # noqa: F401
        t = _targets()
    counts: collections.Counter[str] = collections.Counter()
    decoders = [(cmd, which, sizes) for cmd, which in t.DECODERS for sizes in t.SIZES]

    def one(data: bytes) -> None:
        fdp = atheris.FuzzedDataProvider(data)
        choice = fdp.ConsumeIntInRange(0, 9)
        rest = fdp.ConsumeBytes(fdp.remaining_bytes())
        if choice < 8:
            cmd, which, sizes = decoders[int.from_bytes(rest[:2] or b"\0", "big") % len(decoders)]
            target, allowed, call = "jdwp decoders", t.JDWP_ALLOWED, lambda: t.decode_body(cmd, which, sizes,
                                                                                            rest[2:])
        elif choice == 8:
            target, allowed, call = "jdwp framing", t.JDWP_ALLOWED, lambda: t.frame_stream([rest[:len(rest) // 2],
                                                                                          rest[len(rest) // 2:]])
        else:
            _, parse = t.ADB_PARSERS[int.from_bytes(rest[:1] or b"\0", "big") % len(t.ADB_PARSERS)]
            target, allowed, call = "adb framing", t.ADB_ALLOWED, lambda: parse(rest[1:])
        counts[target] += 1
        try:
            call()
        except allowed as exc:
            counts[f"{target}: {type(exc).__name__}"] += 1
        if sum(counts.values()) % 1000 == 0:  # libFuzzer ends the process without Python's atexit
            Path(os.environ["PYJDWP_ATHERIS_COUNTS"]).write_text(json.dumps(dict(counts)))
    atheris.Setup([sys.argv[0], f"-runs={runs}", "-max_len=256", "-seed=1"], one)
    atheris.Fuzz()


def run_atheris(runs: int) -> dict[str, Any]:
    try:
        import atheris  # noqa: F401
    except ImportError as exc:
        return {"status": f"not run: atheris is not importable ({exc}); `pip install atheris` to add it"}
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        counts_file = Path(tmp) / "counts.json"
        proc = subprocess.run([sys.executable, __file__, "--atheris-child", str(runs)], capture_output=True,
                              text=True, timeout=3600,
                              env=dict(os.environ, PYTHONHASHSEED="0", PYJDWP_ATHERIS_COUNTS=str(counts_file)))
        counts: dict[str, int] = json.loads(counts_file.read_text()) if counts_file.exists() else {}
    crashed = proc.returncode != 0
    tail = [line for line in proc.stderr.splitlines() if "Traceback" in line or "Error" in line][-5:]
    cov = [line for line in proc.stderr.splitlines() if line.startswith("#") and "cov:" in line][-1:]
    return {"status": "crashed" if crashed else "ok", "returncode": proc.returncode, "counts": counts,
            "seconds": time.perf_counter() - started, "errors_tail": tail, "last_status": cov[0] if cov else ""}


def report(result: dict[str, Any], ath: dict[str, Any], vm_text: dict[str, Any], command: str) -> str:
    from reliability_doc import machine

    counts, errors = result["counts"], result["errors"]
    decoder_inputs = sum(v for k, v in counts.items() if k not in ("tool inputs", "expressions"))
    lines = [
        "## Fuzzing: decoders, framing and tool inputs",
        "",
        f"Regenerate: `{command}`. Machine: {machine()}.",
        "",
        f"**{decoder_inputs:,} decoder inputs** (seed {result['seed']}, {result['decoder_seconds']:.0f} s under "
        f"tracemalloc), {counts.get('tool inputs', 0):,} tool inputs and {counts.get('expressions', 0):,} "
        "expressions: every JDWP command's `decode_reply` and "
        "`decode_out` at four ID widths (HotSpot 8/8/8/8/8, ART32 4/4/8/8/8, 2/2/4/4/4, odd 3/5/7/6/1) over bodies "
        "shaped like JDWP data (forged counts and lengths, tags, IDs, strings) or plain random bytes; JDWP stream "
        "framing with plausible and forged headers cut at random points; the ADB status/hex-block/shell-v2 "
        "framing, host-service text parsers, DDM chunks and track-app protobuf; random JSON into every tool's "
        "pydantic model; the expression parser over grammar pieces and random code points.",
        "",
        "| target | inputs | outcome | count |",
        "|---|---|---|---|",
    ]
    for target in sorted(counts):
        outcomes = sorted((k.split(": ", 1)[1], v) for k, v in errors.items() if k.startswith(target + ": "))
        failed = sum(v for _, v in outcomes)
        rows = [("decoded / accepted", counts[target] - failed), *outcomes]
        for i, (what, n) in enumerate(rows):
            lines.append(f"| {target if i == 0 else ''} | {counts[target] if i == 0 else ''} | {what} | {n:,} |")
    peak, cap = result["peak_bytes"], result["cap_bytes"]
    lines += [
        "",
        f"Untyped exceptions: **{len([k for k in errors if 'UNTYPED' in k])} kinds**"
        + ("" if not result["untyped"] else " — " + "; ".join(f"`{u}`" for u in result["untyped"][:5])) + ".",
        "",
        f"Peak allocation within a batch of {BATCH:,} decoder inputs (tracemalloc, above the batch's start): "
        f"**{peak / 1024:.0f} KiB**, against the packet cap of {cap // (1 << 20)} MiB "
        f"({'below' if peak < cap else 'OVER'} the cap; forged counts up to 2^32 never allocate their count).",
        "",
    ]
    if ath.get("status") in ("ok", "crashed"):
        acounts = ath["counts"]
        runs = ath["last_status"].split()[0].lstrip("#") if ath["last_status"] else "?"
        typed = ", ".join(f"{k} {v:,}" for k, v in sorted(acounts.items()) if ": " in k)
        lines.append(f"atheris (coverage-guided, libFuzzer; {runs} inputs over the same decoder targets, "
                     f"{ath['seconds']:.0f} s): **{ath['status']}** (exit {ath['returncode']}); typed errors "
                     "(counted up to the last multiple of 1,000 inputs): "
                     f"{typed or 'none'}. {ath['last_status']}")
        if ath["status"] == "crashed":
            lines.append("Crash: " + " / ".join(ath["errors_tail"]))
    else:
        lines.append(f"atheris: {ath.get('status')}.")
    if vm_text.get("journeys"):
        failures = sum(vm_text["failed"].values())
        lines += [
            "",
            f"VM text through the whole server: **{vm_text['journeys']:,} journeys** (seed {vm_text['seed']}, "
            f"{vm_text['seconds']:.0f} s), {vm_text['answers']:,} answers: scripted VMs naming their thread, class, "
            "method, source file, a local and themselves, and holding a string and a char, with random Java text "
            "(lone surrogates, pairs, NUL; 5% of the strings 1,025 to ~1,000,000 UTF-16 units; 30% sent as "
            "modified UTF-8), attached by the real server through the SDK's in-memory client: attach, breakpoint, "
            "poll, state, stack, locals, resume, detach. Journeys with an answer that was not a correct envelope "
            f"(bounded, escaped text as sent): **{failures}**"
            + (" — " + "; ".join(f"`{f}`" for f in vm_text["findings"][:5]) if failures else "")
            + f". Largest answer: {vm_text['largest']:,} characters of JSON. Server still answering at the end: "
            f"**{'yes' if vm_text['alive'] else 'NO'}**.",
        ]
    return "\n".join(lines) + "\n"


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--atheris-child":
        atheris_child(int(sys.argv[2]))
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--inputs", type=int, default=1_000_000, help="decoder inputs (default 1,000,000)")
    parser.add_argument("--model-inputs", type=int, default=100_000, help="tool inputs (default 100,000)")
    parser.add_argument("--atheris-runs", type=int, default=200_000, help="atheris inputs (0: skip)")
    parser.add_argument("--vm-text", type=int, default=1000, help="VM-text journeys through the server (0: skip)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-write", action="store_true", help="print only; leave docs/reliability.md alone")
    args = parser.parse_args()
    result = run_random(args.inputs, args.model_inputs, args.seed)
    ath = run_atheris(args.atheris_runs) if args.atheris_runs else {"status": "not run (--atheris-runs 0)"}
    vm_text = run_vm_text(args.vm_text, args.seed) if args.vm_text else {}
    command = "python bench/fuzz.py" + "".join(
        f" --{name.replace('_', '-')} {getattr(args, name)}" for name, default in
        (("inputs", 1_000_000), ("model_inputs", 100_000), ("atheris_runs", 200_000), ("vm_text", 1000), ("seed", 1))
        if getattr(args, name) != default)
    text = report(result, ath, vm_text, command)
    print(text)
    if not args.no_write:
        from reliability_doc import write_section

        print(f"wrote {write_section('fuzz', text)}")
    bad = (result["untyped"] or result["peak_bytes"] >= result["cap_bytes"] or ath.get("status") == "crashed"
           or vm_text.get("failed") or vm_text.get("alive") is False)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
