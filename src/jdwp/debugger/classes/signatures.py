"""Types' signatures (``ReferenceType.Signature``, 2,1), asked once per type for the session.

Layer: ``jdwp.debugger.classes`` (trio, via ``jdwp.client``); no MCP, no ``android``.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import partial

from ...client import JdwpClient
from ...protocol.types import ReferenceTypeId
from .._gather import gather
from ..names import binary_name_of
from .class_lists import ClassLists

__all__ = ["Signatures"]


class Signatures:
    """Each type's signature: :meth:`get` one, :meth:`fetch` many in one round trip, :meth:`known` from the
    cache (or the last class listing, :class:`.class_lists.ClassLists`)."""

    def __init__(self, vm: JdwpClient, lists: ClassLists) -> None:
        self._vm = vm
        self._lists = lists
        self._signatures: dict[int, str] = {}

    async def get(self, ref: ReferenceTypeId) -> str:
        signature = self.known(ref)
        if signature is None:
            signature = await self._vm.reference_type.signature(ref)
            self.note(ref, signature)
        return signature

    def known(self, ref: int) -> str | None:
        signature = self._signatures.get(ref)
        if signature is None:
            signature = self._lists.listed.get(ref)
            if signature is not None:
                self.note(ref, signature)
        return signature

    def note(self, ref: int, signature: str) -> None:
        """A type's signature learnt another way (``VirtualMachine.ClassesBySignature`` names it)."""
        if ref not in self._signatures:
            self._signatures[ref] = signature
            self._lists.add(ref, signature)

    async def fetch(self, refs: Iterable[int]) -> None:
        """Signatures of every type not known yet: one round trip (the runtime types of values)."""
        missing = [ReferenceTypeId(r) for r in dict.fromkeys(refs) if self.known(r) is None]
        if missing:
            await gather([partial(self.get, r) for r in missing])

    def name(self, ref: int) -> str | None:
        """The binary name of a type whose signature is known (after :meth:`fetch`)."""
        signature = self.known(ref)
        return binary_name_of(signature) if signature is not None else None
