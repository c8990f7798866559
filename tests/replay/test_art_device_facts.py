"""What clients that ran real Android devices report ART sends, replayed byte for byte over memory streams.

One test (or more) per row of docs/reliability.md's "ART as devices show it"; the bytes come from
tests/support/art_bytes.py (built from the formats, never copied from a capture). The same quirks run on the
adb testbed under the Android journey in tests/server/test_server_art_quirks.py.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any

import art_transforms
import pytest
import trio
import trio.testing
from debugger_scenarios import DEBUGGER_SCENARIOS
from test_debugger_faults import CLASS, CLASS_ID, LOCATION, METHOD_ID, class_handlers, hit, locals_at_a_hit, scripted
from test_pause_replay import pausing

from jdwp import open_jdwp, recording
from jdwp.client import DDM_REPLY_WINDOW
from jdwp.debugger import Stopped
from jdwp.debugger.classes.lambdas import method_lambda
from jdwp.debugger.classes.synthetic import is_nested_in, lambda_holder_host, outermost
from jdwp.protocol.commands import DDM, Empty, ReferenceType, VirtualMachine
from jdwp.protocol.commands.events import DdmChunk, DdmReply, SingleStepEvent
from jdwp.protocol.commands.reftypes import (
    LineEntry,
    LineTableReply,
    MethodInfo,
    MethodsReply,
    SignatureReply,
    SourceFileReply,
    ValuesReply,
    VariableSlot,
    VariableTableReply,
)
from jdwp.protocol.commands.threads import Frame, FrameCountReply, FramesReply, ThisObjectReply
from jdwp.protocol.commands.vm import AllClassesReply, ClassesBySignatureReply, ClassInfo, ClassRef
from jdwp.protocol.connection import JdwpConnection, State
from jdwp.protocol.constants import ErrorCode, SuspendPolicy, Tag, TypeTag
from jdwp.protocol.types import HOTSPOT_64, Location
from jdwp.protocol.values import Value
from jdwp.protocol.wire import HANDSHAKE, CommandPacket
from jdwp.replay import ReplayVm
from pyjdwp_android import DebuggerBusy, ddm
from pyjdwp_android.client import ShellResult
from pyjdwp_android.frozen import ProcessFrozen, why_silent
from pyjdwp_android.hello import FirstContact
from pyjdwp_android.transport import JdwpStream, Transport
from pyjdwp_server.session.launching import app_facts
from support.art_bytes import DDM_CHUNK, DDM_SET, PRE_INITIALIZED, VM_PACKET_ID, apnm_packet
from support.fakevm import FakeVm, Handler, ScriptedVm

APNM = apnm_packet(PRE_INITIALIZED, user_id=0)
JOURNEY = Path(__file__).resolve().parents[2] / "fixtures" / "recordings" / "openjdk-17" / "engine_journey.jsonl"


# --- 1. DDM packets before the handshake's echo (Android bug 178655046) ------------------------------------


def test_the_state_machine_skips_a_packet_before_the_echo_and_reads_it_after() -> None:
    for split in (1, 5, 11, len(APNM), len(APNM) + 3):  # the bytes may come in any pieces
        conn = JdwpConnection()
        data = APNM + HANDSHAKE
        conn.receive_data(data[:split])
        conn.receive_data(data[split:])
        assert conn.state is State.OPEN
        first = conn.next_event()
        assert isinstance(first, CommandPacket)
        assert (first.id, first.command_set, first.command) == (VM_PACKET_ID, DDM_SET, DDM_CHUNK)


async def test_the_jdwp_client_opens_past_an_early_apnm_and_delivers_it_as_ddm() -> None:
    ours, theirs = trio.testing.memory_stream_pair()
    vm = FakeVm(theirs)

    async def device() -> None:
        while vm.framing.state is State.AWAIT_HANDSHAKE:
            vm.framing.receive_data(await theirs.receive_some(4096))
        await theirs.send_all(APNM + HANDSHAKE)  # the packet first, as ART did before change 1569323
        for _ in range(2):
            packet = await vm.receive()
            assert packet is not None
            if packet.key == VirtualMachine.IDSizes.key:
                await vm.reply(packet, VirtualMachine.IDSizes.encode_reply(HOTSPOT_64, None))
            else:
                await vm.answer_version(packet)
        await trio.sleep_forever()

    with trio.fail_after(5):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(device)
            async with open_jdwp(ours) as client:
                chunk = await client.receive_ddm()
                assert chunk.type == int.from_bytes(b"APNM", "big")
            nursery.cancel_scope.cancel()


async def test_the_adb_stream_handshake_skips_an_early_apnm_and_keeps_it_for_later() -> None:
    ours, theirs = trio.testing.memory_stream_pair()
    stream = JdwpStream(None, ours, "emulator-5554", 4242, Transport.DIRECT)  # type: ignore[arg-type]

    async def device() -> None:
        assert await theirs.receive_some(len(HANDSHAKE)) == HANDSHAKE
        for i in range(0, len(APNM), 7):  # in pieces, as a busy adb transport delivers
            await theirs.send_all(APNM[i:i + 7])
        await theirs.send_all(HANDSHAKE + b"\x00\x00")

    with trio.fail_after(5):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(device)
            await stream._handshake(5)
    assert stream.handshake_done
    kept = b""
    while len(kept) < len(APNM) + 2:
        kept += await stream.receive_some(65536)
    assert kept == APNM + b"\x00\x00"  # the packet first, then what followed the echo


# --- 4. HELO and APNM in either order, with placeholder names -------------------------------------------


def test_a_placeholder_name_never_hides_or_replaces_the_real_one() -> None:
    real = "com.example.app"
    hello_real = ddm.Hello(1, 4242, "Dalvik v2.1.0", real, 0, "64-bit (arm64)")
    for placeholder in (PRE_INITIALIZED, ""):
        hello_placeholder = dataclasses.replace(hello_real, app_name=placeholder)
        # APNM with the placeholder before a HELO with the name (the app was bound in between) ...
        early = FirstContact(hello_real, chunks=(ddm.AppName(placeholder, 0),))
        assert app_facts(early, None).app_name == real
        # ... and a HELO with the placeholder after an APNM with the name.
        late = FirstContact(hello_placeholder, chunks=(ddm.AppName(real, 0, real),))
        facts = app_facts(late, None)
        assert (facts.app_name, facts.package_name) == (real, real)
        # Nothing real said yet: no name rather than the placeholder.
        assert app_facts(FirstContact(hello_placeholder), None).app_name is None
        assert ddm.real_name(placeholder) is None


# --- 3. API >= 28: no reply to a DDM command whose answer is empty ----------------------------------------


async def test_silence_after_a_ddm_command_is_its_empty_answer_and_a_late_reply_is_dropped(
        autojump_clock: trio.testing.MockClock) -> None:
    ours, theirs = trio.testing.memory_stream_pair()
    vm = FakeVm(theirs)
    heap_info = DdmChunk(int.from_bytes(b"HPIF", "big"), b"\x01")  # answered later by a chunk of its own

    async def device() -> None:
        await vm.open()
        ddm_command = await vm.receive()
        assert ddm_command is not None and ddm_command.key == (DDM_SET, DDM_CHUNK)  # no reply: ART's silence
        version = await vm.receive()
        assert version is not None and version.key == VirtualMachine.Version.key
        await vm.reply(ddm_command, DDM.Chunk.encode_reply(DdmReply([]), None))  # a late one, to be dropped
        await vm.answer_version(version)
        await trio.sleep_forever()

    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(device)
            async with open_jdwp(ours) as client:
                started = trio.current_time()
                assert await client.ddm_request(heap_info) == []
                assert trio.current_time() - started <= DDM_REPLY_WINDOW + 0.1
                assert (await client.request(VirtualMachine.Version)).vm_name == "FakeVm"
            nursery.cancel_scope.cancel()


# --- the engine's journey over a real recording made ART-shaped (facts 5, 6, 9, and 6's small IDs) ---------


async def _journey(rec: recording.Recording) -> dict[str, Any]:
    async def no_control(command: str) -> None:
        pass

    debugger_end, vm_end = trio.testing.memory_stream_pair()
    vm = ReplayVm(rec)
    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(vm.serve, vm_end)
            async with open_jdwp(debugger_end) as client:
                summary = await DEBUGGER_SCENARIOS["engine_journey"](client, no_control, **rec.header["options"])
    assert vm.result.mismatch is None, vm.result.mismatch
    assert vm.result.complete, f"played {vm.result.played} of {vm.result.total}"
    return summary


@pytest.mark.parametrize("transform", [
    art_transforms.events_before_resume_replies,
    art_transforms.class_prepare_status(7),  # the recording itself has HotSpot's 3: both are pinned
    art_transforms.reversed_line_tables,
    art_transforms.small_sequential_method_ids,
], ids=["events-before-resume-reply", "class-prepare-status-7",
        "unsorted-line-tables", "small-sequential-ids"])
async def test_the_journey_reaches_the_same_results_under_each_art_quirk(
        transform: art_transforms.Transform) -> None:
    real = recording.load(JOURNEY)
    quirky = transform(real)
    assert [line.data for line in quirky.lines] != [line.data for line in real.lines]  # the quirk is there
    assert await _journey(quirky) == real.header["expected"]


async def test_the_journey_reaches_the_same_results_under_every_art_quirk_at_once() -> None:
    real = recording.load(JOURNEY)
    quirky = real
    for transform in (art_transforms.events_before_resume_replies, art_transforms.class_prepare_status(7),
                      art_transforms.reversed_line_tables, art_transforms.small_sequential_method_ids):
        quirky = transform(quirky)
    assert await _journey(quirky) == real.header["expected"]


# --- 2. a busy slot looks like silence on API 28-34 --------------------------------------------------------


class _Device:
    """Answers why_silent's one shell command as a device would."""

    def __init__(self, sdk: str, stat: str, freeze: str) -> None:
        self.said = f"sdk={sdk}\nstat={stat}\nfreeze={freeze}\n".encode()

    async def shell(self, serial: str, command: str, *, timeout: float | None = None) -> ShellResult:
        assert "/proc/4242/stat" in command and "cgroup.freeze" in command
        return ShellResult(self.said, b"", 0)


