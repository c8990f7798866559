"""Tagged and untagged values, tagged object IDs and array regions (spec "Data Types")."""

from __future__ import annotations

import math
import struct
from typing import Any

import construct as c
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import HOTSPOT, OBJECT_TAG_LIST, VALUE_TAGS, array_region, raw_value

from jdwp.protocol.constants import Tag
from jdwp.protocol.types import IdSizes
from jdwp.protocol.values import (
    ArrayRegion,
    ArrayRegionSpec,
    TaggedObjectId,
    TaggedValue,
    Value,
    read_array_region,
    read_tagged,
    read_value,
    tag_of,
    write_array_region,
    write_value,
)

OID8 = {"object_id_size": 8}

# Every tag: its tagged value on the wire (tag byte, then the value; object IDs 8 bytes), and the Value.
TAGGED: list[tuple[str, Value]] = [
    ("42 ff", Value(Tag.BYTE, -1)),
    ("43 00e9", Value(Tag.CHAR, "é")),
    ("43 d83d", Value(Tag.CHAR, "\ud83d")),  # one UTF-16 code unit, possibly half a pair
    ("46 3fc00000", Value(Tag.FLOAT, 1.5)),
    ("46 80000000", Value(Tag.FLOAT, -0.0)),
    ("44 400921fb54442d18", Value(Tag.DOUBLE, math.pi)),
    ("44 fff0000000000000", Value(Tag.DOUBLE, float("-inf"))),
    ("49 80000000", Value(Tag.INT, -(2**31))),
    ("4a 7fffffffffffffff", Value(Tag.LONG, 2**63 - 1)),
    ("53 7fff", Value(Tag.SHORT, 32767)),
    ("5a 01", Value(Tag.BOOLEAN, True)),
    ("5a 00", Value(Tag.BOOLEAN, False)),
    ("56", Value(Tag.VOID, None)),
    ("4c 0000000000001001", Value(Tag.OBJECT, 0x1001)),
    ("5b 0000000000001003", Value(Tag.ARRAY, 0x1003)),
    ("73 0000000000001006", Value(Tag.STRING, 0x1006)),
    ("74 0000000000000101", Value(Tag.THREAD, 0x101)),
    ("67 0000000000000201", Value(Tag.THREAD_GROUP, 0x201)),
    ("6c 0000000000001010", Value(Tag.CLASS_LOADER, 0x1010)),
    ("63 ffffffffffffffff", Value(Tag.CLASS_OBJECT, 2**64 - 1)),  # IDs are unsigned
]


def unhex(text: str) -> bytes:
    return bytes.fromhex(text.replace(" ", ""))


def test_the_table_covers_every_tag() -> None:
    assert {value.tag for _, value in TAGGED} == set(Tag)


@pytest.mark.parametrize(("hexdata", "value"), TAGGED, ids=lambda x: x.tag.name if isinstance(x, Value) else x)
def test_tagged_value(hexdata: str, value: Value) -> None:
    data = unhex(hexdata)
    assert TaggedValue.parse(data, **OID8) == value
    assert TaggedValue.build(value, **OID8) == data
    assert read_tagged(data, 0, 8) == (value, len(data))
    assert bytes([value.tag]) + write_value(value.tag, value.value, 8) == data
    if value.tag == Tag.FLOAT and value.value == 0:
        assert math.copysign(1, TaggedValue.parse(data, **OID8).value) == -1  # -0.0 survives


@pytest.mark.parametrize(("hexdata", "value"), [(h, v) for h, v in TAGGED if v.is_object],
                         ids=lambda x: x.tag.name if isinstance(x, Value) else x)
def test_tagged_object_id(hexdata: str, value: Value) -> None:
    assert TaggedObjectId.parse(unhex(hexdata), **OID8) == value
    assert TaggedObjectId.build(value, **OID8) == unhex(hexdata)


@pytest.mark.parametrize("hexdata", ["49 00000001", "56", "5a 01"])
def test_tagged_object_id_rejects_primitive_tags(hexdata: str) -> None:
    with pytest.raises(c.ConstructError, match="not an object tag"):
        TaggedObjectId.parse(unhex(hexdata), **OID8)


def test_object_ids_take_the_context_width() -> None:
    for size in range(1, 9):
        top = (1 << (8 * size)) - 1  # the largest ID of that width: all 0xff
        data = bytes([Tag.THREAD]) + b"\xff" * size
        expected = Value(Tag.THREAD, top)
        assert TaggedValue.parse(data, object_id_size=size) == expected
        assert TaggedValue.build(expected, object_id_size=size) == data


def test_unknown_and_truncated_tags() -> None:
    with pytest.raises(ValueError, match=r"unknown value tag 88 \('X'\)"):
        tag_of(ord("X"))
    with pytest.raises(ValueError, match=r"unknown value tag 0$"):
        tag_of(0)
    with pytest.raises(ValueError):
        TaggedValue.parse(b"X\x00", **OID8)
    for data in (b"", b"I\x00\x00\x00", b"L\x00", b"D"):
        with pytest.raises((ValueError, c.ConstructError)):
            TaggedValue.parse(data, **OID8)
        with pytest.raises(ValueError):
            read_tagged(data, 0, 8)


