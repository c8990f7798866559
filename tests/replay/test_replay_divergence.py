"""Replay where the code under test and the recording part ways: the code sees a ``ReplayMismatch`` that
says what differs, within a second, never a hang or a closed connection; and bad recording files."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
import trio
from debugger_scenarios import DEBUGGER_SCENARIOS

import jdwp
from jdwp import recording
from jdwp.debugger import FIRST_REQUESTS
from jdwp.protocol.commands import ThreadReference, VirtualMachine
from jdwp.protocol.commands.threads import FramesOut

RECORDINGS = Path(__file__).resolve().parents[2] / "fixtures" / "recordings"
BASICS = RECORDINGS / "openjdk-17" / "basics.jsonl"
WORKER = "Lcom/example/debuggee/Worker;"


async def basics_until(vm: jdwp.JdwpClient, *, skip_names: bool = False) -> None:
    """The recorded ``basics`` session (see scenarios.py), optionally leaving out the thread names."""
    threads = await vm.all_threads()
    if not skip_names:
        for thread in threads:
            await vm.thread_reference.name(thread)
    await vm.capabilities_new()
    await vm.classes_by_signature(WORKER)
    await vm.dispose()


async def test_the_recorded_session_replays_through_open_replay() -> None:
    with trio.fail_after(10):
        async with jdwp.open_replay(BASICS) as vm:
            await basics_until(vm)


async def test_an_unrecorded_command_fails_at_once_naming_both_commands() -> None:
    with trio.fail_after(1), pytest.raises(jdwp.ReplayMismatch):  # the block raises it again at its end
        async with jdwp.open_replay(BASICS) as vm:
            threads = await vm.all_threads()
            with pytest.raises(jdwp.ReplayMismatch) as caught:
                await vm.thread_reference.frames(threads[0], 0, -1)
    mismatch = caught.value
    assert mismatch.sent is not None and mismatch.sent.startswith("ThreadReference.Frames(")
    assert mismatch.expected is not None and mismatch.expected.startswith("ThreadReference.Name(")
    assert "ThreadReference.Frames(thread=" in str(mismatch) and "expects ThreadReference.Name(" in str(mismatch)
    assert mismatch.line is not None and mismatch.line > 2
    assert "with body" not in str(mismatch)  # decoded, not hex


async def test_changed_arguments_are_a_field_by_field_diff() -> None:
    with trio.fail_after(1), pytest.raises(jdwp.ReplayMismatch) as caught:
        async with jdwp.open_replay(BASICS) as vm:
            await vm.all_threads()
            await vm.classes_by_signature("Lcom/example/debuggee/Other;")
    assert caught.value.differences == (
        'signature: recorded "Lcom/example/debuggee/Worker;", sent "Lcom/example/debuggee/Other;"',)
    assert "nearest recorded VirtualMachine.ClassesBySignature" in str(caught.value)


async def test_a_swallowed_mismatch_still_fails_the_block() -> None:
    with trio.fail_after(2), pytest.raises(jdwp.ReplayMismatch, match=r"VirtualMachine\.AllClasses"):
        async with jdwp.open_replay(BASICS) as vm:
            try:
                await vm.request(VirtualMachine.AllClasses)
            except jdwp.JdwpError:
                pass  # code that handles errors of its own must not hide the divergence


async def test_a_recorded_command_never_sent_is_reported_within_a_second() -> None:
    with trio.fail_after(1), pytest.raises(jdwp.ReplayMismatch) as caught:
        async with jdwp.open_replay(BASICS) as vm:
            await basics_until(vm, skip_names=True)  # waits on CapabilitiesNew, recorded after the names
    text = str(caught.value)
    assert "expects ThreadReference.Name(thread=" in text and "never sent" in text
    assert "its last command: VirtualMachine.CapabilitiesNew()" in text


async def test_ending_early_lists_the_commands_never_sent() -> None:
    with trio.fail_after(2), pytest.raises(jdwp.ReplayMismatch, match=r"without sending \d+ recorded command"):
        async with jdwp.open_replay(BASICS) as vm:
            await vm.all_threads()
            # the block ends here: the names, capabilities, class and Dispose were never asked


async def test_a_command_after_the_end_of_the_recording_is_a_mismatch() -> None:
    # Dispose ended the recorded session; a client that goes on is told why, not "connection closed"
    with trio.fail_after(2), pytest.raises(jdwp.ReplayMismatch, match="after the end of the recording"):
        async with jdwp.open_replay(BASICS) as vm:
            for thread in await vm.all_threads():
                await vm.thread_reference.name(thread)
            await vm.capabilities_new()
            await vm.classes_by_signature(WORKER)
            await vm.request(VirtualMachine.Dispose)  # not vm.dispose(), which closes the client too
            await vm.all_threads()


def opened_with_first_requests() -> recording.Recording:
    """engine_journey as the server opens it: ``FIRST_REQUESTS`` in the write of IDSizes and Version."""
    rec = recording.load(RECORDINGS / "openjdk-17" / "engine_journey.jsonl")
    lines = list(rec.lines)
    first = next(i for i, line in enumerate(lines) if line.note == "VirtualMachine.ClassesBySignature")
    asked = lines.pop(first)
    lines.insert(next(i for i, line in enumerate(lines) if line.kind == "reply"), asked)
    return dataclasses.replace(rec, lines=lines)


async def no_control(command: str) -> None:
    pass  # the recording holds what the debuggee did


async def test_engine_replay_without_the_recorded_first_requests_says_so() -> None:
    rec = opened_with_first_requests()
    with trio.fail_after(2), pytest.raises(jdwp.ReplayMismatch, match="first_requests") as caught:
        async with jdwp.open_replay(rec, first_requests=()) as vm:
            await DEBUGGER_SCENARIOS["engine_journey"](vm, no_control, **rec.header["options"])
    assert "expects VirtualMachine.ClassesBySignature(" in str(caught.value)


async def test_engine_replay_takes_the_recorded_first_requests_by_default() -> None:
    rec = opened_with_first_requests()
    with trio.fail_after(30):
        async with jdwp.open_replay(rec) as vm:
            assert vm.first_answer(*FIRST_REQUESTS[0]) is not None
            summary = await DEBUGGER_SCENARIOS["engine_journey"](vm, no_control, **rec.header["options"])
    assert summary == rec.header["expected"]


async def test_a_body_encoded_for_other_id_sizes_is_named_as_such() -> None:
    art = RECORDINGS / "art-synthetic" / "ddm_and_small_ids.jsonl"
    narrow = FramesOut(thread=0x1001, start_frame=0, length=-1)  # a 4-byte thread ID; the recording's are 8
    body = ThreadReference.Frames.encode_out(narrow, jdwp.IdSizes(4, 4, 4, 4, 4))
    with trio.fail_after(2), pytest.raises(jdwp.ReplayMismatch, match="encoded for a VM with other ID sizes"):
        async with jdwp.open_replay(art) as vm:
            await vm.request_raw(11, 6, body)


# --- recordings that diff well, and bad recording files ------------------------------------------------


async def test_a_tidied_recording_renumbers_ids_and_still_replays(tmp_path: Path) -> None:
    rec = recording.load(RECORDINGS / "openjdk-17" / "engine_two_loaders.jsonl")
    tidy = recording.tidy(rec)
    assert all(line.t is None for line in tidy.lines)
    assert all(line.decoded for line in tidy.lines if line.kind != "handshake" and len(line.data) > 11
               and "error" not in line.note)
    path = tmp_path / "tidy.jsonl"
    recording.save(tidy, path, max_reply=4096)
    text = path.read_text()
    assert '"t":' not in text and len(text) < len(recording.dump_text(rec)) / 2
    assert list((tmp_path / "tidy.blobs").iterdir())  # the big class lists are kept beside it
    again = recording.load(path)
    assert [line.data for line in again.lines] == [line.data for line in tidy.lines]
    (threads,) = [line for line in tidy.lines if line.note == "VirtualMachine.AllThreads" and line.dir == "in"]
    assert threads.decoded.startswith("ThreadsReply(threads=[")

    with trio.fail_after(30):
        async with jdwp.open_replay(again) as vm:
            summary = await DEBUGGER_SCENARIOS["engine_two_loaders"](vm, no_control, **rec.header["options"])
    assert summary.keys() == rec.header["expected"].keys()


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


@pytest.mark.parametrize(("edit", "message"), [
    (lambda rows: [*rows[:5], rows[5][:len(rows[5]) // 2]], r"line 6: not a JSON object .*truncated"),
    (lambda rows: [*rows[:3], rows[3].replace('"hex": "', '"hex": "ff'), *rows[4:]],
     r"line 4: .*edited by hand"),
    (lambda rows: [*rows[:3], rows[3].replace('"hex": "0', '"hex": "x'), *rows[4:]], r"line 4: \"hex\" is not"),
    (lambda rows: [rows[0].replace("pyjdwp-recording/1", "pyjdwp-recording/9"), *rows[1:]],
     r"line 1: format pyjdwp-recording/9; this version of pyjdwp reads"),
    (lambda rows: [json.dumps({"vm": "x"}), *rows[1:]], r"line 1: not a pyjdwp recording"),
    (lambda rows: [*rows[:3], rows[3].replace('"dir": "out"', '"dir": "up"'), *rows[4:]], r"line 4: \"dir\""),
])
def test_a_bad_recording_file_names_its_line(tmp_path: Path, edit, message: str) -> None:  # type: ignore[no-untyped-def]
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(edit(_lines(BASICS))) + "\n", encoding="utf-8")
    with pytest.raises(recording.RecordingError, match=message) as caught:
        recording.load(bad)
    assert str(bad) in str(caught.value) and isinstance(caught.value, ValueError)


def test_version_1_and_version_2_files_read_the_same_packets(tmp_path: Path) -> None:
    old = recording.load(BASICS)
    path = tmp_path / "v2.jsonl"
    recording.save(dataclasses.replace(old, lines=[dataclasses.replace(line, t=None) for line in old.lines]), path)
    assert _lines(path)[0].startswith('{"format": "pyjdwp-recording/2"')
    assert [line.data for line in recording.load(path).lines] == [line.data for line in old.lines]
