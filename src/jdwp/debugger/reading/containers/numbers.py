"""``java.math.BigDecimal`` and ``BigInteger`` shown as the text ``toString()`` prints (``1234.50``,
``-42``), computed on the host from their fields: no app code runs.

Layer: ``jdwp.debugger.reading`` (trio, via ``jdwp.client``). docs/tools.md ("Values").

Fields (OpenJDK 17, ``java/math/BigInteger.java``, ``java/math/BigDecimal.java``; verified live):

- ``BigInteger``: ``signum`` (-1, 0, 1) and ``mag``, the magnitude as big-endian ``int``\\ s (``mag[0]`` the most
  significant, none for zero). :data:`MAX_MAG` ints at most are read (``ArrayReference.GetValues`` 13,2): a
  larger number is shown by its magnitude and bit length, not its digits.
- ``BigDecimal``: ``intCompact`` (the unscaled value when it fits a ``long``; ``Long.MIN_VALUE``, the class's
  ``INFLATED``, when it does not, and then ``intVal`` holds it) and ``scale``. The text follows
  ``BigDecimal.layoutChars(true)``: plain digits when ``scale >= 0`` and the adjusted exponent is at least -6,
  else one digit, the rest after a point and ``E±n``.
"""

from __future__ import annotations

import math

from ....protocol.values import Value
from ..objects import UNIT_LIMITS, ObjectPage, as_values, page_bounds, slice_page
from ..tables import read_region
from ..values import stale_on_collected
from .base import Answer, Reader, wire

#: The most ``mag`` ints read (about 3,990 decimal digits: below Python's default limit on int-to-text).
MAX_MAG = 414
#: ``BigDecimal.INFLATED``: ``intCompact`` says the unscaled value is in ``intVal``.
INFLATED = -(1 << 63)


def magnitude_text(signum: int, mag: list[int], length: int) -> str:
    """A ``BigInteger``'s decimal text from its ``signum`` and (the first ``len(mag)`` of its ``length``)
    magnitude ints; past :data:`MAX_MAG` ints, its size instead of its digits."""
    if signum == 0 or length == 0:
        return "0"
    sign = "-" if signum < 0 else ""
    if length > len(mag):  # too long to print: about how big, from its leading ints
        lead = 0
        for part in mag[:3]:
            lead = (lead << 32) | (part & 0xFFFFFFFF)
        bits = lead.bit_length() + 32 * (length - min(3, len(mag)))
        exponent = math.log10(lead) + 32 * (length - min(3, len(mag))) * math.log10(2) if lead else 0.0
        digits = int(exponent)
        return f"{sign}{10 ** (exponent - digits):.6f}e+{digits} (a {bits:,}-bit integer, too long to print)"
    value = 0
    for part in mag:
        value = (value << 32) | (part & 0xFFFFFFFF)
    return f"{sign}{value}"


def decimal_text(unscaled: str, scale: int) -> str:
    """``BigDecimal.toString()`` of an unscaled value's decimal text and a scale (``layoutChars(true)``)."""
    negative = unscaled.startswith("-")
    digits = unscaled.lstrip("-")
    sign = "-" if negative else ""
    if scale == 0:
        return sign + digits
    adjusted = -scale + (len(digits) - 1)
    if scale > 0 and adjusted >= -6:
        point = len(digits) - scale
        if point > 0:
            return f"{sign}{digits[:point]}.{digits[point:]}"
        return f"{sign}0.{'0' * -point}{digits}"
    text = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
    if adjusted != 0:
        text += "E" + ("+" if adjusted > 0 else "") + str(adjusted)
    return sign + text


async def integer_text(reader: Reader, handle: str, owner: str = "java.math.BigInteger") -> str | None:
    """The text of the ``BigInteger`` behind ``handle``, or ``None`` when its layout differs."""
    chain = await reader.layouts.chain(await reader.values.type_id(handle))
    read = await reader.fields(handle, chain, owner, "signum", "mag")
    if read is None or read["mag"].is_null:
        return None
    signum = int(read["signum"].value or 0)
    mag = read["mag"]
    with stale_on_collected(handle):
        length = await reader.values.array_length(reader.values.handle(mag))
        wanted = min(length, MAX_MAG) if length <= MAX_MAG else min(length, 3)
        ints = [int(v.value or 0) for v in as_values(await read_region(reader.values.vm, wire(mag), 0, wanted))
                ] if wanted else []
    return magnitude_text(signum, ints, length)


async def big_integer_text(reader: Reader, owner: str) -> str | None:
    return await integer_text(reader, reader.handle, owner)


async def big_decimal_text(reader: Reader, owner: str) -> str | None:
    read = await reader.own_fields(owner, "intCompact", "intVal", "scale")
    if read is None:
        return None
    compact = int(read["intCompact"].value or 0)
    scale = int(read["scale"].value or 0)
    if compact != INFLATED:
        return decimal_text(str(compact), scale)
    inflated: Value = read["intVal"]
    if inflated.is_null:
        return None
    unscaled = await integer_text(reader, reader.values.handle(inflated))
    if unscaled is None or " " in unscaled:  # no digits to place a point among
        return unscaled
    return decimal_text(unscaled, scale)


async def shown_as_text(reader: Reader, owner: str, text: str | None, fields: str) -> Answer:
    """A text computed from ``owner``'s ``fields`` as a page of its UTF-16 units, or the note that the layout
    differs."""
    if text is None:
        return reader.missing(owner, fields)
    start, end = page_bounds(reader.offset, reader.limit, len(text), UNIT_LIMITS, "UTF-16 units")
    page: ObjectPage = slice_page(reader.handle, "object", reader.runtime, len(text), start, end, text[start:end])
    return page, None


async def big_decimal(reader: Reader, owner: str) -> Answer:
    return await shown_as_text(reader, owner, await big_decimal_text(reader, owner), "intCompact, intVal, scale")


async def big_integer(reader: Reader, owner: str) -> Answer:
    return await shown_as_text(reader, owner, await big_integer_text(reader, owner), "signum, mag")
