"""How the engine shows values: Java's String.length() and cuts, Java's printing of primitives, and the
1024-unit bound every record puts on the names a VM supplies."""

from __future__ import annotations

import dataclasses
import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jdwp.debugger.model import MAX_NAME, BoundLocation, Frame, Local, Reason, SourcePosition, Stop, Terminated
from jdwp.debugger.names import java_length, java_prefix, java_text, type_name
from jdwp.protocol.constants import Tag


@pytest.mark.parametrize(("text", "limit", "expected"), [
    ("abc", 256, ("abc", 3)),
    ("\U0001F600", 256, ("\U0001F600", 2)),
    ("a" * 300, 256, ("a" * 256, 300)),
    ("a" * 255 + "\U0001F600", 256, ("a" * 255, 257)),  # the cut falls inside the pair: it is dropped
    ("a" * 255 + "\U0001F600" + "b", 256, ("a" * 255, 258)),
    ("a" * 256 + "\U0001F600", 256, ("a" * 256, 258)),
    ("x\ud800y", 2, ("x\ud800", 3)),
])
def test_java_prefix(text: str, limit: int, expected: tuple[str, int]) -> None:
    assert java_prefix(text, limit) == expected


java_texts = st.lists(st.sampled_from(["a", "é", "\x00", "\U0001F600", "\ud83d", "\ude00", "\ud800", "\udfff"]),
                      max_size=40).map("".join) | st.text(max_size=40)


@given(java_texts, st.integers(min_value=1, max_value=45))
def test_java_prefix_is_the_head_of_the_utf16_units(text: str, limit: int) -> None:
    units = text.encode("utf-16-be", "surrogatepass")
    shown, length = java_prefix(text, limit)
    assert length == java_length(text) == len(units) // 2
    head = shown.encode("utf-16-be", "surrogatepass")
    assert units.startswith(head) and len(head) // 2 in ((min(limit, length)), limit - 1)


def test_a_million_unit_thread_name_is_cut_by_the_stop_itself() -> None:
    position = SourcePosition("C", "m", None, 3, 0)
    stop = Stop("stop-1", ("breakpoint",), "stop-1.t1", "t" * 1_000_000, position, ())
    assert stop.thread_name == "t" * MAX_NAME and stop.truncated_names == ("thread_name",)
    same = dataclasses.replace(stop, stop_id="stop-2")  # rebuilding a cut record keeps its signal
    assert same.truncated_names == ("thread_name",)
    assert Stop("stop-1", ("step",), "stop-1.t1", "x" * MAX_NAME, position, ()).truncated_names == ()


def test_names_cut_at_1024_units_never_split_a_pair() -> None:
    name = "a" * (MAX_NAME - 1) + "\U0001F600" + "b"
    position = SourcePosition(name, "\ud800" * 2000, "S" * 600, None, -1)
    assert position.class_name == "a" * (MAX_NAME - 1) and position.method == "\ud800" * MAX_NAME
    assert position.source == "S" * 600 and position.truncated_names == ("class_name", "method")
    assert SourcePosition("\U0001F600" * 512, "m", None, 1, 0).truncated_names == ()  # exactly 1024 units


@pytest.mark.parametrize(("record", "fields"), [
    (Frame("f", 0, "c" * 2000, "m", "s" * 2000, None, 0), ("class_name", "source")),
    (BoundLocation("c", "m" * 2000, None, 1, 0, "0x1"), ("method",)),
    (Local("n" * 2000, "T" * 2000, "primitive", "1"), ("name", "type")),
    (Reason("DEBUGGER_LOCATION_UNAVAILABLE", "r" * 2000), ("message",)),
    (Terminated("failed", "x" * 2000), ("message",)),
])
def test_every_record_with_names_bounds_them(record: object, fields: tuple[str, ...]) -> None:
    assert record.truncated_names == fields  # type: ignore[attr-defined]
    assert all(java_length(getattr(record, f)) == MAX_NAME for f in fields)


@pytest.mark.parametrize(("tag", "value", "text"), [
    (Tag.DOUBLE, 0.1, "0.1"), (Tag.DOUBLE, 1e7, "1.0E7"), (Tag.DOUBLE, 9999999.0, "9999999.0"),
    (Tag.DOUBLE, 1e-3, "0.001"), (Tag.DOUBLE, 1e-4, "1.0E-4"), (Tag.DOUBLE, -0.0, "-0.0"),
    (Tag.DOUBLE, float("nan"), "NaN"), (Tag.DOUBLE, float("-inf"), "-Infinity"), (Tag.DOUBLE, 5e-324, "4.9E-324"),
    (Tag.FLOAT, struct.unpack(">f", struct.pack(">f", 0.1))[0], "0.1"),
    (Tag.FLOAT, struct.unpack(">f", struct.pack(">f", 3.4028235e38))[0], "3.4028235E38"),
    (Tag.BOOLEAN, True, "true"), (Tag.CHAR, "Z", "Z"), (Tag.LONG, (1 << 63) - 1, "9223372036854775807"),
    (Tag.BYTE, -128, "-128"),
])
def test_java_text(tag: Tag, value: object, text: str) -> None:
    assert java_text(tag, value) == text


def test_type_names() -> None:
    assert type_name("[[I") == "int[][]"
    assert type_name("Ljava/util/Map$Entry;") == "java.util.Map$Entry"
