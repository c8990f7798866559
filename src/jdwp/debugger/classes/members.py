"""The methods (``ReferenceType.Methods``, 2,5) and fields (``ReferenceType.Fields``, 2,4) a class declares,
asked once per class for the session.

Layer: ``jdwp.debugger.classes`` (trio, via ``jdwp.client``); no MCP, no ``android``.
"""

from __future__ import annotations

import logging

from ...client import JdwpClient
from ...protocol.commands.reftypes import FieldInfo, MethodInfo
from ...protocol.constants import ACC_NATIVE
from ...protocol.errors import CommandError
from ...protocol.types import Location, ReferenceTypeId
from ..model import NO_CODE_INDEX
from .line_tables import code_index

__all__ = ["Members"]

log = logging.getLogger("jdwp.debugger")


class Members:
    """Each class's methods (by method ID) and fields: asked once (:meth:`methods`, :meth:`fields`), or read from
    the cache (:meth:`known_methods`, :meth:`known_fields`); a batch is :meth:`.symbols.Symbols.prefetch_classes`."""

    def __init__(self, vm: JdwpClient) -> None:
        self._vm = vm
        self.methods_of: dict[int, dict[int, MethodInfo]] = {}
        self._fields: dict[int, list[FieldInfo]] = {}

    async def methods(self, ref: ReferenceTypeId) -> dict[int, MethodInfo]:
        if ref not in self.methods_of:
            self.methods_of[ref] = {m.method_id: m for m in await self._vm.reference_type.methods(ref)}
        return self.methods_of[ref]

    def known_methods(self, ref: int) -> dict[int, MethodInfo]:
        return self.methods_of.get(ref, {})

    def forget(self, ref: int) -> None:
        """The class was redefined: its methods and fields are asked anew when next needed."""
        self.methods_of.pop(ref, None)
        self._fields.pop(ref, None)

    async def fields(self, ref: ReferenceTypeId) -> list[FieldInfo]:
        """The fields the class declares; none when the VM cannot list them (they only add captured
        variables to locals, which go on without them)."""
        if ref not in self._fields:
            try:
                self._fields[ref] = await self._vm.reference_type.fields(ref)
            except CommandError as exc:
                log.debug("ReferenceType.Fields of %#x: %s", ref, exc)
                self._fields[ref] = []
        return self._fields[ref]

    def known_fields(self, ref: int) -> list[FieldInfo] | None:
        return self._fields.get(ref)

    async def modifiers(self, loc: Location) -> int:
        """The access flags of the location's method (0 when the class no longer lists it)."""
        method = (await self.methods(loc.class_id)).get(loc.method_id)
        return method.mod_bits if method else 0

    async def is_native(self, loc: Location) -> bool:
        return code_index(loc) == NO_CODE_INDEX or bool(await self.modifiers(loc) & ACC_NATIVE)