RUNNING = "4242 (com.example.app) S 600 600 0 0 -1 1077952832"
STOPPED = "4242 (com.example.app) T 600 600 0 0 -1 1077952832"


@pytest.mark.parametrize(("sdk", "stat", "freeze", "busy"), [
    ("29", RUNNING, "0", True),  # queued behind another debugger
    ("34", RUNNING, "", True),
    ("30", "", "", True),  # /proc not readable: the API level decides
    ("29", STOPPED, "0", False),  # not run by the kernel: frozen
    ("33", RUNNING, "1", False),  # in a frozen cgroup
    ("27", RUNNING, "0", False),  # below 28 a second debugger gets EOF: silence is not a busy slot
    ("35", RUNNING, "0", False),  # nor from 35
    ("", RUNNING, "0", False),  # the device cannot say: frozen, the older reading
])
async def test_a_silent_handshake_is_busy_only_on_a_running_app_of_api_28_to_34(
        sdk: str, stat: str, freeze: str, busy: bool) -> None:
    said = await why_silent(_Device(sdk, stat, freeze), "emulator-5554", 4242)  # type: ignore[arg-type]
    assert isinstance(said, DebuggerBusy if busy else ProcessFrozen), said
    assert said.retryable


# --- 8. locals as dex registers ---------------------------------------------------------------------------

