"""A frame's argument values, as JDI's ``StackFrame.getArgumentValues`` gives them.

Layer: ``jdwp`` (no I/O of its own: requests go through the client's ``request``).

Where the method has a variable table (``Method.VariableTable`` 6,2; classes compiled with ``javac -g``),
its arguments are the variables in slots below ``argCnt`` (``this`` left out), with their names. Without
one (``ABSENT_INFORMATION``) the slots come from the method's signature as the JVM lays a frame out
(:func:`jdwp.signatures.argument_slots`) and the names are ``arg0``, ``arg1``… Then one
``StackFrame.GetValues`` (16,1) reads them all.

A method's layout is read once per client and kept (methods do not change while their class is loaded).
"""

from __future__ import annotations

import dataclasses

from ..protocol.commands import Method, ReferenceType, StackFrame
from ..protocol.commands.threads import Frame, SlotRequest
from ..protocol.constants import ACC_STATIC
from ..protocol.errors import AbsentInformation, UsageError
from ..protocol.types import MethodId, ReferenceTypeId, ThreadId
from ..protocol.values import Value
from ..signatures import argument_slots, parse_method_signature, tag_of_signature, type_name
from ._base import Namespace

__all__ = ["Argument", "ArgumentLayout", "ArgumentReader"]

#: Methods whose layout a client keeps; past it the cache starts again (a tracer of a whole app can see
#: more methods than are worth keeping).
MAX_LAYOUTS = 8192


@dataclasses.dataclass(frozen=True, slots=True)
class Argument:
    """One argument of a frame's method: its name (``arg0``… without a variable table), JNI type signature
    and value."""

    name: str
    signature: str
    value: Value

    @property
    def type_name(self) -> str:
        """The type as Java source writes it (``java.lang.String[]``)."""
        return type_name(self.signature)


@dataclasses.dataclass(frozen=True, slots=True)
class ArgumentLayout:
    """Where a method's arguments are in its frames.

    Attributes:
        method: the method's name; ``signature``: its JNI signature; ``static``: no ``this``.
        names, signatures, slots: one entry per argument, in declaration order.
        from_table: whether the names and slots came from the variable table (else from the signature).
    """

    method: str
    signature: str
    static: bool
    names: tuple[str, ...]
    signatures: tuple[str, ...]
    slots: tuple[int, ...]
    from_table: bool

    def requests(self) -> list[SlotRequest]:
        return [SlotRequest(slot, tag_of_signature(sig)) for slot, sig in zip(self.slots, self.signatures, strict=True)]


class ArgumentReader(Namespace):
    """Reads argument values of frames; the layouts it learns are kept per client."""

    def __init__(self, client: object) -> None:
        super().__init__(client)  # type: ignore[arg-type]  # a Requester, as every namespace's
        self._layouts: dict[tuple[int, int], ArgumentLayout] = {}
        self._methods: dict[int, dict[int, tuple[str, str, int]]] = {}

    async def arguments(self, thread: ThreadId, frame: Frame) -> list[Argument]:
        """The values of the arguments of ``frame``'s method, in declaration order.

        Raises:
            ThreadNotSuspended, InvalidThread: the thread must be suspended and alive.
            CommandError: ``OPAQUE_FRAME`` for a native method's frame, or another error of the VM.
        """
        layout = await self.argument_layout(frame.location.class_id, frame.location.method_id)
        if not layout.slots:
            return []
        reply = await self._client.request(StackFrame.GetValues, thread=thread, frame=frame.frame_id,
                                           slots=layout.requests())
        return [Argument(name, sig, value)
                for name, sig, value in zip(layout.names, layout.signatures, reply.values, strict=True)]

    async def argument_layout(self, class_id: ReferenceTypeId, method_id: MethodId) -> ArgumentLayout:
        """Where the arguments of a method are (read once, then kept).

        Raises:
            UsageError: the class has no method with that ID.
        """
        key = (class_id, method_id)
        known = self._layouts.get(key)
        if known is not None:
            return known
        name, signature, mod_bits = await self._method(class_id, method_id)
        static = bool(mod_bits & ACC_STATIC)
        parameters = parse_method_signature(signature).parameters
        try:
            table = await self._client.request(Method.VariableTable, ref_type=class_id, method_id=method_id)
        except AbsentInformation:
            table = None
        if table is not None:
            first = 0 if static else 1
            found = {v.slot: v for v in table.slots if first <= v.slot < table.arg_cnt}
            ordered = [found[slot] for slot in sorted(found)]
            layout = ArgumentLayout(name, signature, static, tuple(v.name for v in ordered),
                                    tuple(v.signature for v in ordered), tuple(v.slot for v in ordered), True)
        if table is None or len(layout.slots) != len(parameters):  # no table, or one missing arguments
            layout = ArgumentLayout(name, signature, static, tuple(f"arg{i}" for i in range(len(parameters))),
                                    tuple(parameters), tuple(argument_slots(signature, static=static)), False)
        if len(self._layouts) >= MAX_LAYOUTS:
            self._layouts.clear()
        self._layouts[key] = layout
        return layout

    async def _method(self, class_id: ReferenceTypeId, method_id: MethodId) -> tuple[str, str, int]:
        methods = self._methods.get(class_id)
        if methods is None or method_id not in methods:
            reply = await self._client.request(ReferenceType.Methods, ref_type=class_id)
            methods = {m.method_id: (m.name, m.signature, m.mod_bits) for m in reply.declared}
            if len(self._methods) >= MAX_LAYOUTS:
                self._methods.clear()
            self._methods[class_id] = methods
        found = methods.get(method_id)
        if found is None:
            raise UsageError(f"class {class_id:#x} declares no method {method_id:#x}")
        return found
