"""Restart a frame and force a return: the two ways a stopped thread's own code is changed before a step.

Layer: ``jdwp.debugger.changes`` (trio, via ``jdwp.client``). ``docs/tools.md`` ("Restart and force return").

- **Restart** (IntelliJ's "Reset Frame"): ``StackFrame.PopFrames`` (16,4) pops the top frame; the thread is
  back at the caller's invoke instruction, its arguments as they were pushed, and the step into that follows
  enters the method again and stops at its first line — its new code, after a reload. Refused where JVMTI
  ``PopFrame`` cannot: the bottom frame (nothing to return to), a native frame, a frame whose caller is native
  (``OPAQUE_FRAME``). What the method did (fields written, output) is not undone.
- **Force return**: ``ThreadReference.ForceEarlyReturn`` (11,14) makes the top frame return ``value`` at once
  when the thread runs (no ``finally`` block runs, no monitor of it is released in a ``synchronized`` block: as
  JVMTI ``ForceEarlyReturn*`` says); the step out that follows lands in the caller. The value is checked
  against the method's return type as ``Debugger.set_value`` checks a local's (:mod:`..reading.mutation`);
  ``void`` for a method that returns nothing.

Both need a ``VirtualMachine.CapabilitiesNew`` (1,17) bit: ``canPopFrames``, ``canForceEarlyReturn``. ART's
``art_jvmti.h`` lists ``can_pop_frame`` and ``can_force_early_return`` among its potential capabilities,
removed for a process that is not Java-debuggable (``kNonDebuggableUnsupportedCapabilities``).
"""

from __future__ import annotations

from ...protocol.constants import Tag
from ...protocol.types import FrameId, Location, ThreadId
from ...protocol.values import Value
from ...signatures import parse_method_signature
from ..classes.symbols import Symbols
from ..errors import InvalidArgument, Unsupported
from ..names import binary_name_of, type_name
from ..reading.mutation import Place, write
from ..reading.values import Summary, Values

__all__ = ["force_return", "pop_for_restart"]


async def pop_for_restart(values: Values, symbols: Symbols, thread: ThreadId) -> None:
    """Pop the thread's top frame so that a step into enters its method again.

    Raises:
        Unsupported: the VM cannot pop frames.
        InvalidArgument: the top frame is the bottom one, native, or called from native code; nothing changed.
    """
    vm = values.vm
    if not (await symbols.capabilities.get()).can_pop_frames:
        raise Unsupported("this VM cannot pop frames (CapabilitiesNew: canPopFrames is false; ART offers it only in "
                          "a debuggable app): nothing was changed")
    count = await vm.thread_reference.frame_count(thread)
    frames = await vm.thread_reference.frames(thread, 0, min(count, 2))
    if not frames:
        raise InvalidArgument("the thread has no frames to restart")
    top = frames[0]
    what = await _method_name(symbols, top.location)
    if count < 2:
        raise InvalidArgument(f"{what} is the thread's bottom frame: nothing called it here, so it cannot be "
                              "restarted; nothing was changed")
    if await symbols.members.is_native(top.location):
        raise InvalidArgument(f"{what} is a native frame: it cannot be restarted (JDWP OPAQUE_FRAME); nothing was "
                              "changed")
    if await symbols.members.is_native(frames[1].location):
        caller = await _method_name(symbols, frames[1].location)
        raise InvalidArgument(f"{what} was called from native code ({caller}: reflection, JNI or the VM's own "
                              "call): it cannot be restarted (JDWP OPAQUE_FRAME); nothing was changed")
    await vm.stack_frame.pop_frames(thread, FrameId(top.frame_id))


async def force_return(values: Values, symbols: Symbols, thread: ThreadId, text: str) -> Summary | None:
    """Make the thread's top frame return ``text`` (a literal, an ``object_id`` or ``void``) when it runs.
    Returns the value's summary (``None`` for ``void``).

    Raises:
        Unsupported: the VM cannot force a return.
        InvalidArgument: a native top frame, or a value the method's return type does not take; nothing changed.
    """
    vm = values.vm
    if not (await symbols.capabilities.get()).can_force_early_return:
        raise Unsupported("this VM cannot force a return (CapabilitiesNew: canForceEarlyReturn is false; ART offers "
                          "it only in a debuggable app): nothing was changed")
    (top,) = await vm.thread_reference.frames(thread, 0, 1)
    if await symbols.members.is_native(top.location):
        raise InvalidArgument(f"{await _method_name(symbols, top.location)} is a native frame: it cannot be made to "
                              "return (JDWP OPAQUE_FRAME); nothing was changed")
    method = (await symbols.members.methods(top.location.class_id)).get(top.location.method_id)
    if method is None:
        raise InvalidArgument("the top frame's method is not known to the VM any more (reloaded): step out instead")
    returns = parse_method_signature(method.signature).return_type
    shown = f"{binary_name_of(await symbols.signatures.get(top.location.class_id))}.{method.name}"
    if returns == "V":
        if text.strip() != "void":
            raise InvalidArgument(f"{shown} returns void: give \"void\" as its value (or step out without one)")
        await vm.thread_reference.force_early_return(thread, Value(Tag.VOID, None))
        return None
    if text.strip() == "void":
        raise InvalidArgument(f"{shown} returns {type_name(returns)}: give a "
                              "value of that type, not void")
    sent: list[Value] = []

    async def set_return(value: Value) -> None:
        await vm.thread_reference.force_early_return(thread, value)
        sent.append(value)

    async def get_return() -> Value:
        return sent[0]

    return await write(values, Place(f"the return value of {shown}", returns, set_return, get_return), text)


async def _method_name(symbols: Symbols, location: Location) -> str:
    method = (await symbols.members.methods(location.class_id)).get(location.method_id)
    name = binary_name_of(await symbols.signatures.get(location.class_id))
    return f"{name}.{method.name}" if method else name
