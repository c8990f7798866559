"""``java.time`` values shown as the ISO text ``toString()`` prints, computed on the host from their fields:
``LocalDate`` (``2026-12-07``), ``LocalTime``, ``LocalDateTime``, ``Instant`` (``2023-11-14T22:13:20.123Z``) and
``Duration`` (``PT1H2M3.5S``). No app code runs.

Layer: ``jdwp.debugger.reading`` (trio, via ``jdwp.client``). docs/tools.md ("Values").

Fields (OpenJDK 17, ``java/time/*.java``; verified live): ``LocalDate`` ``year``/``month``/``day``;
``LocalTime`` ``hour``/``minute``/``second``/``nano``; ``LocalDateTime`` ``date``/``time`` (one of each above);
``Instant`` and ``Duration`` ``seconds``/``nanos``. The texts follow ``LocalDate.toString``,
``LocalTime.toString`` (seconds and fraction only when not zero, the fraction in groups of three digits),
``DateTimeFormatter.ISO_INSTANT`` and ``Duration.toString``.
"""

from __future__ import annotations

from .base import Answer, Reader
from .numbers import shown_as_text

_DAYS_0000_TO_1970 = 719528
_SECONDS_PER_DAY = 86400


def date_text(year: int, month: int, day: int) -> str:
    if abs(year) < 1000:
        head = ("-" if year < 0 else "") + f"{abs(year):04d}"
    else:
        head = ("+" if year > 9999 else "") + str(year)
    return f"{head}-{month:02d}-{day:02d}"


def time_text(hour: int, minute: int, second: int, nano: int) -> str:
    text = f"{hour:02d}:{minute:02d}"
    if second or nano:
        text += f":{second:02d}"
        if nano:
            text += "." + _fraction(nano)
    return text


def _fraction(nano: int) -> str:
    """Nanoseconds as ``LocalTime.toString`` writes them: 3, 6 or 9 digits."""
    if nano % 1_000_000 == 0:
        return f"{nano // 1_000_000:03d}"
    if nano % 1000 == 0:
        return f"{nano // 1000:06d}"
    return f"{nano:09d}"


def _civil(epoch_day: int) -> tuple[int, int, int]:
    """``LocalDate.ofEpochDay``'s year, month and day (proleptic Gregorian)."""
    zero_day = epoch_day + _DAYS_0000_TO_1970 - 60  # from 0000-03-01
    adjust = 0
    if zero_day < 0:
        cycles = (zero_day + 1) // 146097 - 1
        adjust = cycles * 400
        zero_day += -cycles * 146097
    year_est = (400 * zero_day + 591) // 146097
    doy_est = zero_day - (365 * year_est + year_est // 4 - year_est // 100 + year_est // 400)
    if doy_est < 0:
        year_est -= 1
        doy_est = zero_day - (365 * year_est + year_est // 4 - year_est // 100 + year_est // 400)
    year_est += adjust
    march_doy0 = doy_est
    march_month0 = (march_doy0 * 5 + 2) // 153
    month = (march_month0 + 2) % 12 + 1
    day = march_doy0 - (march_month0 * 306 + 5) // 10 + 1
    year_est += march_month0 // 10
    return year_est, month, day


def instant_text(seconds: int, nanos: int) -> str:
    """``Instant.toString()`` (``DateTimeFormatter.ISO_INSTANT``): UTC, the fraction in groups of three."""
    day, second_of_day = divmod(seconds, _SECONDS_PER_DAY)
    year, month, date = _civil(day)
    hour, rest = divmod(second_of_day, 3600)
    minute, second = divmod(rest, 60)
    head = date_text(year, month, date) if 0 <= year <= 9999 else (
        ("+" if year > 9999 else "") + str(year) + f"-{month:02d}-{date:02d}")
    text = f"{head}T{hour:02d}:{minute:02d}:{second:02d}"
    if nanos:
        text += "." + _fraction(nanos)
    return text + "Z"


def duration_text(seconds: int, nanos: int) -> str:
    """``Duration.toString()``: ``PT`` hours, minutes and seconds, a negative part signed."""
    if seconds == 0 and nanos == 0:
        return "PT0S"
    effective = seconds + 1 if seconds < 0 and nanos > 0 else seconds
    hours = _quotient(effective, 3600)
    minutes = _quotient(_remainder(effective, 3600), 60)
    secs = _remainder(effective, 60)
    text = "PT" + (f"{hours}H" if hours else "") + (f"{minutes}M" if minutes else "")
    if secs == 0 and nanos == 0 and len(text) > 2:
        return text
    text += "-0" if seconds < 0 and nanos > 0 and secs == 0 else str(secs)
    if nanos > 0:
        fraction = str(2_000_000_000 - nanos if seconds < 0 else nanos + 1_000_000_000).rstrip("0")
        text += "." + fraction[1:]
    return text + "S"


def _quotient(a: int, b: int) -> int:
    """Java's ``/`` of longs: rounded toward zero."""
    q = abs(a) // b
    return q if a >= 0 else -q


def _remainder(a: int, b: int) -> int:
    """Java's ``%`` of longs: the sign of the dividend."""
    return a - _quotient(a, b) * b


async def time_value_text(reader: Reader, owner: str) -> str | None:
    """The ISO text of a ``java.time`` value of class ``owner``, or ``None`` when its layout differs."""
    if owner == "java.time.LocalDate":
        read = await reader.own_fields(owner, "year", "month", "day")
        return None if read is None else date_text(*(int(read[n].value or 0) for n in ("year", "month", "day")))
    if owner == "java.time.LocalTime":
        names = ("hour", "minute", "second", "nano")
        read = await reader.own_fields(owner, *names)
        return None if read is None else time_text(*(int(read[n].value or 0) for n in names))
    if owner == "java.time.LocalDateTime":
        read = await reader.own_fields(owner, "date", "time")
        if read is None or read["date"].is_null or read["time"].is_null:
            return None
        parts = []
        for field, part in (("date", "java.time.LocalDate"), ("time", "java.time.LocalTime")):
            handle = reader.values.handle(read[field])
            chain = await reader.layouts.chain(await reader.values.type_id(handle))
            inner = Reader(reader.values, reader.layouts, handle, chain, 0, None, reader.depth + 1)
            text = await time_value_text(inner, part)
            if text is None:
                return None
            parts.append(text)
        return "T".join(parts)
    read = await reader.own_fields(owner, "seconds", "nanos")
    if read is None:
        return None
    seconds, nanos = int(read["seconds"].value or 0), int(read["nanos"].value or 0)
    return instant_text(seconds, nanos) if owner == "java.time.Instant" else duration_text(seconds, nanos)


#: Each class and the fields its text is made of.
TIMES = {"java.time.LocalDate": "year, month, day", "java.time.LocalTime": "hour, minute, second, nano",
         "java.time.LocalDateTime": "date, time", "java.time.Instant": "seconds, nanos",
         "java.time.Duration": "seconds, nanos"}


async def time_value(reader: Reader, owner: str) -> Answer:
    return await shown_as_text(reader, owner, await time_value_text(reader, owner), TIMES[owner])
