"""The IDs the engine hands out: stops (with their thread and frame handles) and breakpoints.

Layer: ``jdwp.debugger`` (pure; no I/O). docs/design.md §5.2: IDs are opaque strings, unique per server.

Shapes: ``{prefix}stop-{n}``, its thread ``{prefix}stop-{n}.t{thread:x}`` and frame
``{prefix}stop-{n}.t{thread:x}.f{index}``, ``{prefix}bp-{n}``, and the object handles ``{prefix}obj-{n}``
(issued by :class:`.reading.values.Values`, read with :func:`split_id` too). Numbers count up per session and are
never reused. The prefix (``s3-``; empty for a library user who runs one session) names the session, so
an ID given to the wrong session is recognised as another session's rather than read as this session's
stop or breakpoint with the same number.
"""

from __future__ import annotations

import re
from typing import Literal

from .errors import InvalidArgument, NotFound

IdKind = Literal["stop", "bp", "obj"]

_PREFIX_SHAPE = r"(?:[a-z0-9]{1,12}-)?"
_PREFIX = re.compile(_PREFIX_SHAPE)
_HEAD = re.compile(rf"(?P<prefix>{_PREFIX_SHAPE})(?P<kind>stop|bp|obj)-(?P<number>[1-9][0-9]{{0,15}})")


def split_id(handle: str, kind: IdKind) -> tuple[str, int] | None:
    """The prefix and number of an ID of ``kind`` of any session (a thread or frame handle gives its stop's),
    or ``None`` for text of another shape."""
    match = _HEAD.fullmatch(handle.partition(".")[0])
    if match is None or match["kind"] != kind:
        return None
    return match["prefix"], int(match["number"])


class IdScheme:
    """How one session's IDs read, and whether a given ID is one of them."""

    def __init__(self, prefix: str = "") -> None:
        if not _PREFIX.fullmatch(prefix):
            raise InvalidArgument(f"an ID prefix is up to 12 lowercase letters or digits and a '-', not {prefix!r}")
        self.prefix = prefix

    def stop(self, number: int) -> str:
        return f"{self.prefix}stop-{number}"

    def breakpoint(self, number: int) -> str:
        return f"{self.prefix}bp-{number}"

    def number(self, handle: str, kind: IdKind) -> int | None:
        """The number in one of this session's IDs of ``kind`` (a thread or frame handle gives its stop's).

        Returns ``None`` for text that is not such an ID.

        Raises:
            NotFound: the ID has the shape of another session's (another prefix).
        """
        found = split_id(handle, kind)
        if found is None:
            return None
        prefix, number = found
        if prefix != self.prefix:
            if prefix:
                mine = f"start with {self.prefix!r}" if self.prefix else "have no prefix"
                raise NotFound(f"{handle!r} is an ID of another debugging session (this session's IDs {mine}); "
                               "use it with the session that issued it")
            return None
        return number
