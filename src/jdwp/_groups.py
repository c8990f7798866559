"""Exception groups from nurseries: the one exception a group stands for, raised in its place.

Layer: ``jdwp`` (standard library only). trio wraps whatever a nursery's tasks (and the block around it)
raise in an exception group. Two kinds of nursery in this package want the same thing of it, the failure
itself: one that wraps a caller's ``async with`` block, whose own background task never raises (the
client's, the engine's), and one that runs several requests at once (:func:`jdwp.debugger._gather.gather`),
whose other tasks are cancelled when one fails.
"""

from __future__ import annotations


def unwrap(group: BaseExceptionGroup[BaseException], *, ignore: tuple[type[BaseException], ...] = (),
           first: bool = False) -> BaseException:
    """The exception ``group`` stands for, ready to raise without the group as its context.

    Without ``first``: the group's only exception (leaving out those of ``ignore``'s kinds), as it was (a
    caller's block that raised a group of its own gets that group back), or the group when there are
    several. With ``first``: nested groups are flattened and the first exception of no ``ignore`` kind is
    taken (the failure that cancelled the others). The group itself when every exception is ignored.
    """
    found = _leaves(group) if first else list(group.exceptions)
    real = [exc for exc in found if not isinstance(exc, ignore)]
    if not real or (len(real) > 1 and not first):
        return group
    exc = real[0]
    exc.__suppress_context__ = True
    return exc


def _leaves(group: BaseExceptionGroup[BaseException]) -> list[BaseException]:
    out: list[BaseException] = []
    for exc in group.exceptions:
        out.extend(_leaves(exc) if isinstance(exc, BaseExceptionGroup) else [exc])
    return out