# A method of 8 registers, 2 of them ins (D8's layout): ``this`` in v6 and the parameter ``n`` in v7, the top
# registers; ``x`` moves from v0 to v2 between its two ranges; ``obj`` is declared an object but its register
# holds an int at the stop; ``gone`` is a null reference. v4 and v5 have no name (no debug info).
ART_LOCALS = [
    VariableSlot(0, "this", "Lcom/example/Q;", 20, 6), VariableSlot(0, "n", "I", 20, 7),
    VariableSlot(0, "x", "I", 3, 0), VariableSlot(3, "x", "I", 17, 2),
    VariableSlot(2, "obj", "Ljava/lang/Object;", 18, 1), VariableSlot(2, "gone", "Ljava/lang/String;", 18, 3),
]
REGISTERS = {2: Value(Tag.INT, 42), 3: Value(Tag.OBJECT, 0), 7: Value(Tag.INT, 5)}


def dex_registers(vm_ref: list[ScriptedVm]) -> dict[str, Handler]:
    table = class_handlers(vm_ref)
    table["Method.VariableTable"] = lambda out: VariableTableReply(2, ART_LOCALS)
    table["StackFrame.ThisObject"] = lambda out: ThisObjectReply(Value(Tag.OBJECT, 0))
    asked: list[int] = []

    def get_values(out: object) -> object:
        slots = out.slots  # type: ignore[attr-defined]
        asked.extend(s.slot for s in slots)
        if any(s.slot not in REGISTERS and s.slot != 1 for s in slots):
            return ErrorCode.INVALID_SLOT  # an unnamed register on Android 9-10
        if any(s.slot == 1 for s in slots):
            return ErrorCode.INVALID_OBJECT  # the int register read as an object: the whole reply fails
        return ValuesReply([REGISTERS[s.slot] for s in slots])

    table["StackFrame.GetValues"] = get_values
    table["asked"] = lambda out: asked  # read back by the test
    return table


