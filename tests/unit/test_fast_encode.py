"""The hand-framed out-data encoders (``jdwp.protocol.fast_encode``) against the construct specs they shortcut.

For every command with a ``fast_encode``: on valid out-data the fast encoder writes exactly the bytes the
construct spec builds, for 8-, 4- and 2-byte IDs; ID widths ``struct`` cannot write (3, 5, 6, 7 bytes) go
to the construct spec; bad out-data (``None`` for a number, a number out of range for its width, a record
of another class) is a ``UsageError`` naming the command, worded exactly as the construct spec words it.
"""

from __future__ import annotations

import dataclasses
import struct
from typing import Any

import construct as c
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from strategies import HOTSPOT, ODD, REGULAR_SIZES, SMALL, for_record

from jdwp.protocol.commands import ALL_COMMANDS, Command, Empty, _base
from jdwp.protocol.commands import StackFrame as SF
from jdwp.protocol.commands import ThreadReference as TR
from jdwp.protocol.commands import VirtualMachine as VM
from jdwp.protocol.commands.threads import FrameGetValuesOut, FrameOut, FramesOut, SlotRequest, ThreadOut
from jdwp.protocol.errors import NullIdError, UsageError
from jdwp.protocol.fast import IrregularSizes
from jdwp.protocol.nulls import null_field
from jdwp.protocol.records import spec_of
from jdwp.protocol.types import FieldIdSpec, FrameIdSpec, IdSizes, MethodIdSpec, ObjectIdSpec, ReferenceTypeIdSpec

ENCODERS = [cmd for cmd in ALL_COMMANDS if cmd.fast_encode is not None]
IRREGULAR = [ODD, IdSizes(8, 8, 3, 8, 8), IdSizes(5, 6, 8, 7, 3), IdSizes(1, 1, 1, 1, 6)]

#: The commands issue 13 names as sent per breakpoint hit, per frame read, or per class looked at.
HOT = {
    "ThreadReference.Name", "ThreadReference.Suspend", "ThreadReference.Resume", "ThreadReference.Status",
    "ThreadReference.Frames", "ThreadReference.FrameCount", "ThreadReference.SuspendCount",
    "StackFrame.GetValues", "StackFrame.ThisObject",
    "ObjectReference.ReferenceType", "ObjectReference.GetValues", "ObjectReference.DisableCollection",
    "ObjectReference.EnableCollection", "StringReference.Value", "ArrayReference.Length",
    "ArrayReference.GetValues",
    "ReferenceType.Signature", "ReferenceType.Fields", "ReferenceType.Methods", "ReferenceType.FieldsWithGeneric",
    "ReferenceType.MethodsWithGeneric", "ReferenceType.GetValues", "ReferenceType.SourceDebugExtension",
    "Method.LineTable", "Method.VariableTable", "Method.VariableTableWithGeneric",
    "VirtualMachine.ClassesBySignature", "VirtualMachine.DisposeObjects", "EventRequest.Clear",
}

_ID_WIDTHS = {
    id(ObjectIdSpec): "object_id_size",
    id(ReferenceTypeIdSpec): "reference_type_id_size",
    id(MethodIdSpec): "method_id_size",
    id(FieldIdSpec): "field_id_size",
    id(FrameIdSpec): "frame_id_size",
}


def _construct(cmd: Command[Any, Any], out: Any, sizes: IdSizes | None) -> bytes:
    return _base.encode(spec_of(cmd.out), out, sizes, cmd.name)


def _error(fn: Any, *args: Any) -> str:
    with pytest.raises(UsageError) as info:
        fn(*args)
    return str(info.value)


def test_the_hot_commands_have_fast_encoders() -> None:
    assert {cmd.name for cmd in ENCODERS} >= HOT


def test_every_fast_encoder_is_in_the_property_tests() -> None:
    """The property tests take their commands from the table, so a new ``fast_encode`` cannot skip them."""
    assert ENCODERS == [cmd for cmd in ALL_COMMANDS if cmd.fast_encode is not None]
    assert {cmd.name for cmd in ENCODERS} == {cmd.name for cmd in ALL_COMMANDS if cmd.fast_encode}
    assert all(cmd.out is not Empty for cmd in ENCODERS)  # those are free without one


