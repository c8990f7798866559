"""The hand-framed decoders (``jdwp.protocol.fast``) against the construct specs they shortcut.

For every command with a ``fast_reply``/``fast_out``: on valid bodies the fast decoder returns exactly
what the construct spec returns; on truncated, padded or corrupted bodies both raise ``ProtocolError``
(or both accept and agree). ID widths ``struct`` cannot unpack (3, 5, 6, 7 bytes) fall back to construct.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import ART32, HOTSPOT, ODD, REGULAR_SIZES, SMALL, for_record

from jdwp.protocol import fast
from jdwp.protocol.commands import ALL_COMMANDS, Command, composite
from jdwp.protocol.commands import Event as EV
from jdwp.protocol.commands import StackFrame as SF
from jdwp.protocol.commands import ThreadReference as TR
from jdwp.protocol.commands import VirtualMachine as VM
from jdwp.protocol.commands import events as ev
from jdwp.protocol.commands._base import decode, encode
from jdwp.protocol.commands.threads import Frame
from jdwp.protocol.commands.vm import prepared_classes
from jdwp.protocol.constants import ClassStatus, TypeTag
from jdwp.protocol.errors import ProtocolError
from jdwp.protocol.records import spec_of
from jdwp.protocol.types import IdSizes, Location

FAST = [(cmd, "out") for cmd in ALL_COMMANDS if cmd.fast_out is not None] + [
    (cmd, "reply") for cmd in ALL_COMMANDS if cmd.reply_decoder() is not None  # hand-framed or made (compiled.py)
]
FAST_IDS = [f"{cmd.name}-{which}" for cmd, which in FAST]


def test_the_hot_commands_have_fast_decoders() -> None:
    assert {f"{cmd.name}-{which}" for cmd, which in FAST} >= {
        "Event.Composite-out", "ThreadReference.Frames-reply", "StackFrame.GetValues-reply",
        "VirtualMachine.AllClasses-reply", "VirtualMachine.AllClassesWithGeneric-reply",
        "ReferenceType.Methods-reply", "ReferenceType.MethodsWithGeneric-reply", "Method.LineTable-reply",
        "Method.VariableTable-reply", "Method.VariableTableWithGeneric-reply",
    }


def _record(cmd: Command[Any, Any], which: str) -> type:
    return cmd.out if which == "out" else cmd.reply  # type: ignore[no-any-return]


def _fast_decode(cmd: Command[Any, Any], which: str, body: bytes, sizes: IdSizes) -> Any:
    return cmd.decode_out(body, sizes) if which == "out" else cmd.decode_reply(body, sizes)


def _slow_decode(cmd: Command[Any, Any], which: str, body: bytes, sizes: IdSizes) -> Any:
    return decode(spec_of(_record(cmd, which)), body, sizes, cmd.name)


def _outcome(fn: Any, *args: Any) -> tuple[str, Any]:
    try:
        return ("ok", fn(*args))
    except ProtocolError:
        return ("ProtocolError", None)


@pytest.mark.parametrize(("cmd", "which"), FAST, ids=FAST_IDS)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_fast_decoder_equals_construct(cmd: Command[Any, Any], which: str, data: st.DataObject) -> None:
    sizes = data.draw(st.sampled_from(REGULAR_SIZES))
    obj = data.draw(for_record(_record(cmd, which), sizes))
    body = encode(spec_of(_record(cmd, which)), obj, sizes, cmd.name)
    fast_result = _fast_decode(cmd, which, body, sizes)
    assert fast_result == obj
    assert fast_result == _slow_decode(cmd, which, body, sizes)
    assert type(fast_result) is _record(cmd, which)


@pytest.mark.parametrize(("cmd", "which"), FAST, ids=FAST_IDS)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_fast_and_construct_reject_the_same_bodies(cmd: Command[Any, Any], which: str, data: st.DataObject) -> None:
    """Truncations, trailing bytes and corrupted bytes of valid bodies: same verdict, same result."""
    sizes = data.draw(st.sampled_from(REGULAR_SIZES))
    obj = data.draw(for_record(_record(cmd, which), sizes))
    body = bytearray(encode(spec_of(_record(cmd, which)), obj, sizes, cmd.name))
    for _ in range(data.draw(st.integers(0, 3))):
        if body:
            body[data.draw(st.integers(0, len(body) - 1))] = data.draw(st.integers(0, 255))
    cut = data.draw(st.integers(0, len(body) + 3))
    bad = bytes(body[:cut]) + bytes(max(0, cut - len(body)))
    assert _outcome(_fast_decode, cmd, which, bad, sizes) == _outcome(_slow_decode, cmd, which, bad, sizes)


@pytest.mark.parametrize(("cmd", "which"), FAST, ids=FAST_IDS)
@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_every_truncation_and_padding_is_rejected_by_both(cmd: Command[Any, Any], which: str,
                                                          data: st.DataObject) -> None:
    sizes = data.draw(st.sampled_from(REGULAR_SIZES))
    obj = data.draw(for_record(_record(cmd, which), sizes))
    body = encode(spec_of(_record(cmd, which)), obj, sizes, cmd.name)
    for bad in [body[:cut] for cut in range(len(body))] + [body + b"\x00", body + body]:
        fast_verdict = _outcome(_fast_decode, cmd, which, bad, sizes)
        assert fast_verdict == _outcome(_slow_decode, cmd, which, bad, sizes)
        if len(bad) < len(body) or bad == body + b"\x00":
            assert fast_verdict[0] == "ProtocolError"


@pytest.mark.parametrize(("cmd", "which"), FAST, ids=FAST_IDS)
@settings(max_examples=40, deadline=None)
@given(sizes=st.sampled_from(REGULAR_SIZES), body=st.binary(max_size=64))
def test_random_bytes_same_verdict(cmd: Command[Any, Any], which: str, sizes: IdSizes, body: bytes) -> None:
    assert _outcome(_fast_decode, cmd, which, body, sizes) == _outcome(_slow_decode, cmd, which, body, sizes)


# --- the class listing a breakpoint reads: AllClasses without a record per class -------------------

def _prepared_of(body: bytes, sizes: IdSizes) -> list[tuple[int, str]]:
    return prepared_classes(body, sizes)


def _prepared_by_construct(body: bytes, sizes: IdSizes) -> list[tuple[int, str]]:
    reply = decode(spec_of(VM.AllClasses.reply), body, sizes, VM.AllClasses.name)
    return [(info.type_id, info.signature) for info in reply.classes
            if info.status & ClassStatus.PREPARED and info.ref_type_tag != TypeTag.ARRAY]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_prepared_classes_are_the_prepared_non_array_entries(data: st.DataObject) -> None:
    sizes = data.draw(st.sampled_from([*REGULAR_SIZES, ODD]))  # ODD: the construct spec reads it
    reply = data.draw(for_record(VM.AllClasses.reply, sizes))
    body = encode(spec_of(VM.AllClasses.reply), reply, sizes, VM.AllClasses.name)
    assert _prepared_of(body, sizes) == _prepared_by_construct(body, sizes)
    cut = data.draw(st.integers(0, len(body) + 3))
    bad = body[:cut] + bytes(max(0, cut - len(body)))
    assert _outcome(_prepared_of, bad, sizes) == _outcome(_prepared_by_construct, bad, sizes)


# --- the one-unpack shortcut for a composite holding one thread+location event ---------------------

SINGLE = [ev.BreakpointEvent, ev.SingleStepEvent, ev.MethodEntryEvent, ev.MethodExitEvent]


@pytest.mark.parametrize("cls", SINGLE, ids=lambda cls: cls.__name__)
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_single_thread_location_event(cls: type, data: st.DataObject) -> None:
    sizes = data.draw(st.sampled_from(REGULAR_SIZES))
    event = data.draw(for_record(cls, sizes))
    obj = ev.Composite(data.draw(st.integers(0, 255)), [event])
    body = EV.Composite.encode_out(obj, sizes)
    assert EV.Composite.decode_out(body, sizes) == obj == _slow_decode(EV.Composite, "out", body, sizes)


THREAD_ONLY = [ev.VMStartEvent, ev.ThreadStartEvent, ev.ThreadDeathEvent]


@pytest.mark.parametrize("cls", THREAD_ONLY, ids=lambda cls: cls.__name__)
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_single_thread_only_event(cls: type, data: st.DataObject) -> None:
    """The other one-unpack shortcut: a composite holding one thread start/death or VM start."""
    sizes = data.draw(st.sampled_from(REGULAR_SIZES))
    obj = ev.Composite(data.draw(st.integers(0, 255)), [data.draw(for_record(cls, sizes))])
    body = EV.Composite.encode_out(obj, sizes)
    assert EV.Composite.decode_out(body, sizes) == obj == _slow_decode(EV.Composite, "out", body, sizes)


COMMON = [*SINGLE, *THREAD_ONLY, ev.ClassPrepareEvent]


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_composites_of_common_events(data: st.DataObject) -> None:
    """Several events of the shapes read with one unpack each (the loop), rare kinds mixed in."""
    sizes = data.draw(st.sampled_from(REGULAR_SIZES))
    common = st.sampled_from(COMMON).flatmap(lambda cls: for_record(cls, sizes))
    events = data.draw(st.lists(st.one_of(common, common, for_record(ev.VMDeathEvent, sizes),
                                          for_record(ev.ClassUnloadEvent, sizes)), max_size=5))
    obj = ev.Composite(data.draw(st.integers(0, 255)), events)
    body = EV.Composite.encode_out(obj, sizes)
    assert EV.Composite.decode_out(body, sizes) == obj == _slow_decode(EV.Composite, "out", body, sizes)
    for bad in (body[:-1], body + b"\x00"):
        assert _outcome(_fast_decode, EV.Composite, "out", bad, sizes)[0] == "ProtocolError"
        assert _outcome(_slow_decode, EV.Composite, "out", bad, sizes)[0] == "ProtocolError"


def test_a_body_of_the_single_event_size_with_another_shape_is_read_by_the_loop() -> None:
    """A class prepare whose body happens to be as long as one breakpoint's, and a count that is not 1."""
    sizes = HOTSPOT
    single = EV.Composite.encode_out(ev.Composite(0, [ev.BreakpointEvent(1, 2, Location(1, 2, 3, 4))]), sizes)
    unsigned = len(EV.Composite.encode_out(ev.Composite(0, [ev.ClassPrepareEvent(1, 2, 1, 3, "", 7)]), sizes))
    obj = ev.Composite(0, [ev.ClassPrepareEvent(1, 2, 1, 3, "x" * (len(single) - unsigned), 7)])
    body = EV.Composite.encode_out(obj, sizes)
    assert len(body) == len(single)
    assert EV.Composite.decode_out(body, sizes) == obj
    twice = ev.Composite(0, [ev.VMDeathEvent(1)] * 2)
    assert EV.Composite.decode_out(EV.Composite.encode_out(twice, sizes), sizes) == twice


