"""Java's numeric semantics on Python numbers (JLS §5.6 promotion, §15.17 multiplicative, §15.18 additive).

Layer: ``jdwp.debugger.reading.expressions``; pure. Values are tagged :class:`Value` primitives; ``int`` and
``long`` results wrap to their width, ``float`` results are rounded to binary32 after every operation,
integer division truncates toward zero and its remainder takes the dividend's sign; floating remainder
is C's ``fmod``. Integer division by zero is the caller's error to report (Java throws
``ArithmeticException``); floating division by zero is IEEE's infinity or NaN.
"""

from __future__ import annotations

import math
import struct

from ....protocol.constants import Tag
from ....protocol.values import Value

NUMERIC = frozenset({Tag.BYTE, Tag.SHORT, Tag.CHAR, Tag.INT, Tag.LONG, Tag.FLOAT, Tag.DOUBLE})
INTEGRAL = frozenset({Tag.BYTE, Tag.SHORT, Tag.CHAR, Tag.INT, Tag.LONG})
_RANK = {Tag.INT: 0, Tag.LONG: 1, Tag.FLOAT: 2, Tag.DOUBLE: 3}


class IntegerDivisionByZero(ArithmeticError):
    """``/`` or ``%`` of integers by zero."""


def number(value: Value) -> int | float:
    """The numeric value of a numeric primitive (a char is its UTF-16 code unit)."""
    raw = value.value
    if value.tag == Tag.CHAR:
        return ord(str(raw))
    if isinstance(raw, bool) or not isinstance(raw, int | float):
        raise TypeError(f"{value.tag!r} is not numeric")
    return raw


def unary_promoted(tag: Tag) -> Tag:
    return tag if tag in _RANK else Tag.INT


def binary_promoted(left: Tag, right: Tag) -> Tag:
    """JLS §5.6.2: double, else float, else long, else int."""
    a, b = unary_promoted(left), unary_promoted(right)
    return a if _RANK[a] >= _RANK[b] else b


def make(tag: Tag, raw: int | float) -> Value:
    """``raw`` as a value of ``tag`` (one of int, long, float, double), wrapped or rounded as Java does."""
    if tag == Tag.INT:
        return Value(tag, _wrap(int(raw), 32))
    if tag == Tag.LONG:
        return Value(tag, _wrap(int(raw), 64))
    if tag == Tag.FLOAT:
        return Value(tag, to_float32(float(raw)))
    return Value(tag, float(raw))


def to_float32(x: float) -> float:
    if math.isnan(x) or math.isinf(x):
        return x
    try:
        return float(struct.unpack(">f", struct.pack(">f", x))[0])
    except OverflowError:  # beyond binary32's range: Java rounds to infinity
        return math.copysign(math.inf, x)


def _wrap(x: int, bits: int) -> int:
    half = 1 << (bits - 1)
    return ((x + half) % (1 << bits)) - half


def negate(value: Value) -> Value:
    tag = unary_promoted(value.tag)
    return make(tag, -number(value))


def arithmetic(op: str, left: Value, right: Value) -> Value:
    """``left op right`` for ``* / % + -`` on numeric values.

    Raises:
        IntegerDivisionByZero: integral ``/`` or ``%`` by zero.
    """
    tag = binary_promoted(left.tag, right.tag)
    a, b = number(left), number(right)
    if tag in (Tag.INT, Tag.LONG):
        a, b = int(a), int(b)
        if op in ("/", "%"):
            if b == 0:
                raise IntegerDivisionByZero("division by zero")
            quotient = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)
            return make(tag, quotient if op == "/" else a - b * quotient)
        return make(tag, a * b if op == "*" else a + b if op == "+" else a - b)
    x, y = float(a), float(b)
    if tag == Tag.FLOAT:
        x, y = to_float32(x), to_float32(y)
    if op == "*":
        result = x * y
    elif op == "+":
        result = x + y
    elif op == "-":
        result = x - y
    elif op == "/":
        result = _divide(x, y)
    else:
        result = _remainder(x, y)
    return make(tag, result)


def _divide(x: float, y: float) -> float:
    if y != 0:
        return x / y
    if x == 0 or math.isnan(x):
        return math.nan
    return math.copysign(math.inf, x) * math.copysign(1.0, y)


def _remainder(x: float, y: float) -> float:
    if math.isnan(x) or math.isnan(y) or math.isinf(x) or y == 0:
        return math.nan
    if math.isinf(y):
        return x
    return math.fmod(x, y)


def compare(op: str, left: Value, right: Value) -> bool:
    """``< <= > >= == !=`` on numeric values after binary promotion (NaN compares false, except ``!=``)."""
    tag = binary_promoted(left.tag, right.tag)
    a, b = number(left), number(right)
    if tag == Tag.FLOAT:
        a, b = to_float32(float(a)), to_float32(float(b))
    elif tag == Tag.DOUBLE:
        a, b = float(a), float(b)
    if op == "<":
        return a < b
    if op == "<=":
        return a <= b
    if op == ">":
        return a > b
    if op == ">=":
        return a >= b
    if op == "==":
        return a == b
    return a != b
