"""Java's numeric semantics of the evaluator (JLS §5.6, §15.17, §15.18) on tagged values, without a VM."""

from __future__ import annotations

import math

import pytest

from jdwp.debugger.reading.expressions import arithmetic as num
from jdwp.protocol.constants import Tag
from jdwp.protocol.values import Value


def i32(x: int) -> Value:
    return Value(Tag.INT, x)


def i64(x: int) -> Value:
    return Value(Tag.LONG, x)


def f32(x: float) -> Value:
    return Value(Tag.FLOAT, x)


def f64(x: float) -> Value:
    return Value(Tag.DOUBLE, x)


MIN_INT, MIN_LONG = -(2**31), -(2**63)


@pytest.mark.parametrize(
    ("op", "left", "right", "result"),
    [
        ("+", i32(2**31 - 1), i32(1), i32(MIN_INT)),
        ("*", i32(65536), i32(65536), i32(0)),
        ("/", i32(MIN_INT), i32(-1), i32(MIN_INT)),
        ("%", i32(MIN_INT), i32(-1), i32(0)),
        ("/", i32(-7), i32(2), i32(-3)),
        ("%", i32(-7), i32(2), i32(-1)),
        ("%", i32(7), i32(-2), i32(1)),
        ("+", i32(1), i64(2**63 - 1), i64(MIN_LONG)),
        ("/", i64(MIN_LONG), i64(-1), i64(MIN_LONG)),
        ("+", Value(Tag.CHAR, "a"), i32(1), i32(98)),
        ("+", Value(Tag.BYTE, -1), Value(Tag.SHORT, 2), i32(1)),
        ("+", f32(0.1), f32(0.2), f32(num.to_float32(num.to_float32(0.1) + num.to_float32(0.2)))),
        ("*", f32(3.4e38), f32(10.0), f32(math.inf)),
        ("+", i32(1), f32(0.5), f32(1.5)),
        ("+", i64(1), f64(0.5), f64(1.5)),
        ("/", f64(1.0), i32(0), f64(math.inf)),
        ("/", f64(-1.0), i32(0), f64(-math.inf)),
        ("/", f64(1.0), f64(-0.0), f64(-math.inf)),
        ("%", f64(5.5), f64(2.0), f64(1.5)),
        ("%", f64(-5.5), f64(2.0), f64(-1.5)),
        ("%", f64(1.0), f64(math.inf), f64(1.0)),
    ],
)
def test_arithmetic_follows_java(op: str, left: Value, right: Value, result: Value) -> None:
    assert num.arithmetic(op, left, right) == result


def test_nan_results_and_comparisons() -> None:
    for op, left, right in [("/", f64(0.0), f64(0.0)), ("%", f64(1.0), f64(0.0)), ("%", f64(math.inf), f64(2.0))]:
        out = num.arithmetic(op, left, right)
        assert out.tag == Tag.DOUBLE and math.isnan(float(out.value))  # type: ignore[arg-type]
    nan = f64(math.nan)
    assert not num.compare("==", nan, nan) and num.compare("!=", nan, nan) and not num.compare("<", nan, i32(1))
    assert num.compare("<", i32(1), i64(2)) and num.compare(">=", Value(Tag.CHAR, "b"), i32(98))
    assert num.compare("==", f32(0.1), f32(num.to_float32(0.1)))


def test_integer_division_by_zero_is_refused() -> None:
    for op in ("/", "%"):
        with pytest.raises(num.IntegerDivisionByZero):
            num.arithmetic(op, i32(1), i32(0))
        with pytest.raises(num.IntegerDivisionByZero):
            num.arithmetic(op, i64(1), Value(Tag.CHAR, "\0"))


def test_negation_promotes_and_wraps() -> None:
    assert num.negate(i32(MIN_INT)) == i32(MIN_INT)
    assert num.negate(i64(MIN_LONG)) == i64(MIN_LONG)
    assert num.negate(Value(Tag.BYTE, 5)) == i32(-5)
    assert num.negate(Value(Tag.CHAR, "a")) == i32(-97)
    assert num.negate(f32(1.5)) == f32(-1.5)