@pytest.mark.parametrize("cls", [*SINGLE, *THREAD_ONLY], ids=lambda cls: cls.__name__)
@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_a_remembered_event_decodes_again_under_any_suspend_policy(cls: type, data: st.DataObject) -> None:
    """The second decode of the same bytes is a lookup; other policies are other bytes."""
    sizes = data.draw(st.sampled_from(REGULAR_SIZES))
    event = data.draw(for_record(cls, sizes))
    first, second = data.draw(st.lists(st.integers(0, 255), min_size=2, max_size=2))
    for policy in (first, second, first):
        obj = ev.Composite(policy, [event])
        body = EV.Composite.encode_out(obj, sizes)
        assert EV.Composite.decode_out(body, sizes) == obj == _slow_decode(EV.Composite, "out", body, sizes)
        assert EV.Composite.decode_out(bytearray(body), sizes) == obj  # not a dict key: copied to bytes
    assert _outcome(_fast_decode, EV.Composite, "out", body[:-1], sizes)[0] == "ProtocolError"


def test_the_remembered_events_are_bounded_and_new_lists_each_time() -> None:
    shapes = composite._SHAPES.get(HOTSPOT)
    bodies = [EV.Composite.encode_out(ev.Composite(1, [ev.ThreadStartEvent(5, thread)]), HOTSPOT)
              for thread in range(composite._REMEMBERED + 10)]
    for body in bodies:
        EV.Composite.decode_out(body, HOTSPOT)
    assert 0 < len(shapes.seen) <= composite._REMEMBERED
    one, again = (EV.Composite.decode_out(bodies[-1], HOTSPOT) for _ in range(2))
    assert one == again == ev.Composite(1, [ev.ThreadStartEvent(5, len(bodies) - 1)])
    assert one.events is not again.events  # a caller may keep (or change) its list


