"""Method calls of expressions (``x.m(args)``, ``Foo.m(args)``), run only when the user allowed invocation.

Layer: ``jdwp.debugger`` (trio, via ``jdwp.client``). docs/design.md §3.8.

**Choosing the method.** The candidates are the methods of that name and arity declared by the runtime
class and its superclasses (``ReferenceType.Methods`` 2,5; an override hides what it overrides); for
``Foo.m`` the static ones. A candidate applies when every argument converts to its parameter without
boxing: a primitive by Java's widening, ``null`` to any reference, an object to a supertype of its
runtime class. Of those that apply, the most specific is chosen as Java chooses; two equally specific
ones are an error, as in Java. Strings the expression made are created in the VM
(``VirtualMachine.CreateString`` 1,11) to be passed.

**Running it.** ``ObjectReference.InvokeMethod`` (9,6) or ``ClassType.InvokeMethod`` (3,3) with
``INVOKE_SINGLE_THREADED``, on the thread of the stop's event: JDWP runs a method only on a thread an
event suspended, and single-threaded only that thread runs (others stay suspended, so a call needing a
lock another thread holds blocks). The VM answers when the method returns, so the request is awaited in a
task of its own: the call gives up after its deadline, the request goes on. The back end suspends the
thread again when the method returns; if the stop it belongs to was resumed meanwhile, nobody would
release that suspension, so :meth:`Calls.late_return` does (``ThreadReference.Resume`` 11,3). Until the
method returns, the thread is running app code: evaluations on it are refused, and its frames are read
anew afterwards (a resumed thread's frame IDs are no longer valid).

A thrown exception is a result: its type and its ``detailMessage`` field (read, not ``getMessage()``).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from typing import Any

import trio

from ...client import JdwpClient
from ...protocol.commands.objects import ObjectReference
from ...protocol.commands.reftypes import ClassType, InvokeReply, MethodInfo
from ...protocol.constants import ErrorCode, InvokeOptions, Tag
from ...protocol.errors import CommandError, JdwpError
from ...protocol.types import MethodId, ReferenceTypeId, ThreadId
from ...protocol.values import Value
from ...signatures import parse_method_signature, type_name
from ..errors import EvaluationFailed

#: Seconds an evaluation waits for an invoked method before giving up on it (docs/design.md §6).
INVOKE_DEADLINE = 2.0
_WIDER = {"byte": ("short", "int", "long", "float", "double"), "short": ("int", "long", "float", "double"),
          "char": ("int", "long", "float", "double"), "int": ("long", "float", "double"),
          "long": ("float", "double"), "float": ("double",), "double": (), "boolean": ()}
_TAGS = {"byte": Tag.BYTE, "short": Tag.SHORT, "char": Tag.CHAR, "int": Tag.INT, "long": Tag.LONG,
         "float": Tag.FLOAT, "double": Tag.DOUBLE, "boolean": Tag.BOOLEAN}


@dataclasses.dataclass(frozen=True, slots=True)
class Outcome:
    """What a call answered: its return value (``Tag.VOID`` for void), or the exception it threw."""

    value: Value
    exception: Value | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class Argument:
    """An evaluated argument, with what the call needs to choose among overloads: its runtime type name
    (``None`` for a primitive or null) and that type's supertypes."""

    value: Value
    runtime: str | None
    supertypes: frozenset[str]


def parameter_types(signature: str) -> list[str]:
    """A method signature's parameter types as Java names (``(I[Ljava/lang/String;)V`` → int, String[])."""
    return [type_name(p) for p in parse_method_signature(signature).parameters]


def _applies(parameter: str, argument: Argument) -> bool:
    if argument.runtime is None and not argument.value.is_object:  # a primitive
        kind = type_name(chr(argument.value.tag))
        return parameter == kind or parameter in _WIDER.get(kind, ())
    if parameter in _TAGS:
        return False  # unboxing is not done: Java's first phase, without boxing
    return argument.value.is_null or parameter in argument.supertypes


