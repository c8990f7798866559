"""The texts values of the JDK are shown as, computed on the host from their fields
(:mod:`jdwp.debugger.reading.containers.numbers`, :mod:`~jdwp.debugger.reading.containers.times`): each as
OpenJDK 17's ``toString()`` prints it (the expected texts were printed by ``java`` on that JDK)."""

from __future__ import annotations

import pytest

from jdwp.debugger.reading.containers.numbers import MAX_MAG, decimal_text, magnitude_text
from jdwp.debugger.reading.containers.times import date_text, duration_text, instant_text, time_text


@pytest.mark.parametrize(("unscaled", "scale", "text"), [
    ("123450", 2, "1234.50"), ("-5", 2, "-0.05"), ("12345", -3, "1.2345E+7"), ("1", 7, "1E-7"),
    ("123", 10, "1.23E-8"), ("0", 0, "0"), ("0", 2, "0.00"), ("1234567890123456789012", 2,
                                                              "12345678901234567890.12"),
    ("5", 6, "0.000005"), ("-7", -1, "-7E+1"),
])
def test_big_decimal_as_to_string_prints_it(unscaled: str, scale: int, text: str) -> None:
    assert decimal_text(unscaled, scale) == text


def test_big_integer_from_signum_and_magnitude() -> None:
    value = 123456789012345678901234567890
    mag = [(value >> shift) & 0xFFFFFFFF for shift in range(96, -1, -32)]
    signed = [m - (1 << 32) if m >= 1 << 31 else m for m in mag]  # as JDWP hands ints: signed
    assert magnitude_text(1, signed, len(signed)) == str(value)
    assert magnitude_text(-1, [42], 1) == "-42"
    assert magnitude_text(0, [], 0) == "0"


def test_a_big_integer_too_long_to_print_says_how_big() -> None:
    text = magnitude_text(1, [1, 0, 0], MAX_MAG + 10)
    assert "too long to print" in text and "-bit integer" in text and text.startswith("5.521045e+4074")  # 2**13536


@pytest.mark.parametrize(("seconds", "nanos", "text"), [
    (3723, 500_000_000, "PT1H2M3.5S"), (-1, 500_000_000, "PT-0.5S"), (-3723, 0, "PT-1H-2M-3S"), (60, 0, "PT1M"),
    (-61, 250_000_000, "PT-1M-0.75S"), (0, 1000, "PT0.000001S"), (0, 0, "PT0S"),
])
def test_duration_as_to_string_prints_it(seconds: int, nanos: int, text: str) -> None:
    assert duration_text(seconds, nanos) == text


@pytest.mark.parametrize(("seconds", "nanos", "text"), [
    (1_700_000_000, 123_000_000, "2023-11-14T22:13:20.123Z"), (0, 0, "1970-01-01T00:00:00Z"),
    (-1, 0, "1969-12-31T23:59:59Z"), (951_782_400, 0, "2000-02-29T00:00:00Z"),
    (-62_135_596_801, 5000, "0000-12-31T23:59:59.000005Z"), (253_402_300_799, 0, "9999-12-31T23:59:59Z"),
])
def test_instant_in_iso_8601(seconds: int, nanos: int, text: str) -> None:
    assert instant_text(seconds, nanos) == text


def test_local_date_and_time() -> None:
    assert date_text(2026, 12, 7) == "2026-12-07" and date_text(12345, 1, 2) == "+12345-01-02"
    assert time_text(3, 4, 0, 1000) == "03:04:00.000001" and time_text(23, 5, 0, 0) == "23:05"