def test_single_breakpoint_transcript_4_byte_methods() -> None:
    body = bytes.fromhex("02 00000001 02 ffffffff 0000000000000101 01 0000000000002001 00003001 ffffffffffffffff"
                         .replace(" ", ""))
    obj = ev.Composite(2, [ev.BreakpointEvent(-1, 0x101, Location(1, 0x2001, 0x3001, 2**64 - 1))])
    assert EV.Composite.decode_out(body, ART32) == obj
    assert _slow_decode(EV.Composite, "out", body, ART32) == obj


# --- irregular ID widths fall back to construct ---------------------------------------------------


def test_struct_has_no_format_for_odd_widths() -> None:
    for size in (3, 5, 6, 7):
        with pytest.raises(fast.IrregularSizes):
            fast.id_format(size)
    assert [fast.id_format(size) for size in (1, 2, 4, 8)] == ["B", "H", "I", "Q"]


@pytest.mark.parametrize(("cmd", "which"), FAST, ids=FAST_IDS)
@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_odd_sizes_decode_like_construct(cmd: Command[Any, Any], which: str, data: st.DataObject) -> None:
    sizes = data.draw(st.sampled_from([ODD, IdSizes(8, 8, 3, 8, 8), IdSizes(8, 5, 8, 8, 8), IdSizes(1, 1, 1, 1, 6)]))
    obj = data.draw(for_record(_record(cmd, which), sizes))
    body = encode(spec_of(_record(cmd, which)), obj, sizes, cmd.name)
    assert _fast_decode(cmd, which, body, sizes) == obj
    assert _outcome(_fast_decode, cmd, which, body[:-1], sizes)[0] == "ProtocolError" or not body


