"""JDWP strings: standard UTF-8, the JVM's modified UTF-8, and byte-identical re-encoding.

HotSpot converts modified UTF-8 to standard UTF-8 before sending; another VM may send it unconverted
(``C0 80`` for NUL, a non-BMP character as two 3-byte surrogates). Both decode to the same text, and a
string decoded from non-standard bytes re-encodes to exactly those bytes.
"""

from __future__ import annotations

import re

import construct as c
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jdwp.protocol.strings import WireString, decode_string, encode_modified_utf8, encode_string
from jdwp.protocol.types import String

# (wire bytes, decoded text, decoded text is a WireString?)
CASES: list[tuple[str, str, bool]] = [
    ("", "", False),
    ("616263", "abc", False),
    ("610062", "a\x00b", False),  # embedded NUL, standard UTF-8
    ("c080", "\x00", True),  # modified UTF-8 NUL
    ("61c08062", "a\x00b", True),
    ("c3a9", "é", False),
    ("e282ac", "€", False),
    ("f09f9880", "😀", False),  # U+1F600, standard 4-byte UTF-8
    ("eda0bdedb880", "😀", True),  # U+1F600 as a surrogate pair (CESU-8 / modified UTF-8)
    ("78eda0bdedb88079", "x😀y", True),
    ("eda080", "\ud800", True),  # a lone high surrogate: a Java string may hold one
    ("edbfbf", "\udfff", True),  # a lone low surrogate
    ("edb880eda0bd", "\ude00\ud83d", True),  # low then high: not a pair, stays two code units
    ("c080eda0bdedb880", "\x00😀", True),
]


@pytest.mark.parametrize(("hexdata", "text", "is_wire"), CASES, ids=[c[0] or "empty" for c in CASES])
def test_decode_and_re_encode_byte_identically(hexdata: str, text: str, is_wire: bool) -> None:
    data = bytes.fromhex(hexdata)
    decoded = decode_string(data)
    assert decoded == text
    assert isinstance(decoded, WireString) == is_wire
    assert encode_string(decoded) == data
    framed = len(data).to_bytes(4, "big") + data
    assert String.parse(framed) == text
    assert String.build(String.parse(framed)) == framed


def test_plain_text_encodes_as_standard_utf8() -> None:
    assert encode_string("a\x00b") == b"a\x00b"
    assert encode_string("😀") == bytes.fromhex("f09f9880")
    assert encode_string("\ud800") == bytes.fromhex("eda080")  # surrogatepass: what a JVM would send
    assert String.build("hé") == bytes.fromhex("00000003 68c3a9".replace(" ", ""))


def test_undecodable_bytes_stay_visible_and_round_trip() -> None:
    decoded = decode_string(b"a\xffb")
    assert decoded == "a\\xffb"
    assert encode_string(decoded) == b"a\xffb"


def test_wire_string_is_a_str() -> None:
    s = decode_string(bytes.fromhex("c080"))
    assert isinstance(s, str) and s == "\x00" and hash(s) == hash("\x00")
    assert s.wire == b"\xc0\x80"
    assert {s: 1}["\x00"] == 1
    assert str(s) + "x" == "\x00x"
    assert encode_string(str(s)) == b"\x00"  # a plain copy forgets the wire form


def test_encode_modified_utf8() -> None:
    assert encode_modified_utf8("") == b""
    assert encode_modified_utf8("a") == b"a"
    assert encode_modified_utf8("\x00") == bytes.fromhex("c080")
    assert encode_modified_utf8("é") == bytes.fromhex("c3a9")
    assert encode_modified_utf8("😀") == bytes.fromhex("eda0bdedb880")
    assert encode_modified_utf8("\ud800") == bytes.fromhex("eda080")


def test_string_construct_errors() -> None:
    with pytest.raises(c.ConstructError, match="negative string length"):
        String.parse(bytes.fromhex("ffffffff"))
    with pytest.raises(c.StreamError):
        String.parse(bytes.fromhex("7fffffff 61".replace(" ", "")))  # fails fast, allocates nothing big
    with pytest.raises(c.StreamError):
        String.parse(b"\x00\x00")
    with pytest.raises(c.ConstructError, match="expected str"):
        String.build(b"bytes")
    with pytest.raises(c.SizeofError):
        String.sizeof()


_PAIR = re.compile("[\ud800-\udbff][\udc00-\udfff]")


def _joined(text: str) -> str:
    """What a Java string's UTF-16 reads as in Python: adjacent surrogate pairs are one character."""
    return _PAIR.sub(lambda m: m.group().encode("utf-16-le", "surrogatepass").decode("utf-16-le"), text)


@settings(max_examples=150, deadline=None)
@given(st.text())
def test_standard_text_round_trips_both_encodings(text: str) -> None:
    standard = encode_string(text)
    assert decode_string(standard) == text
    assert type(decode_string(standard)) is str  # nothing to remember
    modified = encode_modified_utf8(text)
    assert decode_string(modified) == text
    assert encode_string(decode_string(modified)) == modified


@settings(max_examples=150, deadline=None)
@given(st.text(st.characters(codec=None, categories=None), max_size=12)
       | st.lists(st.sampled_from(["a", "\x00", "\ud800", "\udc00", "\udbff", "\udfff", "😀", "é"]))
       .map("".join))
def test_any_java_string_round_trips_byte_identically(text: str) -> None:
    """Lone surrogates included: bytes always survive; text survives up to joining adjacent pairs."""
    for data in (encode_string(text), encode_modified_utf8(text)):
        decoded = decode_string(data)
        assert decoded == _joined(text)
        assert encode_string(decoded) == data


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=24))
def test_any_bytes_decode_and_re_encode_identically(data: bytes) -> None:
    assert encode_string(decode_string(data)) == data