async def test_locals_are_read_as_dex_registers_show_them() -> None:
    async with scripted(dex_registers) as (vm, debugger):
        stop_id, result = await locals_at_a_hit(vm, debugger)
        shown = {local.name: local for local in result.locals}
        assert list(shown) == ["obj", "x", "gone", "n"]  # by register; never `this` (asked with ThisObject)
        assert (shown["x"].value, shown["n"].value) == ("42", "5")  # x from v2, its range at the stop
        assert shown["gone"].kind == "null"
        assert (shown["obj"].kind, shown["obj"].reason) == ("unavailable", "INVALID_OBJECT")
        asked = set(vm.handlers["asked"](None))
        assert asked == {1, 2, 3, 7}  # named, live registers only: no v0 (x's old range), v4-v6, nor this
        await debugger.resume(stop_id)


# --- 9. frames asked of a thread with none ----------------------------------------------------------------


def frameless(answer: object) -> Callable[[list[ScriptedVm]], dict[str, Handler]]:
    """Thread "two" has no Java frame (an ART thread still starting, or native only): ``FrameCount`` 0, and
    ``Frames`` answers ``answer`` (an empty list, or an error code)."""
    def handlers(vm_ref: list[ScriptedVm]) -> dict[str, Handler]:
        table = pausing(vm_ref)
        table["ThreadReference.FrameCount"] = lambda out: FrameCountReply(1 if out.thread == 0x100 else 0)
        table["ThreadReference.Frames"] = lambda out: (FramesReply([Frame(0x7100, LOCATION)]) if out.thread == 0x100
                                                       else answer)
        return table
    return handlers


@pytest.mark.parametrize("answer", [FramesReply([]), ErrorCode.INVALID_INDEX, ErrorCode.OPAQUE_FRAME],
                         ids=["empty", "invalid-index", "opaque-frame"])
async def test_frames_of_a_thread_without_any_are_an_answer_not_a_crash(answer: object) -> None:
    async with scripted(frameless(answer)) as (_vm, debugger):
        stop = await debugger.pause()
        page = await debugger.threads(stop.stop_id, 1)
        (two,) = [t for t in page.threads if t.name == "two"]
        assert two.thread_id is not None and list(two.frames) == []
        assert (await debugger.stack(stop.stop_id, two.thread_id)).frames == ()  # its count says none
        (one,) = [t for t in page.threads if t.name == "one"]
        assert one.thread_id is not None and (await debugger.stack(stop.stop_id, one.thread_id)).frames
        await debugger.resume(stop.stop_id)
        assert (await debugger.detach()).status == "complete"


