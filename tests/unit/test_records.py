"""``@record``, ``TaggedUnion``, ``IdSizes`` and ``Location``; hypothesis round-trips over every record.

The round-trip property covers every out and reply record of the command table, each drawn from a
strategy derived from its fields' wire specs (``strategies.for_record``), under several ID widths:
HotSpot's 8 bytes, ART's 4-byte method/field IDs, small regular widths and odd widths (3, 5, 6, 7).
"""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar

import construct as c
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import HOTSPOT, SIZES, for_record_with_context

from jdwp.protocol.commands import ALL_COMMANDS
from jdwp.protocol.commands._base import decode, encode
from jdwp.protocol.errors import NullIdError
from jdwp.protocol.nulls import null_field
from jdwp.protocol.records import TaggedUnion, record, spec_of, variants, wire
from jdwp.protocol.types import HOTSPOT_64, Byte, IdSizes, Int, Location, ObjectIdSpec, String
from jdwp.protocol.values import Value

RECORDS: list[type] = sorted({cls for cmd in ALL_COMMANDS for cls in (cmd.out, cmd.reply)},
                             key=lambda cls: f"{cls.__module__}.{cls.__qualname__}")


@pytest.mark.parametrize("cls", RECORDS, ids=lambda cls: cls.__name__)
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_every_record_round_trips(cls: type, data: st.DataObject) -> None:
    sizes = data.draw(st.sampled_from(SIZES))
    obj, ctx = data.draw(for_record_with_context(cls, sizes))
    spec = spec_of(cls)
    body = encode(spec, obj, sizes, cls.__name__, **ctx)
    back = decode(spec, body, sizes, cls.__name__, **ctx)
    assert back == obj  # decode(encode(x)) == x
    assert encode(spec, back, sizes, cls.__name__, **ctx) == body  # encode(decode(b)) == b
    assert type(back) is cls


@pytest.mark.parametrize("cmd", ALL_COMMANDS, ids=lambda cmd: cmd.name)
@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_every_command_round_trips_through_its_api(cmd: Any, data: st.DataObject) -> None:
    sizes = data.draw(st.sampled_from(SIZES))
    out, ctx = data.draw(for_record_with_context(cmd.out, sizes))
    if cmd.command_set < 64 and null_field(cmd, out) is not None:  # refused before it is sent (:mod:`nulls`)
        with pytest.raises(NullIdError):
            cmd.encode_out(out, sizes)
    else:
        assert cmd.decode_out(cmd.encode_out(out, sizes), sizes, **ctx) == out
    reply, _ = data.draw(for_record_with_context(cmd.reply, sizes))
    assert cmd.decode_reply(cmd.encode_reply(reply, sizes), sizes) == reply


def test_decoded_lists_are_plain_lists() -> None:
    from jdwp.protocol.commands import VirtualMachine as VM

    reply = VM.AllThreads.decode_reply(bytes.fromhex("00000001" + "00" * 7 + "05"), HOTSPOT)
    assert type(reply.threads) is list and reply.threads == [5]


# --- @record ------------------------------------------------------------------------------------


@record
class Pair:
    a: int = wire(Int)
    name: str = wire(String)


def test_record_is_a_frozen_slotted_dataclass_with_a_construct() -> None:
    pair = Pair(1, "x")
    assert dataclasses.is_dataclass(pair)
    assert not hasattr(pair, "__dict__")
    with pytest.raises(dataclasses.FrozenInstanceError):
        pair.a = 2  # type: ignore[misc]
    assert spec_of(Pair).parse(bytes.fromhex("00000001 00000001 78".replace(" ", ""))) == pair
    assert spec_of(Pair).build(pair) == bytes.fromhex("0000000100000001" "78")
    assert Pair(a=1, name="x") == pair and Pair(2, "x") != pair


def test_record_builds_from_a_mapping_and_rejects_other_types() -> None:
    assert spec_of(Pair).build({"a": -1, "name": ""}) == bytes.fromhex("ffffffff00000000")
    with pytest.raises(c.ConstructError, match="expected Pair"):
        spec_of(Pair).build(("a", 1))
    with pytest.raises(KeyError):
        spec_of(Pair).build({"a": 1})


