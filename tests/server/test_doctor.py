"""``pyjdwp-doctor`` end to end on the adb testbed, and its recording replayed by ``ReplayVm``.

The testbed's app process is a JVM whose main thread loops over a JDK queue
(``LinkedBlockingQueue.poll``), standing for an Android main thread looping in ``MessageQueue.next``:
the doctor finds no ``android.os`` class loaded there and picks the JDK method, as it would pick
``MessageQueue.next`` on a device.
"""

from __future__ import annotations

import argparse
import io
import os
import signal
import sys
from pathlib import Path

import pytest
import trio
import trio.testing

import jdwp
from adb.art_standins import compile_message_loop, install_dumpsys
from adb.testbed import Apps, Testbed
from jdwp.protocol.commands import BY_ID, VirtualMachine
from jdwp.protocol.commands.reftypes import Method, ReferenceType
from jdwp.protocol.commands.threads import StackFrame, ThreadReference
from jdwp.recording import OUT, load
from jdwp.replay import ReplayVm
from pyjdwp_android.transport import open_jdwp_stream
from pyjdwp_server.doctor.cli import run_doctor
from pyjdwp_server.doctor.inspection import FRAMEWORK_METHODS, Check, inspect_framework_stop

pytestmark = pytest.mark.live

APP = "com.example.doctor"


def _args(bed: Testbed, record: Path | None) -> argparse.Namespace:
    return argparse.Namespace(serial=bed.serial, app=APP, pid=None, record=str(record) if record else None,
                              break_at=None, wait_s=20.0, adb_transport="direct")


async def test_doctor_end_to_end_and_its_recording_replays(testbed: Testbed, apps: Apps, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    classes = await trio.to_thread.run_sync(lambda: compile_message_loop(os.environ.get("JAVAC", "javac"),
                                                                         tmp_path))
    install_dumpsys(testbed)
    await apps.start(APP, classpath=str(classes), main_class="MessageLoop")
    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(testbed.server_port))
    recording_path = tmp_path / "session.jsonl"
    out = io.StringIO()
    with trio.fail_after(90):
        passed = await run_doctor(_args(testbed, recording_path), out)
    report = out.getvalue()
    assert passed, report
    for name in ("adb", "device", "process", "debuggable", "slot", "first reply", "vm", "breakpoint", "stop",
                 "stack", "locals", "detach"):
        assert f"  ok    {name}" in report or f"  warn  {name}" in report, (name, report)
    assert "LinkedBlockingQueue.poll" in report and "ro.debuggable=1" in report and "a debuggable build" in report
    assert "recording written to" in report
    print(report)  # what a user sees (pytest -s)

    recording = load(recording_path)
    assert recording.header["source"] == "pyjdwp-doctor" and recording.header["synthetic"] is False
    _assert_no_value_from_app_frames(recording)

    # The same inspection against the recording: the VM's bytes come back, the debugger's must match.
    checks: list[Check] = []
    client_end, vm_end = trio.testing.memory_stream_pair()
    replay = ReplayVm(recording)
    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(replay.serve, vm_end)
            async with jdwp.open_jdwp(client_end) as vm:
                assert await inspect_framework_stop(vm, checks.append, candidates=FRAMEWORK_METHODS, app_id=APP,
                                                    wait_s=20)
    assert replay.result.mismatch is None, replay.result.mismatch
    assert [c.name for c in checks] == ["breakpoint", "stop", "stack", "locals", "detach"]