# --- 7. strings: names whose UTF-8 byte length is not their character count -----------------------------


def test_names_are_framed_by_their_utf8_byte_length_not_their_character_count() -> None:
    """jadx's JDWP library sized names by characters and failed ("Insufficient space for decoding", jadx issues
    #1471, #1524) on apps whose names are not ASCII; ART sends standard UTF-8, a non-BMP character as one 4-byte
    sequence (android/ndk issue #283: ART's JNI gives 4-byte UTF-8 where the spec says modified UTF-8)."""
    names = [("größe", "(I)V", 0x1), ("\U0001F600emoji", "()Ljava/lang/String;", 0x9), ("plain", "()V", 0x8)]
    body = len(names).to_bytes(4, "big")
    for i, (name, signature, mods) in enumerate(names):
        raw = name.encode("utf-8")  # built by hand, as the VM frames it: a u4 byte count, then the bytes
        body += (i + 1).to_bytes(8, "big") + len(raw).to_bytes(4, "big") + raw
        body += len(signature).to_bytes(4, "big") + signature.encode() + mods.to_bytes(4, "big")
    assert len("größe".encode()) != len("größe") and len("\U0001F600".encode()) == 4
    reply = ReferenceType.Methods.decode_reply(body, HOTSPOT_64)
    assert [(m.method_id, m.name, m.signature, m.mod_bits) for m in reply.declared] == [
        (i + 1, name, signature, mods) for i, (name, signature, mods) in enumerate(names)]
    assert ReferenceType.Methods.encode_reply(reply, HOTSPOT_64) == body  # and back, byte for byte


# --- 10. D8/R8 lambda holders ---------------------------------------------------------------------------


@pytest.mark.parametrize(("holder", "host", "top"), [
    ("com.x.Main$$ExternalSyntheticLambda0", "com.x.Main", "com.x.Main"),  # source file D8$$SyntheticClass
    ("com.x.Main$Inner$$ExternalSyntheticLambda12", "com.x.Main$Inner", "com.x.Main"),
    ("com.x.-$$Lambda$Main$7g1S-bgs0VZo5b_d_lSzLYM4XBA", "com.x.Main", "com.x.Main"),  # source file "lambda"
    ("com.x.-$$Lambda$Main$Inner$2$mYGM42yhe76zJekjTAzT10LdEMk", "com.x.Main$Inner$2", "com.x.Main"),
    ("-$$Lambda$Main$abc", "Main", "Main"),  # the default package
])
def test_a_d8_lambda_holder_belongs_to_its_host(holder: str, host: str, top: str) -> None:
    assert lambda_holder_host(holder) == host
    assert outermost(holder) == top and is_nested_in(holder, top) and is_nested_in(holder, host)
    assert method_lambda(holder, "run") == holder.rpartition(".")[2]  # the user's lambda, not a class of its own
    assert not is_nested_in(holder, "com.x.Other")


@pytest.mark.parametrize("name", ["com.x.Main", "com.x.Main$1", "com.x.Main$$Lambda$14", "com.x.$Proxy3",
                                  "com.x.-$$Lambda$"])
def test_other_classes_are_no_lambda_holders(name: str) -> None:
    assert lambda_holder_host(name) is None


# --- 6. interfaces with tag 2, any prepared status ---------------------------------------------------------


@pytest.mark.parametrize("status", [3, 7])
async def test_a_breakpoint_binds_in_an_interface_listed_with_tag_2(status: int) -> None:
    """An interface's default method (tag 2, as the capture of real ART events shows for interfaces) binds like a
    class's, whichever prepared status the VM reports."""
    def interface(vm_ref: list[ScriptedVm]) -> dict[str, Handler]:
        table = class_handlers(vm_ref)
        table["VirtualMachine.ClassesBySignature"] = lambda out: ClassesBySignatureReply(
            [ClassRef(TypeTag.INTERFACE, CLASS_ID, status)])
        table["VirtualMachine.AllClasses"] = lambda out: AllClassesReply(
            [ClassInfo(TypeTag.INTERFACE, CLASS_ID, "Lcom/example/Q;", status)])
        return table

    async with scripted(interface) as (_vm, debugger):
        bp = await debugger.set_breakpoint(CLASS, 5)
        assert bp.status == "verified" and [(loc.line, loc.code_index) for loc in bp.locations] == [(5, 4)]


