"""Recorded sessions: every packet round-trips byte for byte, and whole sessions replay through the client.

Recordings under ``fixtures/recordings/openjdk-17`` come from a real OpenJDK 17 (``record_fixtures.py``);
those under ``art-synthetic`` are built from the spec's facts (``synthesize_art.py``) and say so.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing
from scenarios import SCENARIOS
from test_android_hello import Rewound

import jdwp
from jdwp import recording
from jdwp.protocol.commands import BY_ID, Event
from jdwp.protocol.constants import Tag
from jdwp.protocol.wire import HANDSHAKE, CommandPacket, encode_packet
from jdwp.replay import ReplayVm
from pyjdwp_android.hello import say_hello

RECORDINGS = Path(__file__).resolve().parents[2] / "fixtures" / "recordings"
ALL = sorted(RECORDINGS.rglob("*.jsonl"))
OPENJDK = sorted((RECORDINGS / "openjdk-17").glob("*.jsonl"))


def test_recordings_exist() -> None:
    assert {p.stem for p in OPENJDK} >= {"basics", "breakpoint_journey"}
    assert (RECORDINGS / "art-synthetic" / "ddm_and_small_ids.jsonl") in ALL


@pytest.mark.parametrize("path", ALL, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_every_packet_round_trips(path: Path) -> None:
    rec = recording.load(path)
    sizes = rec.id_sizes()
    assert sizes is not None
    decoded = 0
    for line, reply in rec.exchanges():
        packet = line.packet()
        assert encode_packet(packet) == line.data
        if reply is not None:
            command, reply_packet = reply
            assert command is not None, f"reply {reply_packet.id} answers nothing recorded"
            if reply_packet.error_code:  # an error reply has no data to decode (ABSENT_INFORMATION, …)
                decoded += 1
                continue
            value = command.decode_reply(reply_packet.body, sizes)
            assert command.encode_reply(value, sizes) == reply_packet.body, line.note
        else:
            assert isinstance(packet, CommandPacket)
            command = BY_ID[packet.key]
            value = command.decode_out(packet.body, sizes)
            assert command.encode_out(value, sizes) == packet.body, line.note
        decoded += 1
    assert decoded == sum(1 for line in rec.lines if line.kind != "handshake")


def trickle_stream_pair() -> tuple[trio.abc.Stream, trio.abc.Stream]:
    """A bidirectional in-memory pair that moves one byte at a time in each direction."""

    def one_way() -> tuple[trio.testing.MemorySendStream, trio.testing.MemoryReceiveStream]:
        send, receive = trio.testing.memory_stream_one_way_pair()

        async def pump() -> None:
            trio.testing.memory_stream_pump(send, receive, max_bytes=1)

        send.send_all_hook = pump
        receive.receive_some_hook = pump
        return send, receive

    a_send, b_receive = one_way()
    b_send, a_receive = one_way()
    return (trio.StapledStream(a_send, a_receive), trio.StapledStream(b_send, b_receive))


async def replay(path: Path, *, trickle: bool = False) -> tuple[Any, Any]:
    rec = recording.load(path)
    scenario = SCENARIOS[rec.header["scenario"]]

    async def no_control(command: str) -> None:
        pass

    debugger_end, vm_end = trickle_stream_pair() if trickle else trio.testing.memory_stream_pair()
    vm = ReplayVm(rec)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(vm.serve, vm_end)
        if rec.header.get("hello"):  # as the server does on Android: HELO between handshake and client
            stream = Rewound(debugger_end)
            await _handshake(stream)
            contact = await say_hello(stream)
            async with jdwp.open_jdwp(stream, handshake=False) as client:
                summary = await scenario(client, no_control, **rec.header.get("options", {}))
            summary["hello"] = contact
        else:
            async with jdwp.open_jdwp(debugger_end) as client:
                summary = await scenario(client, no_control, **rec.header.get("options", {}))
    assert vm.result.mismatch is None
    assert vm.result.complete, f"played {vm.result.played} of {vm.result.total}"
    return rec, summary


async def _handshake(stream: trio.abc.Stream) -> None:
    await stream.send_all(HANDSHAKE)
    got = b""
    while len(got) < len(HANDSHAKE):
        got += await stream.receive_some(len(HANDSHAKE) - len(got))
    assert got == HANDSHAKE


@pytest.mark.parametrize("trickle", [False, True], ids=["whole", "one-byte-trickle"])
@pytest.mark.parametrize("path", OPENJDK, ids=lambda p: p.stem)
async def test_openjdk_session_replays_to_the_same_results(path: Path, trickle: bool) -> None:
    with trio.fail_after(30):
        rec, summary = await replay(path, trickle=trickle)
    assert summary == rec.header["expected"]


@pytest.mark.parametrize("trickle", [False, True], ids=["whole", "one-byte-trickle"])
async def test_synthetic_art_session(trickle: bool) -> None:
    path = RECORDINGS / "art-synthetic" / "ddm_and_small_ids.jsonl"
    with trio.fail_after(30):
        rec, summary = await replay(path, trickle=trickle)
    assert rec.synthetic and rec.header["stands_for"]
    assert summary["id_sizes"] == jdwp.IdSizes(4, 4, 8, 8, 8)
    assert summary["version"].vm_name == "Dalvik"
    assert [m.method_id for m in summary["methods"]] == [0x11223344, 0x11223348]
    assert summary["hit"].location == summary["location"]
    assert summary["location"].method_id == 0x11223348
    assert summary["values"] == [jdwp.Value(Tag.INT, 42), jdwp.Value(Tag.STRING, 0x3000),
                                 jdwp.Value(Tag.STRING, 0x3001)]
    assert summary["text"] == "na\u00efve \U0001F600 nul:\x00"
    assert summary["texts"][1] == "emoji \U0001F600 nul:\x00"  # ART's 4-byte form, sent unconverted
    assert summary["frames"][1].location.method_id == 0x11223344
    hello = summary["hello"].hello
    assert hello.boot_stage == "A_GO" and hello.pointer_size == 4 and not summary["hello"].waiting


@pytest.mark.parametrize("trickle", [False, True], ids=["whole", "one-byte-trickle"])
async def test_synthetic_launch_of_a_waiting_app(trickle: bool) -> None:
    path = RECORDINGS / "art-synthetic" / "launch_waiting.jsonl"
    with trio.fail_after(30):
        rec, summary = await replay(path, trickle=trickle)
    assert rec.synthetic and rec.header["stands_for"] and rec.header["sources"]
    contact = summary["hello"]
    assert contact.waiting and contact.hello.boot_stage == "DEBG" and contact.hello.pointer_size == 8
    # The WAIT that came before the HELO reply also reaches the client's DDM channel, then STAG after resume.
    assert summary["ddm"] == ["WAIT", "STAG"] and summary["stage"] == b"A_GO"
    assert summary["thread_name"] == "main"


def test_composite_event_decodes_with_4_byte_method_ids() -> None:
    rec = recording.load(RECORDINGS / "art-synthetic" / "ddm_and_small_ids.jsonl")
    sizes = rec.id_sizes()
    events = [line.packet() for line in rec.lines if line.note == "Event.Composite"]
    (packet,) = events
    composite = Event.Composite.decode_out(packet.body, sizes)
    (hit,) = composite.events
    assert isinstance(hit, jdwp.BreakpointEvent)
    assert hit.location.method_id == 0x11223348
    assert len(packet.body) == 1 + 4 + 1 + 4 + 8 + (1 + 8 + 4 + 8)