def test_write_value_rejects_what_the_tag_cannot_hold() -> None:
    for tag, bad in ((Tag.CHAR, "ab"), (Tag.CHAR, "😀"), (Tag.CHAR, 65), (Tag.OBJECT, -1), (Tag.STRING, "x")):
        with pytest.raises(ValueError):
            write_value(tag, bad, 8)
    with pytest.raises(ValueError, match="unknown value tag"):
        write_value(ord("X"), 1, 8)
    with pytest.raises(struct.error):
        write_value(Tag.BYTE, 128, 8)
    with pytest.raises(OverflowError):
        write_value(Tag.OBJECT, 2**64, 8)
    with pytest.raises(OverflowError):
        write_value(Tag.FLOAT, 1e300, 8)  # a double that no float holds


def test_float_values_are_32_bit() -> None:
    # 0.1 is not a float32: it goes out rounded and comes back as the float32 value.
    data = write_value(Tag.FLOAT, 0.1, 8)
    assert data == unhex("3dcccccd")
    assert read_value(data, 0, Tag.FLOAT, 8)[0] == struct.unpack(">f", data)[0] != 0.1
    nan = read_value(unhex("7fc00000"), 0, Tag.FLOAT, 8)[0]
    assert math.isnan(nan) and write_value(Tag.FLOAT, nan, 8) == unhex("7fc00000")  # compare NaN by bytes


def test_booleans_accept_any_non_zero_byte() -> None:
    assert TaggedValue.parse(unhex("5a 02"), **OID8) == Value(Tag.BOOLEAN, True)
    assert read_value(b"\xff", 0, Tag.BOOLEAN, 8) == (True, 1)


def test_value_helpers() -> None:
    assert Value.null() == Value(Tag.OBJECT, 0)
    assert Value.null().is_null and Value.null().is_object
    assert Value(Tag.STRING, 0).is_null
    assert not Value(Tag.STRING, 5).is_null
    assert not Value(Tag.INT, 0).is_null and not Value(Tag.INT, 0).is_object
    assert Tag.THREAD.is_object and not Tag.VOID.is_object


def test_tag_for_signature() -> None:
    assert Tag.for_signature("I") is Tag.INT
    assert Tag.for_signature("J") is Tag.LONG
    assert Tag.for_signature("Z") is Tag.BOOLEAN
    assert Tag.for_signature("Ljava/lang/String;") is Tag.OBJECT
    assert Tag.for_signature("[I") is Tag.ARRAY
    assert Tag.for_signature("V") is Tag.VOID
    with pytest.raises(ValueError, match="empty"):
        Tag.for_signature("")
    with pytest.raises(ValueError):
        Tag.for_signature("Q")


# --- array regions -------------------------------------------------------------------------------


def test_array_region_reads_from_an_offset_and_gives_back_the_rest() -> None:
    data = unhex("ffff 49 00000002 00000001 00000002 aa")
    region, end = read_array_region(data, 2, 8)
    assert region == ArrayRegion(Tag.INT, [1, 2]) and end == len(data) - 1
    # the construct leaves the trailing byte in the stream for whatever follows
    spec = c.Struct("region" / ArrayRegionSpec, "tail" / c.Byte)
    parsed = spec.parse(data[2:], **OID8)
    assert parsed.region == region and parsed.tail == 0xAA


def test_array_region_errors() -> None:
    for hexdata in ("49 0000", "49 ffffffff", "49 00000001 0000", "56 00000001", "4c 00000001 49", "4c 00000002 4c"):
        with pytest.raises(ValueError):
            read_array_region(unhex(hexdata), 0, 8)


def test_object_region_elements_keep_their_own_tags() -> None:
    region = ArrayRegion(Tag.OBJECT, [Value(Tag.STRING, 1), Value(Tag.THREAD, 2), Value(Tag.OBJECT, 0)])
    data = write_array_region(region, 4)
    assert data == unhex("4c 00000003 73 00000001 74 00000002 4c 00000000")
    assert read_array_region(data, 0, 4) == (region, len(data))


@settings(max_examples=120, deadline=None)
@given(st.integers(1, 8).flatmap(lambda size: st.tuples(
    st.just(size), st.sampled_from(VALUE_TAGS).flatmap(
        lambda tag: raw_value(tag, IdSizes(8, 8, size, 8, 8)).map(lambda raw: Value(tag, raw))))))
def test_any_tagged_value_round_trips(pair: tuple[int, Value]) -> None:
    size, value = pair
    data = TaggedValue.build(value, object_id_size=size)
    assert TaggedValue.parse(data, object_id_size=size) == value
    assert read_tagged(data, 0, size) == (value, len(data))
    assert TaggedValue.build(TaggedValue.parse(data, object_id_size=size), object_id_size=size) == data


@settings(max_examples=80, deadline=None)
@given(array_region(HOTSPOT))
def test_any_array_region_round_trips(region: ArrayRegion) -> None:
    data = write_array_region(region, 8)
    assert ArrayRegionSpec.build(region, **OID8) == data
    assert read_array_region(data, 0, 8) == (region, len(data))
    assert ArrayRegionSpec.parse(data, **OID8) == region


@settings(max_examples=80, deadline=None)
@given(st.binary(max_size=40))
def test_random_bytes_raise_only_value_errors(data: bytes) -> None:
    for reader in (lambda: read_tagged(data, 0, 8), lambda: read_array_region(data, 0, 8)):
        try:
            reader()
        except ValueError:
            pass


def test_object_tag_list_is_every_object_tag() -> None:
    expected: set[Any] = {Tag.ARRAY, Tag.OBJECT, Tag.STRING, Tag.THREAD, Tag.THREAD_GROUP, Tag.CLASS_LOADER,
                          Tag.CLASS_OBJECT}
    assert set(OBJECT_TAG_LIST) == expected