def choose(candidates: list[MethodInfo], arguments: list[Argument], name: str,
           supertypes: Callable[[str], frozenset[str]]) -> MethodInfo:
    """The most specific applicable method (see module).

    Raises:
        EvaluationFailed: none applies, or two apply that are equally specific.
    """
    applicable = [m for m in candidates if all(_applies(p, a) for p, a in zip(
        parameter_types(m.signature), arguments, strict=True))]
    if not applicable:
        shown = ", ".join(f"{name}({', '.join(parameter_types(m.signature))})" for m in candidates) or "none"
        raise EvaluationFailed(f"no method {name} with {len(arguments)} argument(s) accepts these arguments "
                               f"(candidates: {shown}; arguments are not boxed or unboxed)")

    def at_least_as_specific(m1: MethodInfo, m2: MethodInfo) -> bool:
        return all(p1 == p2 or p2 in _WIDER.get(p1, ()) or (p1 not in _TAGS and p2 in supertypes(p1))
                   for p1, p2 in zip(parameter_types(m1.signature), parameter_types(m2.signature), strict=True))

    best = [m for m in applicable if all(at_least_as_specific(m, other) for other in applicable)]
    if len(best) != 1:
        shown = " and ".join(f"{name}({', '.join(parameter_types(m.signature))})" for m in applicable)
        raise EvaluationFailed(f"the call {name}(…) is ambiguous: {shown} both apply (as Java would, this "
                               "refuses to choose)")
    return best[0]


def converted(values: list[Value], method: MethodInfo) -> list[Value]:
    """The arguments widened to the parameters' primitive types, as the VM expects them."""
    out = []
    for value, parameter in zip(values, parameter_types(method.signature), strict=True):
        tag = _TAGS.get(parameter)
        if tag is None or value.tag == tag:
            out.append(value)
            continue
        raw = value.value
        number = ord(raw) if isinstance(raw, str) else raw
        out.append(Value(tag, float(number) if tag in (Tag.FLOAT, Tag.DOUBLE) else number))  # type: ignore[arg-type]
    return out


@dataclasses.dataclass(frozen=True, slots=True)
class Invocation:
    """Method calls are allowed in one evaluation: on ``thread``, through the session's :class:`Calls`;
    ``refusal`` says why they cannot run there, when they cannot."""

    calls: Calls
    stop_id: str
    thread: ThreadId
    refusal: str | None = None

    @classmethod
    def on(cls, calls: Calls, stop_id: str, thread: ThreadId, event_thread: ThreadId, reasons: tuple[str, ...]
           ) -> Invocation:
        """JDWP runs a method only on a thread an event suspended: the stop's own thread, not at a pause."""
        if thread != event_thread or "pause" in reasons:
            return cls(calls, stop_id, thread, "JDWP runs methods only on the thread an event suspended (the "
                                               "thread of a breakpoint or step stop), not on this frame's thread")
        return cls(calls, stop_id, thread)


class Calls:
    """The invocations of one session: at most one in flight per thread, and their late returns.

    ``release`` is called with a thread whose invoked method returned after its stop had ended (see
    module); ``nursery`` holds the requests that outlive their evaluation.
    """

    def __init__(self, vm: JdwpClient, nursery: trio.Nursery | None,
                 release: Callable[[ThreadId, str], Any]) -> None:
        self._vm = vm
        self._nursery = nursery
        self._release = release
        self.running: dict[ThreadId, str] = {}  # thread → the stop whose evaluation started the call
        self.made = 0  # calls sent: a thread that ran one has new frame IDs

    def check_free(self, thread: ThreadId) -> None:
        if thread in self.running:
            raise EvaluationFailed("a method called by an earlier evaluation is still running on this thread "
                                   f"(it passed the {INVOKE_DEADLINE:g} s deadline); resume the stop, or wait for "
                                   "the method to return before calling another")

    async def invoke(self, stop_id: str, thread: ThreadId, type_id: ReferenceTypeId, method: MethodInfo,
                     target: Value | None, arguments: list[Value], deadline: float = INVOKE_DEADLINE) -> Outcome:
        """Run one method on ``thread`` (instance when ``target`` is given, else static), single-threaded.

        Raises:
            EvaluationFailed: the thread was not suspended by an event, or the method did not return
                within ``deadline`` seconds (it goes on running; see module).
        """
        if self._nursery is None:
            raise EvaluationFailed("method invocation needs a debugger opened with open_debugger")
        self.check_free(thread)
        done: trio.MemorySendChannel[InvokeReply | BaseException]
        done, answer = trio.open_memory_channel[InvokeReply | BaseException](1)
        if target is not None:
            command: Any = ObjectReference.InvokeMethod
            out: dict[str, Any] = dict(object=target.object_id, thread=thread,
                                       clazz=type_id, method_id=MethodId(method.method_id), arguments=arguments,
                                       options=InvokeOptions.INVOKE_SINGLE_THREADED)
        else:
            command = ClassType.InvokeMethod
            out = dict(clazz=type_id, thread=thread, method_id=MethodId(method.method_id), arguments=arguments,
                       options=InvokeOptions.INVOKE_SINGLE_THREADED)
        self.running[thread] = stop_id
        self.made += 1
        self._nursery.start_soon(self._request, command, out, thread, stop_id, done)
        with answer, trio.move_on_after(deadline):  # closing it tells the request nobody waits any more
            reply = await answer.receive()
            if isinstance(reply, CommandError):
                raise _refused(reply) from None
            if isinstance(reply, BaseException):
                raise reply
            return Outcome(reply.return_value, None if reply.exception.is_null else reply.exception)
        raise _still_running(f"{method.name}()")

    def check_returned(self, thread: ThreadId) -> None:
        """After an evaluation ran out of time: say so if it was waiting for a method on ``thread``."""
        if thread in self.running:
            raise _still_running("a method it called")

    async def _request(self, command: Any, out: dict[str, Any], thread: ThreadId, stop_id: str,
                       done: trio.MemorySendChannel[InvokeReply | BaseException]) -> None:
        outcome: InvokeReply | BaseException
        try:
            outcome = await self._vm.request(command, timeout=math.inf, **out)
        except JdwpError as exc:
            outcome = exc
        finally:
            self.running.pop(thread, None)
        try:
            done.send_nowait(outcome)
        except trio.WouldBlock:
            pass
        except trio.BrokenResourceError:  # the evaluation gave up: the method returned late
            if not isinstance(outcome, BaseException):
                await self._release(thread, stop_id)


