"""A class's supertypes, walked through the VM: what ``instanceof``, overload choice and assignment checks
compare against.

Layer: ``jdwp.debugger`` (trio, via ``jdwp.client``). ``ReferenceType.Interfaces`` (2,10) and
``ClassType.Superclass`` (3,1) per class, once per class walked.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator

from ...protocol.constants import ErrorCode
from ...protocol.errors import CommandError
from ...protocol.types import ReferenceTypeId
from ..names import binary_name_of
from .values import Values

__all__ = ["supertype_names", "supertypes", "walk_supertypes"]


async def supertypes(values: Values, type_id: ReferenceTypeId) -> tuple[ReferenceTypeId | None, list[ReferenceTypeId]]:
    """The superclass (``None`` for an interface or ``java.lang.Object``) and the direct interfaces."""
    vm = values.vm
    interfaces = await vm.reference_type.interfaces(type_id)
    try:
        superclass = await vm.class_type.superclass(type_id)
    except CommandError as exc:  # an interface is no ClassType: the VM refuses it
        if exc.code != ErrorCode.INVALID_CLASS:
            raise
        superclass = None
    return (ReferenceTypeId(superclass) if superclass else None), [ReferenceTypeId(i) for i in interfaces]


async def walk_supertypes(values: Values, type_id: ReferenceTypeId) -> AsyncGenerator[str, None]:
    """The binary names of the type and of each of its superclasses and interfaces, each once, asked as
    they are needed (a caller that finds what it looks for stops asking: ``instanceof``)."""
    seen: set[int] = set()
    pending = [type_id]
    while pending:
        current = pending.pop()
        if current in seen:
            continue
        seen.add(current)
        yield binary_name_of(await values.symbols.signatures.get(current))
        superclass, interfaces = await supertypes(values, current)
        pending.extend(interfaces)
        if superclass:
            pending.append(superclass)


async def supertype_names(values: Values, type_id: ReferenceTypeId) -> frozenset[str]:
    """The binary names of the class, every superclass and every interface it implements, and Object."""
    return frozenset({name async for name in walk_supertypes(values, type_id)} | {"java.lang.Object"})