HOLDER, HOLDER_RUN, LAMBDA_BODY = 0x11, 0x21, 0x22


def holder_and_lambda(vm_ref: list[ScriptedVm]) -> dict[str, Handler]:
    """``com.example.Q`` with ``run`` (line 5 at index 4) and its lambda's body ``lambda$run$0`` (line 7), and
    D8's holder ``com.example.Q$$ExternalSyntheticLambda0`` whose ``run`` (not marked synthetic, source file
    ``D8$$SyntheticClass``, line 0) only forwards to it."""
    table = class_handlers(vm_ref)
    signatures = {CLASS_ID: "Lcom/example/Q;", HOLDER: "Lcom/example/Q$$ExternalSyntheticLambda0;"}
    table["ReferenceType.Signature"] = lambda out: SignatureReply(signatures[out.ref_type])
    table["ReferenceType.SourceFile"] = lambda out: SourceFileReply(
        "Q.java" if out.ref_type == CLASS_ID else "D8$$SyntheticClass")
    table["ReferenceType.Methods"] = lambda out: MethodsReply(
        [MethodInfo(METHOD_ID, "run", "()V", 1), MethodInfo(LAMBDA_BODY, "lambda$run$0", "()V", 0x100A)]
        if out.ref_type == CLASS_ID else [MethodInfo(HOLDER_RUN, "run", "()V", 0x11)])
    table["Method.LineTable"] = lambda out: {
        METHOD_ID: LineTableReply(0, 9, [LineEntry(0, 4), LineEntry(4, 5)]),
        LAMBDA_BODY: LineTableReply(0, 3, [LineEntry(0, 7)]),
        HOLDER_RUN: LineTableReply(0, 3, [LineEntry(0, 0)])}[out.method_id]
    table["Method.VariableTable"] = lambda out: VariableTableReply(0, [])
    table["Method.VariableTableWithGeneric"] = lambda out: ErrorCode.ABSENT_INFORMATION
    table["StackFrame.ThisObject"] = lambda out: ThisObjectReply(Value(Tag.OBJECT, 0))
    table["ThreadReference.Resume"] = lambda out: Empty()
    return table


async def test_a_step_into_a_lambda_goes_through_d8s_holder_to_the_users_lambda() -> None:
    async with scripted(holder_and_lambda) as (vm, debugger):
        await debugger.set_breakpoint(CLASS, 5)
        await vm.event(hit(vm._request_ids, 0x100))
        stopped = await debugger.events.receive()
        assert isinstance(stopped, Stopped)
        await debugger.step(stopped.stop.stop_id, stopped.stop.thread_id, "into")
        steps = vm.count("EventRequest.Set")
        await vm.event(SingleStepEvent(vm._request_ids, 0x100, Location(TypeTag.CLASS, HOLDER, HOLDER_RUN, 0)),
                       policy=SuspendPolicy.EVENT_THREAD)
        await trio.testing.wait_all_tasks_blocked()
        assert vm.count("EventRequest.Set") == steps + 1  # stepped on: a new step, no stop in the holder
        await vm.event(SingleStepEvent(vm._request_ids, 0x100, Location(TypeTag.CLASS, CLASS_ID, LAMBDA_BODY, 0)),
                       policy=SuspendPolicy.EVENT_THREAD)
        landed = await debugger.events.receive()
        assert isinstance(landed, Stopped) and landed.stop.reasons == ("step",)
        assert (landed.stop.location.method, landed.stop.location.line) == ("lambda$run$0", 7)
