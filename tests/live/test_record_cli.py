"""``pyjdwp-record`` from the command line: a real session through it is written as a replayable recording."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import trio

import jdwp
from jdwp import recording
from jdwp.protocol.commands import BY_ID
from support.jvm import Debuggee


def recorder_command() -> list[str]:
    beside = Path(sys.executable).with_name("pyjdwp-record")
    return [str(beside)] if beside.exists() else [sys.executable, "-m", "jdwp.recording_proxy"]


async def test_recording_a_session_from_the_command_line(debuggee: Debuggee, tmp_path: Path) -> None:
    out = tmp_path / "session.jsonl"
    process = subprocess.Popen([*recorder_command(), "--target", f"127.0.0.1:{debuggee.port}", "--out", str(out),
                                "--vm", "OpenJDK 17", "--note", "version and threads"],
                               stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        line = await trio.to_thread.run_sync(process.stdout.readline)  # the port is on stdout
        match = re.search(r"connect the debugger to 127\.0\.0\.1:(\d+)", line)
        assert match, line
        with trio.fail_after(30):
            async with jdwp.open_jdwp_tcp("127.0.0.1", int(match.group(1))) as vm:
                version = vm.version_info  # read with the ID sizes
                threads = await vm.all_threads()
                await vm.dispose()
        assert process.wait(timeout=30) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    rec = recording.load(out)
    assert rec.header["vm"] == "OpenJDK 17" and rec.header["synthetic"] is False
    assert [line.kind for line in rec.lines[:2]] == ["handshake", "handshake"]
    notes = [line.note for line in rec.lines if line.dir == recording.OUT and line.kind == "command"]
    assert notes == ["VirtualMachine.IDSizes", "VirtualMachine.Version", "VirtualMachine.AllThreads",
                     "VirtualMachine.Dispose"]
    sizes = rec.id_sizes()
    assert all(line.t is None for line in rec.lines) and rec.header["ids"]  # tidied: no times, IDs renumbered
    for line, reply in rec.exchanges():
        if reply is not None and reply[0] is BY_ID[(1, 1)]:
            assert reply[0].decode_reply(reply[1].body, sizes) == version
        if reply is not None and reply[0] is BY_ID[(1, 4)]:
            renumbered = reply[0].decode_reply(reply[1].body, sizes).threads
            assert sorted(renumbered) == list(range(1, len(threads) + 1))  # in order of first appearance
            assert line.decoded == f"ThreadsReply(threads={renumbered})"
    with trio.fail_after(10):
        async with jdwp.open_replay(out) as replayed:  # the tidied file still replays
            assert len(await replayed.all_threads()) == len(threads)
            await replayed.dispose()
    debuggee.wait_for_more_heartbeats()


def test_ports_on_the_command_line_are_ascii_digits() -> None:
    # "１２３" once listened on port 123 and waited for a debugger; the timeout catches that old hang.
    for bad in ("127.0.0.1:１２３", "127.0.0.1:٥٠٠٥", "127.0.0.1:²"):
        refused = subprocess.run([*recorder_command(), "--target", bad, "--out", "/dev/null"],
                                 capture_output=True, text=True, timeout=30)
        assert refused.returncode == 2 and "expected host:port" in refused.stderr, (bad, refused.stderr)