def test_record_rejects_fields_without_a_wire_spec() -> None:
    with pytest.raises(TypeError, match="fields without a wire spec: \\['b'\\]"):
        @record
        class Bad:
            a: int = wire(Int)
            b: int = dataclasses.field(default=0)


def test_nested_records_and_id_widths_from_the_context() -> None:
    @record
    class Holder:
        obj: int = wire(ObjectIdSpec)
        pair: Pair = wire(spec_of(Pair))

    value = Holder(0x0102, Pair(3, ""))
    assert spec_of(Holder).build(value, object_id_size=2) == bytes.fromhex("0102" "00000003" "00000000")
    assert spec_of(Holder).build(value, object_id_size=3) == bytes.fromhex("000102" "00000003" "00000000")
    assert spec_of(Holder).parse(bytes.fromhex("000102" "00000003" "00000000"), object_id_size=3) == value


# --- TaggedUnion ----------------------------------------------------------------------------------


@record
class Small:
    KIND: ClassVar[int] = 1
    x: int = wire(Byte)


@record
class Named:
    KIND: ClassVar[int] = 7
    text: str = wire(String)


@record
class Nothing:
    KIND: ClassVar[int] = 9


UNION = TaggedUnion(Byte, variants(Small, Named, Nothing), "thing")


def test_tagged_union_both_directions() -> None:
    for hexdata, obj in (("01 05", Small(5)), ("07 00000002 6869", Named("hi")), ("09", Nothing())):
        data = bytes.fromhex(hexdata.replace(" ", ""))
        assert UNION.parse(data) == obj
        assert UNION.build(obj) == data
        assert UNION.kind_of(obj) == type(obj).KIND


def test_tagged_union_unknown_kinds() -> None:
    with pytest.raises(c.ConstructError, match="unknown thing kind 2"):
        UNION.parse(b"\x02\x00")
    with pytest.raises(c.ConstructError, match="not a thing: Pair"):
        UNION.build(Pair(1, ""))
    with pytest.raises(c.SizeofError):
        UNION.sizeof()


def test_variants_key_by_kind() -> None:
    assert variants(Small, Named) == {1: Small, 7: Named}


# --- IdSizes and Location -----------------------------------------------------------------------


def test_id_sizes_params_and_check() -> None:
    sizes = IdSizes(4, 4, 8, 8, 8)
    assert sizes.params() == {"field_id_size": 4, "method_id_size": 4, "object_id_size": 8,
                              "reference_type_id_size": 8, "frame_id_size": 8}
    sizes.check()
    HOTSPOT_64.check()
    assert HOTSPOT_64 == IdSizes(8, 8, 8, 8, 8) == HOTSPOT
    assert hash(HOTSPOT_64) == hash(IdSizes(8, 8, 8, 8, 8))
    for bad in (IdSizes(0, 8, 8, 8, 8), IdSizes(8, 8, 9, 8, 8), IdSizes(8, 8, 8, 8, -1)):
        with pytest.raises(ValueError, match=r"outside 1\.\.8"):
            bad.check()


def test_id_sizes_is_the_idsizes_reply_in_spec_order() -> None:
    # fieldIDSize, methodIDSize, objectIDSize, referenceTypeIDSize, frameIDSize
    data = bytes.fromhex("00000001 00000002 00000003 00000004 00000005".replace(" ", ""))
    assert spec_of(IdSizes).parse(data) == IdSizes(1, 2, 3, 4, 5)


def test_location_layout_and_tag() -> None:
    loc = Location(2, 0x10, 0x20, 2**64 - 1)
    data = bytes.fromhex("02" "0010" "00000020" "ffffffffffffffff")
    params = dict(HOTSPOT.params(), reference_type_id_size=2, method_id_size=4)
    assert spec_of(Location).parse(data, **params) == loc  # the index is unsigned
    assert spec_of(Location).build(loc, **params) == data
    assert loc.tag.name == "INTERFACE"


def test_values_in_records_compare_by_tag_and_value() -> None:
    from jdwp.protocol.constants import Tag

    assert Value(Tag.INT, 1) == Value(Tag.INT, 1) != Value(Tag.LONG, 1)