def _still_running(what: str) -> EvaluationFailed:
    return EvaluationFailed(f"{what} did not return within {INVOKE_DEADLINE:g} s. It is still running on the stop's "
                            "thread (the other threads stay suspended); the stop can be resumed or the session "
                            "detached as usual, and the thread goes on when the method returns")


def _refused(exc: CommandError) -> EvaluationFailed:
    if exc.code in (ErrorCode.INVALID_THREAD, ErrorCode.THREAD_NOT_SUSPENDED):
        return EvaluationFailed("the VM refused to run the method on this thread: JDWP runs methods only on a "
                                "thread suspended by an event (a breakpoint or step stop's own thread), not one "
                                f"suspended by a pause or by another thread's event ({exc})")
    if exc.code == ErrorCode.ALREADY_INVOKING:
        return EvaluationFailed(f"this thread is already running a method for the debugger ({exc})")
    return EvaluationFailed(f"the VM refused the call: {exc}")


async def release_late(vm: JdwpClient, thread: ThreadId, stop_id: str, current: str | None, closed: bool) -> None:
    """Release the suspension the back end put on ``thread`` when a method that outlived its evaluation
    returned, unless the stop that called it is still current (its own release covers the thread)."""
    if closed or current == stop_id:
        return  # still current: its own release covers the thread (and its frames were read anew)
    try:
        await vm.thread_reference.resume(thread)
    except JdwpError:
        pass  # the thread ended, or the connection did: nothing is left suspended by us


async def refresh_frames(vm: JdwpClient, frames: dict[str, Any], thread: ThreadId) -> None:
    """Read ``thread``'s frames again after it ran a method, updating the stop's frame handles by index
    (a resumed thread's frame IDs are invalid). While it still runs the method, the handles stay as they
    are (evaluations on them are refused until it returns; then this runs again)."""
    mine = {handle: ref for handle, ref in frames.items() if ref.thread == thread}
    if not mine:
        return
    # An inline frame's handle (``….f3.i1``) stands for the same JVM frame as ``….f3``.
    indexes = {handle: int(handle.rpartition(".f")[2].partition(".")[0]) for handle in mine}
    try:
        fresh = await vm.thread_reference.frames(thread, 0, max(indexes.values()) + 1)
    except CommandError as exc:
        if exc.code == ErrorCode.THREAD_NOT_SUSPENDED:
            return
        fresh = []
    for handle, index in indexes.items():
        if index < len(fresh):
            frames[handle] = dataclasses.replace(mine[handle], frame=fresh[index].frame_id)
        else:
            del frames[handle]