def _assert_no_value_from_app_frames(recording: object) -> None:
    """Values are read (StackFrame.GetValues/ThisObject) only in frames of JDK classes, never MessageLoop's."""
    from jdwp.recording import Recording
    assert isinstance(recording, Recording)
    sizes = recording.id_sizes()
    assert sizes is not None
    signatures: dict[int, str] = {}
    frame_class: dict[int, int] = {}
    asked: dict[int, object] = {}
    read_frames: list[int] = []
    for line, reply in recording.exchanges():
        packet = line.packet()
        if reply is None:
            if line.dir == OUT:
                command = BY_ID.get(packet.key)  # type: ignore[union-attr]
                out = command.decode_out(packet.body, sizes) if command else None
                asked[packet.id] = out
                if command in (StackFrame.GetValues, StackFrame.ThisObject):
                    read_frames.append(out.frame)  # type: ignore[union-attr]
                if command in (Method.VariableTable, Method.VariableTableWithGeneric):
                    read_frames.append(-out.ref_type)  # type: ignore[union-attr]  # a class, marked negative
            continue
        command, answer = reply
        if answer.error_code or command is None:
            continue
        decoded = command.decode_reply(answer.body, sizes)
        out = asked.get(answer.id)
        if command in (ReferenceType.Signature, ReferenceType.SignatureWithGeneric):
            signatures[out.ref_type] = decoded.signature  # type: ignore[union-attr]
        elif command is VirtualMachine.AllClasses:  # a breakpoint's listing names classes too
            signatures.update((entry.type_id, entry.signature) for entry in decoded.classes)
        elif command is ThreadReference.Frames:
            for frame in decoded.frames:
                frame_class[frame.frame_id] = frame.location.class_id
    assert read_frames, "the doctor read no framework locals"
    for item in read_frames:
        class_id = -item if item < 0 else frame_class[item]
        signature = signatures.get(class_id, "?")
        assert signature.startswith("Ljava/"), f"values read in {signature}"


async def test_doctor_command_line(testbed: Testbed, apps: Apps, tmp_path: Path) -> None:
    """The console script's exit status and summary; an app that is not running fails the process check."""
    classes = await trio.to_thread.run_sync(lambda: compile_message_loop(os.environ.get("JAVAC", "javac"),
                                                                         tmp_path))
    await apps.start(APP, classpath=str(classes), main_class="MessageLoop")
    env = dict(os.environ, ANDROID_ADB_SERVER_PORT=str(testbed.server_port),
               PYTHONPATH=os.pathsep.join([str(Path(jdwp.__file__).parents[1]), os.environ.get("PYTHONPATH", "")]))
    argv = [sys.executable, "-m", "pyjdwp_server.doctor.cli", "--serial", testbed.serial, "--app"]
    with trio.fail_after(90):
        done = await trio.run_process([*argv, APP], env=env, capture_stdout=True, check=False)
        assert done.returncode == 0, done.stdout.decode()
        assert b"all checks passed" in done.stdout
        absent = await trio.run_process([*argv, "com.example.absent"], env=env, capture_stdout=True, check=False)
        assert absent.returncode == 1 and b"PROCESS_NOT_FOUND" in absent.stdout, absent.stdout.decode()


async def test_doctor_reports_a_busy_and_a_frozen_app(testbed: Testbed, apps: Apps, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Another debugger holding the app (a JDWP stream we keep open), then a frozen app (the app and its
    registrar stopped, as in test_server_art): the slot check fails and says which."""
    app = await apps.start(APP)
    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(testbed.server_port))
    with trio.fail_after(90):
        holder = await open_jdwp_stream(testbed.client(), testbed.serial, app.pid)
        async with holder:
            out = io.StringIO()
            assert not await run_doctor(_args(testbed, tmp_path / "busy.jsonl"), out)
            assert "FAIL  slot" in out.getvalue() and "another debugger" in out.getvalue(), out.getvalue()
        await apps.wait_visible(app.pid, True)
        stopped = app.procs[:2]  # the app and its registrar, as in test_server_art
        for proc in stopped:
            proc.send_signal(signal.SIGSTOP)
        try:
            out = io.StringIO()
            assert not await run_doctor(_args(testbed, None), out)
            assert "FAIL  slot" in out.getvalue() and "cached or frozen" in out.getvalue(), out.getvalue()
        finally:
            for proc in stopped:
                proc.send_signal(signal.SIGCONT)
