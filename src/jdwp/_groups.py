"""Exception groups from nurseries that wrap a caller's ``async with`` block.

Layer: ``jdwp`` (standard library only). trio wraps whatever the block raises in an exception group; a
context manager whose own background task never raises hands the caller back their exception as it was.
"""

from __future__ import annotations


def sole_exception(group: BaseExceptionGroup[BaseException]) -> BaseException:
    """The group's only exception, ready to re-raise without the group as its context; else the group."""
    if len(group.exceptions) != 1:
        return group
    exc = group.exceptions[0]
    exc.__suppress_context__ = True
    return exc
