"""Java's ``hashCode`` of strings and boxed primitives, and the bins of a hash map they fall in, computed on
the host: a key lookup (``map["k"]``, ``map[42]``) reads one bin, not the table.

Layer: ``jdwp.debugger`` (no I/O here). docs/design.md §2.7 (key lookup).

Java's rules (the ``hashCode`` of each class, as specified in its Javadoc): ``String`` is
``s[0]*31^(n-1) + … + s[n-1]`` over its UTF-16 units in 32-bit arithmetic; ``Integer``, ``Short``, ``Byte``
and ``Character`` their value; ``Long`` ``(int)(v ^ (v >>> 32))``; ``Float`` ``floatToIntBits``; ``Double``
``doubleToLongBits`` folded as ``Long``'s; ``Boolean`` 1231 or 1237. ``HashMap.hash`` spreads a code as
``h ^ (h >>> 16)`` (0 for the null key), ``ConcurrentHashMap.spread`` as ``(h ^ (h >>> 16)) & HASH_BITS``
(``0x7fffffff``); the bin is the spread code masked by the table's length less one (a power of two).
"""

from __future__ import annotations

import math
import struct

from ...protocol.constants import Tag

_MASK = 0xFFFFFFFF
HASH_BITS = 0x7FFFFFFF


def _int32(value: int) -> int:
    value &= _MASK
    return value - (1 << 32) if value & 0x80000000 else value


def string_hash(text: str) -> int:
    """``String.hashCode()`` of ``text`` (over its UTF-16 units)."""
    units = text.encode("utf-16-be", "surrogatepass")
    h = 0
    for at in range(0, len(units), 2):
        h = (31 * h + (units[at] << 8 | units[at + 1])) & _MASK
    return _int32(h)


def long_hash(value: int) -> int:
    bits = value & 0xFFFFFFFFFFFFFFFF
    return _int32(bits ^ (bits >> 32))


def float_hash(value: float) -> int:
    if math.isnan(value):
        return 0x7FC00000  # floatToIntBits: the canonical NaN
    return _int32(struct.unpack(">i", struct.pack(">f", value))[0])


def double_hash(value: float) -> int:
    if math.isnan(value):
        return long_hash(0x7FF8000000000000)  # doubleToLongBits: the canonical NaN
    return long_hash(struct.unpack(">q", struct.pack(">d", value))[0])


def number_hashes(tag: int, value: object) -> set[int]:
    """The ``hashCode`` of every boxed type that holds ``value`` (a primitive of ``tag``) exactly: a numeric key
    of any of them compares equal to it (as the evaluator compares numbers)."""
    if tag == Tag.BOOLEAN:
        return {1231 if value else 1237}
    number = ord(value) if tag == Tag.CHAR and isinstance(value, str) else value
    assert isinstance(number, (int, float))
    out: set[int] = set()
    if isinstance(number, float) and not number.is_integer():
        as_float = struct.unpack(">f", struct.pack(">f", number))[0] if math.isfinite(number) else number
        if as_float == number or math.isnan(number):
            out.add(float_hash(number))
        out.add(double_hash(number))
        return out
    whole = int(number)
    if -(1 << 31) <= whole < (1 << 31):
        out.add(whole)  # Integer, and Short, Byte, Character within their ranges: the value itself
    if -(1 << 63) <= whole < (1 << 63):
        out.add(long_hash(whole))
    if float(whole) == whole and abs(whole) < (1 << 128):
        if struct.unpack(">f", struct.pack(">f", float(whole)))[0] == whole:
            out.add(float_hash(float(whole)))
        out.add(double_hash(float(whole)))
    return out


def hash_map_spread(code: int) -> int:
    """``HashMap.hash``'s spread of a key's ``hashCode``."""
    h = code & _MASK
    return _int32(h ^ (h >> 16))


def concurrent_spread(code: int) -> int:
    """``ConcurrentHashMap.spread``."""
    h = code & _MASK
    return (h ^ (h >> 16)) & HASH_BITS


def bin_index(spread: int, length: int) -> int:
    return (spread & _MASK) & (length - 1)
