"""set_value's checks of a literal against a declared primitive type (no VM: :func:`.mutation._primitive`);
the rest (objects, strings, the writes) is in tests/live/test_set_value_live.py."""

from __future__ import annotations

import pytest

from jdwp.debugger import InvalidArgument
from jdwp.debugger.reading.expressions import parse_expression
from jdwp.debugger.reading.mutation import _primitive
from jdwp.protocol.constants import Tag


def primitive(text: str, code: str):  # type: ignore[no-untyped-def]
    literal = parse_expression(text)
    return _primitive(literal, code, "local x")  # type: ignore[arg-type]


@pytest.mark.parametrize(("text", "code", "tag", "value"), [
    ("127", "B", Tag.BYTE, 127), ("-128", "B", Tag.BYTE, -128), ("-32768", "S", Tag.SHORT, -32768),
    ("'c'", "C", Tag.CHAR, "c"), ("65", "C", Tag.CHAR, "A"), ("'c'", "I", Tag.INT, 99),
    ("-1L", "J", Tag.LONG, -1), ("9223372036854775807L", "J", Tag.LONG, (1 << 63) - 1), ("100", "J", Tag.LONG, 100),
    ("2.5f", "F", Tag.FLOAT, 2.5), ("2.5", "F", Tag.FLOAT, 2.5), ("3", "D", Tag.DOUBLE, 3.0),
    ("true", "Z", Tag.BOOLEAN, True),
])
def test_literals_that_fit(text: str, code: str, tag: Tag, value: object) -> None:
    made = primitive(text, code)
    assert (made.tag, made.value) == (tag, value)


@pytest.mark.parametrize(("text", "code", "why"), [
    ("128", "B", "out of range"), ("-129", "B", "out of range"), ("65536", "C", "out of range"),
    ("-1", "C", "out of range"), ("2147483648L", "I", "out of range"), ("2.5", "I", "not an integer"),
    ("1", "Z", "true or false"), ("true", "I", "cannot be stored"), ('"x"', "J", "cannot be stored"),
    ("null", "D", "cannot be stored"), ("1e39", "F", "out of range"),
])
def test_literals_that_do_not(text: str, code: str, why: str) -> None:
    with pytest.raises(InvalidArgument, match=why):
        primitive(text, code)
