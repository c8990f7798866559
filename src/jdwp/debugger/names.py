"""Java names and printed values: JNI signatures ↔ binary and source-style names, and primitives as Java
prints them.

Layer: ``jdwp.debugger`` (pure functions; no I/O).
"""

from __future__ import annotations

import math
import re
import struct

from ..protocol.constants import Tag
from ..signatures import binary_name_of, signature_of, type_name

_IDENTIFIER = r"[A-Za-z_$\u00c0-\uffff][A-Za-z0-9_$\u00c0-\uffff]*"
#: A hidden class's name ends in ``/`` and the suffix its VM chose (see :mod:`jdwp.signatures`): HotSpot's is
#: ``0x`` and hex digits (an address); a path such as ``com/example/Foo`` stays no class name.
BINARY_NAME = re.compile(rf"^{_IDENTIFIER}(?:\.{_IDENTIFIER})*(?:/0x[0-9A-Fa-f]+)?$")

#: Signatures ↔ names live in the library (:mod:`jdwp.signatures`); the engine's modules import them here.
__all__ = ["BINARY_NAME", "binary_name_of", "is_binary_name", "java_length", "java_prefix", "java_text", "signature_of",
           "type_name"]


def is_binary_name(name: str) -> bool:
    """A binary class name as ``Class.getName()`` prints it: ``com.example.Outer$Inner``, or a hidden class's
    ``com.example.Foo$$Lambda$11/0x0000000800c03000``."""
    return bool(BINARY_NAME.match(name)) and len(name) <= 512


def _java_decimal(value: float, digits: str, exponent: int) -> str:
    """Java's ``Double.toString`` layout for the shortest digits of ``value``."""
    # ``digits`` has no dot; ``exponent`` is the decimal exponent of its first digit.
    if 1e-3 <= abs(value) < 1e7:
        if exponent >= 0:
            whole = digits[: exponent + 1].ljust(exponent + 1, "0")
            fraction = digits[exponent + 1 :] or "0"
        else:
            whole = "0"
            fraction = "0" * (-exponent - 1) + digits
        text = f"{whole}.{fraction}"
    else:
        text = f"{digits[0]}.{digits[1:] or '0'}E{exponent}"
    return ("-" if math.copysign(1.0, value) < 0 else "") + text


def _format_floating(value: float, single: bool) -> str:
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "-0.0" if math.copysign(1.0, value) < 0 else "0.0"
    if single:
        # The fewest digits that still read back as the same float32.
        for precision in range(1, 10):
            text = f"{abs(value):.{precision}e}"
            try:
                if struct.unpack(">f", struct.pack(">f", float(text)))[0] == abs(value):
                    break
            except OverflowError:  # rounding up past Float.MAX_VALUE: needs more digits
                continue
    else:
        text = f"{abs(value):.17e}"
        for precision in range(1, 18):
            candidate = f"{abs(value):.{precision}e}"
            if float(candidate) == abs(value):
                text = candidate
                break
    mantissa, exponent = text.split("e")
    digits = mantissa.replace(".", "").rstrip("0") or "0"
    return _java_decimal(value, digits, int(exponent))


def java_text(tag: int, value: object) -> str:
    """A primitive value as Java's ``String.valueOf`` prints it (``true``, ``1.0E10``, ``Z``)."""
    if tag == Tag.BOOLEAN:
        return "true" if value else "false"
    if tag == Tag.CHAR:
        return str(value)
    if tag in (Tag.FLOAT, Tag.DOUBLE):
        return _format_floating(float(value), single=tag == Tag.FLOAT)  # type: ignore[arg-type]
    if tag == Tag.VOID:
        return "void"
    return str(value)


_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


def java_length(text: str) -> int:
    """Java's ``String.length()`` of ``text``: UTF-16 units, so a character past U+FFFF counts two."""
    if text.isascii():
        return len(text)
    try:
        return len(text.encode("utf-16-le")) // 2
    except UnicodeEncodeError:  # lone surrogates; "surrogatepass" would take a slow path for each of them
        return len(text) + _ASTRAL.subn("", text)[1]


def java_prefix(text: str, limit: int) -> tuple[str, int]:
    """The first ``limit`` UTF-16 units of ``text`` and its length in UTF-16 units, as Java counts them.

    ``String.length()`` counts UTF-16 units, so an emoji counts two; a cut never splits a surrogate pair.
    Only the head of a long text is encoded: a VM may send a name of millions of units.
    """
    length = java_length(text)
    if length <= limit:
        return text, length
    units = text[: limit + 1].encode("utf-16-be", "surrogatepass")  # limit + 1 code points: over limit units
    cut = units[: 2 * limit]
    if 0xD800 <= int.from_bytes(cut[-2:], "big") <= 0xDBFF and 0xDC00 <= int.from_bytes(
            units[2 * limit : 2 * limit + 2], "big") <= 0xDFFF:
        cut = cut[:-2]
    return cut.decode("utf-16-be", "surrogatepass"), length