@pytest.mark.parametrize("cmd", ENCODERS, ids=lambda cmd: cmd.name)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_fast_encoder_equals_construct(cmd: Command[Any, Any], data: st.DataObject) -> None:
    sizes = data.draw(st.sampled_from(REGULAR_SIZES))
    out = data.draw(for_record(cmd.out, sizes))
    expected = _construct(cmd, out, sizes)
    assert cmd.fast_encode is not None
    assert cmd.fast_encode(out, sizes) == expected  # the fast path itself, not a fallback
    _assert_encodes(cmd, out, sizes, expected)


def _assert_encodes(cmd: Command[Any, Any], out: Any, sizes: IdSizes, expected: bytes) -> None:
    """``encode_out`` writes what the codec writes, or refuses a null ID the spec does not allow (:mod:`nulls`)."""
    if null_field(cmd, out) is not None:
        with pytest.raises(NullIdError):
            cmd.encode_out(out, sizes)
    else:
        assert cmd.encode_out(out, sizes) == expected


@pytest.mark.parametrize("cmd", ENCODERS, ids=lambda cmd: cmd.name)
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_irregular_widths_encode_like_construct(cmd: Command[Any, Any], data: st.DataObject) -> None:
    sizes = data.draw(st.sampled_from(IRREGULAR))
    out = data.draw(for_record(cmd.out, sizes))
    _assert_encodes(cmd, out, sizes, _construct(cmd, out, sizes))


def _spy(cmd: Command[Any, Any]) -> tuple[Command[Any, Any], list[IdSizes]]:
    """A copy of ``cmd`` whose fast encoder records its calls, then defers to the real one."""
    calls: list[IdSizes] = []
    real = cmd.fast_encode
    assert real is not None

    def spy(out: Any, sizes: IdSizes) -> bytes:
        calls.append(sizes)
        return real(out, sizes)

    return dataclasses.replace(cmd, fast_encode=spy), calls


def test_three_byte_object_ids_fall_back_to_construct() -> None:
    sizes = IdSizes(8, 8, 3, 8, 8)
    cmd, calls = _spy(TR.Frames)
    out = FramesOut(0x123456, 2, -1)
    with pytest.raises(IrregularSizes):
        TR.Frames.fast_encode(out, sizes)  # type: ignore[misc]
    assert cmd.encode_out(out, sizes) == bytes.fromhex("123456 00000002 ffffffff".replace(" ", ""))
    assert calls == [sizes]  # tried, raised IrregularSizes, fell back


def test_regular_sizes_use_the_fast_encoder_and_other_input_does_not() -> None:
    cmd, calls = _spy(SF.GetValues)
    out = FrameGetValuesOut(1, 2, [SlotRequest(3, ord("I"))])
    assert cmd.encode_out(out, HOTSPOT) == _construct(SF.GetValues, out, HOTSPOT)
    assert calls == [HOTSPOT]
    mapping = {"thread": 1, "frame": 2, "slots": [{"slot": 3, "sigbyte": ord("I")}]}
    assert cmd.encode_out(mapping, HOTSPOT) == _construct(SF.GetValues, out, HOTSPOT)  # the spec takes mappings
    assert cmd.encode_out(out, HOTSPOT, unused=1) == _construct(SF.GetValues, out, HOTSPOT)  # extra context
    assert calls == [HOTSPOT]


# --- bad out-data: the construct spec's UsageError, word for word ----------------------------------


def _out_of_range(spec: c.Construct, sizes: IdSizes) -> list[int]:
    """Numbers just outside what ``spec`` can hold, or none if it holds no number."""
    if id(spec) in _ID_WIDTHS:
        return [-1, 1 << (8 * getattr(sizes, _ID_WIDTHS[id(spec)]))]
    if isinstance(spec, c.FormatField):
        bits = 8 * struct.calcsize(spec.fmtstr)
        if spec.fmtstr[-1].islower():
            return [-(1 << (bits - 1)) - 1, 1 << (bits - 1)]
        return [-1, 1 << bits]
    return []


