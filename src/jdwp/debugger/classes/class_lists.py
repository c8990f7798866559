"""What the class listings tell: the types of a signature, the last ``VirtualMachine.AllClasses`` (1,3)
listing's signatures, and class loaders as callers learnt them.

Layer: ``jdwp.debugger.classes``; no MCP, no ``android``. A type ID names one class for as long as the
connection lasts (a JDWP back end does not reuse IDs), so nothing here is ever wrong, only short.
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["ClassLists"]


class ClassLists:
    """The session's class listings (:class:`.signatures.Signatures` keeps the signatures themselves)."""

    def __init__(self) -> None:
        self.listed: Mapping[int, str] = {}  # the last class listing's signatures (a breakpoint's)
        self._by_signature: dict[str, set[int]] = {}
        self._loaders: dict[int, int] = {}

    def note_listing(self, signatures: Mapping[int, str]) -> None:
        """The signatures of a class listing (``VirtualMachine.AllClasses``, which a breakpoint reads): a type
        listed there needs no ``ReferenceType.Signature`` later. An older listing is never wrong, only short.
        """
        self.listed = signatures

    def add(self, ref: int, signature: str) -> None:
        """A type of ``signature`` seen (its signature learnt: :meth:`.signatures.Signatures.note`)."""
        self._by_signature.setdefault(signature, set()).add(ref)

    def ids_of(self, signature: str) -> set[int]:
        """The types with this signature the session has seen (several when class loaders each define one)."""
        return self._by_signature.get(signature, set())

    def loader(self, ref: int) -> int | None:
        """The class's loader, when a caller learnt it (:meth:`note_loader`)."""
        return self._loaders.get(ref)

    def note_loader(self, ref: int, loader: int) -> None:
        """A class's loader as a caller's own ``ReferenceType.ClassLoader`` (2,2) answered it."""
        self._loaders[ref] = loader
