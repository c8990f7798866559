"""Line breakpoints kept across a reload: bound anew in the classes' new code.

Layer: ``jdwp.debugger.changes``. A redefined class has new line tables: a breakpoint's code index in the old
code means nothing in the new one. OpenJDK's JDWP back end frees every breakpoint request in a class it has
redefined (``VirtualMachineImpl.c`` ``redefineClasses`` → ``eventHandler_freeClassBreakpoints``), and
debuggers that stop there lose them. Here each line breakpoint bound
in a redefined class is bound again as when it was set (:meth:`..requests.manager.Requests.rebind`):
``verified`` where the line has code in the new code, ``rejected`` (with the reason) where it has none now.
A method entry breakpoint is a breakpoint at the method's first code index: bound anew the same way. Method
exit breakpoints and watchpoints name their class and member, not a code index, and need nothing.
"""

from __future__ import annotations

from collections.abc import Collection

from ..model import Breakpoint, MethodBreakpoint
from ..requests.manager import Requests

__all__ = ["rebind_in"]


async def rebind_in(breakpoints: Requests, types: Collection[int]) -> list[Breakpoint | MethodBreakpoint]:
    """Bind anew every line or method entry breakpoint bound in any of ``types`` (redefined); returns them as
    they are now."""
    return [await breakpoints.rebind(breakpoint_id) for breakpoint_id in breakpoints.bound_in(types)]