def _bad_versions(out: Any, sizes: IdSizes) -> list[Any]:
    """``out`` with one field (or one list element's field) made unencodable, in every way that applies."""
    bad: list[Any] = []
    for f in dataclasses.fields(out):
        spec = f.metadata["wire"]
        bad.append(dataclasses.replace(out, **{f.name: None}))
        bad.extend(dataclasses.replace(out, **{f.name: n}) for n in _out_of_range(spec, sizes))
        bad.append(dataclasses.replace(out, **{f.name: 1.5}))
        items = getattr(out, f.name)
        if isinstance(items, list) and items:
            bad.append(dataclasses.replace(out, **{f.name: [*items, None]}))
            if dataclasses.is_dataclass(items[0]):
                bad.extend(dataclasses.replace(out, **{f.name: [*items[:-1], worse]})
                           for worse in _bad_versions(items[-1], sizes))
            else:
                element = spec.subcon.subcons[1].subcon.subcon  # counted(): a list of PrefixedArray's elements
                bad.extend(dataclasses.replace(out, **{f.name: [*items[:-1], n]})
                           for n in _out_of_range(element, sizes))
    return bad


@pytest.mark.parametrize("cmd", ENCODERS, ids=lambda cmd: cmd.name)
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_bad_out_data_is_the_same_usage_error(cmd: Command[Any, Any], data: st.DataObject) -> None:
    sizes = data.draw(st.sampled_from(REGULAR_SIZES))
    out = data.draw(for_record(cmd.out, sizes))
    assume(null_field(cmd, out) is None)  # else refused for its null ID before any encoding (:mod:`nulls`)
    bad_versions = _bad_versions(out, sizes)
    assert bad_versions
    for bad in bad_versions:
        message = _error(cmd.encode_out, bad, sizes)
        assert message.startswith(f"{cmd.name}: cannot encode ")
        assert message == _error(_construct, cmd, bad, sizes)


def test_a_none_and_an_overflowing_id_name_the_command() -> None:
    none = FramesOut(None, 0, -1)  # type: ignore[arg-type]
    assert _error(TR.Frames.encode_out, none, HOTSPOT).startswith("ThreadReference.Frames: cannot encode")
    message = _error(TR.Frames.encode_out, FramesOut(1 << 32, 0, -1), SMALL)  # SMALL: 4-byte object IDs
    assert message.startswith("ThreadReference.Frames: cannot encode") and "width 4" in message
    assert _error(TR.Frames.encode_out, FramesOut(1, 1 << 31, -1), HOTSPOT).startswith("ThreadReference.Frames")


def test_another_record_with_the_same_fields_is_refused() -> None:
    """The spec takes its own record class (or a mapping) only; the fast path must not take look-alikes."""
    assert "expected ThreadOut, got FrameOut" in _error(TR.Name.encode_out, FrameOut(1, 2), HOTSPOT)

    @dataclasses.dataclass(frozen=True)
    class LooksLikeASlot:
        slot: int
        sigbyte: int

    out = FrameGetValuesOut(1, 2, [LooksLikeASlot(3, ord("I"))])  # type: ignore[list-item]
    message = _error(SF.GetValues.encode_out, out, HOTSPOT)
    assert "expected SlotRequest, got LooksLikeASlot" in message
    assert message == _error(_construct, SF.GetValues, out, HOTSPOT)


# --- empty out-data is free --------------------------------------------------------------------------

EMPTY_OUT = [cmd for cmd in ALL_COMMANDS if cmd.out is Empty]


@pytest.mark.parametrize("cmd", EMPTY_OUT, ids=lambda cmd: cmd.name)
def test_empty_out_data_skips_construct(cmd: Command[Any, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    assert _construct(cmd, Empty(), None) == b""

    def no_construct(*args: Any, **kwargs: Any) -> bytes:
        raise AssertionError("construct was called")

    monkeypatch.setattr(_base, "encode", no_construct)
    assert cmd.encode_out(Empty(), None) == b""
    assert cmd.encode_out(Empty(), HOTSPOT) == b""


def test_empty_commands_still_refuse_other_records() -> None:
    assert "expected Empty, got ThreadOut" in _error(VM.Resume.encode_out, ThreadOut(1), HOTSPOT)
    assert VM.Resume.encode_out({}, HOTSPOT) == b""  # the spec takes a mapping
    assert _error(TR.Resume.encode_out, Empty(), HOTSPOT).startswith("ThreadReference.Resume: cannot encode")
