"""``pyjdwp-doctor``: check that a device and an app can be debugged, and bring back a real ART recording.

Layer: ``server`` (a console script beside ``pyjdwp-mcp``; uses ``android``, ``jdwp`` and
:mod:`.doctor_inspect`). Issue 14 §4.

    pyjdwp-doctor --serial emulator-5554 --app com.example.app [--record session.jsonl]

Checks, each timed: the adb server, the device (Android version, ``ro.debuggable``), the app's process,
its own debuggable flag, the debugger slot (busy, frozen), the JDWP handshake and the first reply (on
ART: the debugger agent loading), then a breakpoint in a framework method every app runs (the main
thread's message loop), one stop, its stack, the locals of framework frames only, and the detach. Prints
a report; exit status 0 when every check passed, 1 otherwise, 2 for bad arguments.

``--record`` writes the JDWP conversation (``pyjdwp-recording/1``, as ``pyjdwp-record`` does) with no
value from the app's frames: values are read from framework frames only, and the app's frames travel as
locations. Replay it with ``jdwp.replay.ReplayVm``.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import TextIO

import trio

import jdwp
from pyjdwp_android import AdbClient, AdbError, DebuggerBusy, ServerAddress, resolve_target
from pyjdwp_android.debuggability import read_app_debuggability
from pyjdwp_android.frozen import ProcessFrozen, open_app_jdwp_stream, still_registered, why_silent

from ..session.targets import FIRST_REPLY_LIMIT_S
from .inspection import FRAMEWORK_METHODS, Check, FrameworkMethod, inspect_framework_stop

__all__ = ["main", "run_doctor"]

HANDSHAKE_S = 5.0


class Doctor:
    """Runs the checks in order and prints each as it completes."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.checks: list[Check] = []

    def report(self, check: Check) -> None:
        self.checks.append(check)
        mark = "ok  " if check.ok and not check.warning else "warn" if check.ok else "FAIL"
        took = f" ({check.ms} ms)" if check.ms is not None else ""
        print(f"  {mark}  {check.name:<11} {check.detail}{took}", file=self.out, flush=True)

    @property
    def passed(self) -> bool:
        return all(c.ok for c in self.checks)


def _ms(since: float) -> int:
    return round((time.monotonic() - since) * 1000)


async def run_doctor(args: argparse.Namespace, out: TextIO) -> bool:
    """Every check, reported on ``out``; True when all passed."""
    doc = Doctor(out)
    print(f"pyjdwp-doctor: {args.app} on {args.serial}", file=out, flush=True)
    adb = AdbClient(ServerAddress.from_env())
    started = time.monotonic()
    try:
        version = await adb.version()
        doc.report(Check("adb", True, f"server {adb.address.host}:{adb.address.port}, protocol {version}",
                         _ms(started)))
        started = time.monotonic()
        await adb.require_device(args.serial)
        props = (await adb.shell(args.serial, "getprop ro.build.version.release; getprop ro.build.version.sdk; "
                                 "getprop ro.debuggable")).stdout.decode("utf-8", "replace").split("\n")
        release, sdk, debuggable = ([*props, "", "", ""])[:3]
        device = f"Android {release.strip() or '?'} (API {sdk.strip() or '?'})"
        doc.report(Check("device", True, f"{args.serial}: {device}, ro.debuggable={debuggable.strip() or '?'}",
                         _ms(started)))
        started = time.monotonic()
        target = await resolve_target(adb, args.serial, args.app, args.pid)
        doc.report(Check("process", True, f"pid {target.pid} ({target.facts.name}), uid {target.facts.uid}",
                         _ms(started)))
        started = time.monotonic()
        facts = await read_app_debuggability(adb, args.serial, args.app)
        warning = facts.warning(args.app)
        detail = warning or ("a debuggable build" if facts.app_debuggable else "the device did not say")
        doc.report(Check("debuggable", True, detail, _ms(started), warning=warning is not None))
    except AdbError as exc:
        doc.report(Check("adb", False, f"{exc.code}: {exc}", _ms(started)))
        return False
    header = {"vm": f"{device}, {args.app}", "synthetic": False, "source": "pyjdwp-doctor",
              "note": "a pyjdwp-doctor session: values read from framework frames only, none from the app's"}
    try:
        await _attach_and_inspect(doc, adb, args, target.pid, header)
    except AdbError as exc:
        doc.report(Check("attach", False, f"{exc.code}: {exc}"))
    return doc.passed


