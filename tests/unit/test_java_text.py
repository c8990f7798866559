"""How the engine shows values: Java's String.length() and cuts, Java's printing of primitives."""

from __future__ import annotations

import struct

import pytest

from jdwp.debugger.inspect import java_prefix
from jdwp.debugger.names import java_text, type_name
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