def _spy(cmd: Command[Any, Any], which: str) -> tuple[Command[Any, Any], list[IdSizes]]:
    """A copy of ``cmd`` whose fast decoder records its calls, then defers to the real one."""
    calls: list[IdSizes] = []
    real = cmd.fast_out if which == "out" else cmd.fast_reply
    assert real is not None

    def spy(body: bytes, sizes: IdSizes) -> Any:
        calls.append(sizes)
        return real(body, sizes)

    return dataclasses.replace(cmd, **{f"fast_{which}": spy}), calls


def test_frames_with_3_byte_frame_ids_uses_construct() -> None:
    sizes = IdSizes(8, 8, 8, 8, 3)
    body = bytes.fromhex("00000001" "000042" "01" "0000000000002001" "0000000000003001" "0000000000000007")
    cmd, calls = _spy(TR.Frames, "reply")
    expected = TR.Frames.reply([Frame(0x42, Location(1, 0x2001, 0x3001, 7))])
    assert cmd.decode_reply(body, sizes) == expected
    assert calls == [sizes]  # tried, raised IrregularSizes, fell back
    assert cmd.decode_reply(body, sizes) == _slow_decode(TR.Frames, "reply", body, sizes)


def test_regular_sizes_use_the_fast_decoder_and_extra_context_does_not() -> None:
    cmd, calls = _spy(SF.GetValues, "reply")
    assert cmd.decode_reply(bytes.fromhex("00000001 49 00000005".replace(" ", "")), HOTSPOT).values[0].value == 5
    assert calls == [HOTSPOT]
    cmd, calls = _spy(EV.Composite, "out")
    body = bytes.fromhex("00 00000001 63 00000000".replace(" ", ""))
    assert cmd.decode_out(body, SMALL) == ev.Composite(0, [ev.VMDeathEvent(0)])
    assert calls == [SMALL]
    assert cmd.decode_out(body, SMALL, unused=1) == ev.Composite(0, [ev.VMDeathEvent(0)])
    assert calls == [SMALL]  # a decode with extra context goes to the construct spec


def test_fast_decoders_wrap_failures_as_protocol_errors() -> None:
    for body in (b"", b"\x00\x00\x00", b"\xff\xff\xff\xff", b"\x00\x00\x00\x01"):
        with pytest.raises(ProtocolError, match=r"ThreadReference\.Frames reply"):
            TR.Frames.decode_reply(body, HOTSPOT)
    with pytest.raises(ProtocolError, match=r"Event\.Composite"):
        EV.Composite.decode_out(bytes.fromhex("00 00000001 2e 00000000".replace(" ", "")), HOTSPOT)