async def _attach_and_inspect(doc: Doctor, adb: AdbClient, args: argparse.Namespace, pid: int,
                              header: dict[str, object]) -> None:
    started = time.monotonic()
    try:
        stream = await open_app_jdwp_stream(adb, args.serial, pid, transport=args.adb_transport, handshake=False)
    except ProcessFrozen as exc:
        doc.report(Check("slot", False, str(exc), _ms(started)))
        return
    if args.record is None:
        await _inspect(doc, adb, args, pid, stream, started)
        return
    with open(args.record, "w", encoding="utf-8") as recording:
        ours, theirs = trio.socket.socketpair()
        async with trio.open_nursery() as nursery:
            nursery.start_soon(jdwp.record_session, trio.SocketStream(theirs), stream, recording, header)
            await _inspect(doc, adb, args, pid, trio.SocketStream(ours), started)
    print(f"  recording written to {args.record}: it holds no value from the app's frames; attach it to a "
          "pyjdwp issue to share what this device's ART sends", file=doc.out, flush=True)


async def _inspect(doc: Doctor, adb: AdbClient, args: argparse.Namespace, pid: int, stream: trio.abc.Stream,
                   started: float) -> None:
    try:
        async with jdwp.open_jdwp(stream, handshake_timeout=HANDSHAKE_S,
                                  first_reply_timeout=FIRST_REPLY_LIMIT_S) as vm:
            first = vm.first_reply_s or 0.0
            handshake_ms = max(0, _ms(started) - round(first * 1000))
            doc.report(Check("slot", True, "free: the JDWP handshake was answered", handshake_ms))
            slow = first >= 2.0
            doc.report(Check("first reply", True, f"loading the debugger agent took {first:.1f} s" if slow
                             else "answered at once: the debugger agent was loaded already, or loads fast",
                             round(first * 1000), warning=slow))
            info, sizes = vm.version_info, vm.id_sizes
            doc.report(Check("vm", True, f"{info.vm_name} {info.vm_version}, JDWP {info.jdwp_major}."
                             f"{info.jdwp_minor}, ID sizes object {sizes.object_id_size} method "
                             f"{sizes.method_id_size} field {sizes.field_id_size}"))
            candidates = (args.break_at,) if args.break_at else FRAMEWORK_METHODS
            await inspect_framework_stop(vm, doc.report, candidates=candidates, app_id=args.app, wait_s=args.wait_s)
    except jdwp.ConnectionClosed as exc:
        busy = await still_registered(adb, args.serial, pid)
        doc.report(Check("slot", False, str(DebuggerBusy(pid)) if busy else f"the process went away: {exc}",
                         _ms(started)))
    except jdwp.CommandTimeout as exc:
        silent = "handshake" in str(exc).split(",")[0] and await still_registered(adb, args.serial, pid)
        doc.report(Check("slot", False, str(await why_silent(adb, args.serial, pid, HANDSHAKE_S)) if silent
                         else str(exc), _ms(started)))


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="pyjdwp-doctor", description=__doc__.split("\n\n")[0])
    parser.add_argument("--serial", required=True, help="the device, as `adb devices` lists it")
    parser.add_argument("--app", required=True, help="the app's package name (appId), e.g. com.example.app")
    parser.add_argument("--pid", type=int, default=None, help="the process, when the app runs several")
    parser.add_argument("--record", default=None, help="write the JDWP session to this file (JSON lines)")
    parser.add_argument("--break", dest="break_at", type=FrameworkMethod.parse, default=None,
                        help="the framework method to stop in (pkg.Class.method[(JNI args)]); default: the "
                             "first loaded of " + ", ".join(map(str, FRAMEWORK_METHODS)))
    parser.add_argument("--wait-s", type=float, default=30.0, help="how long to wait for the stop (default 30)")
    parser.add_argument("--adb-transport", choices=("direct", "forward"), default="direct")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    started = time.monotonic()
    passed = trio.run(run_doctor, args, sys.stdout)
    print(f"{'all checks passed' if passed else 'some checks failed'} in {time.monotonic() - started:.1f} s",
          flush=True)
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
