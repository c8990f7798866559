"""The value a method returned, as a method-exit breakpoint's stop or a step out shows it.

Layer: ``jdwp.debugger``. docs/design.md §3.2. The value comes with the event (``MethodExitWithReturnValue``,
64,100 kind 42): a ``long`` past 2^53 stays exact (its summary is text, as every primitive's), an object
gets the session's handle, a ``void`` method's is the kind ``void``. It is also the name ``return_value``
for the breakpoint's condition and log message. App data: never logged.
"""

from __future__ import annotations

from ...protocol.constants import Tag
from ...protocol.values import Value
from ..model import Local
from ..names import type_name
from ..reading.frames import local_of
from ..reading.values import Summary, Values

__all__ = ["read_return"]


async def read_return(values: Values, value: Value, returns: str) -> tuple[Summary, tuple[Local, ...]]:
    """The summary of a returned value (``returns``: the method's JNI return type), and its name for
    conditions (none for ``void``)."""
    if value.tag == Tag.VOID:
        return Summary("void", None), ()
    (summary,) = await values.summarize([value], [returns])
    return summary, (local_of("return_value", type_name(returns), summary),)
