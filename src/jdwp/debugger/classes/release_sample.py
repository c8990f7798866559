"""Is the app a release build? Sample its classes for local-variable tables, once, at attach.

Layer: ``jdwp.debugger`` (trio, over ``jdwp.client``); no MCP, no ``android``. docs/design.md §4.6
("Release builds: at attach, sample app classes; when most lack variable tables …").

A release build (R8/D8 without debug info) drops the local-variable tables: every frame of the app then
answers ``Method.VariableTable`` (6,2) with ABSENT_INFORMATION, and locals are unavailable. Checking a few
classes at attach says so up front instead of at the first stop.

Cost: ``VirtualMachine.AllClasses`` (1,3), then one pipelined round of ``ReferenceType.Methods`` (2,5)
for at most :data:`SAMPLE_CLASSES` classes, then one pipelined round of ``Method.VariableTable`` (6,2)
for one method with code per class — three round trips in all, whatever the app's size.
"""

from __future__ import annotations

import dataclasses
from functools import partial

from ...client import JdwpClient
from ...protocol.constants import ACC_ABSTRACT, ACC_NATIVE
from ...protocol.errors import AbsentInformation, CommandError
from ...protocol.types import MethodId, ReferenceTypeId
from .._gather import gather

__all__ = ["SAMPLE_CLASSES", "ReleaseSample", "sample_release_build"]

SAMPLE_CLASSES = 12
_PREPARED = 2  # ClassStatus.PREPARED
_NO_CODE = ACC_NATIVE | ACC_ABSTRACT


@dataclasses.dataclass(frozen=True, slots=True)
class ReleaseSample:
    """``sampled`` classes had a method with code; ``without_tables`` of them answered ABSENT_INFORMATION."""

    sampled: int
    without_tables: int

    @property
    def release_build_likely(self) -> bool:
        return self.sampled > 0 and self.without_tables * 2 > self.sampled


def _app_class(signature: str, prefixes: tuple[str, ...]) -> bool:
    # Generated holders (R, BuildConfig) carry no code worth sampling.
    if not any(signature.startswith(p) for p in prefixes):
        return False
    simple = signature.rsplit("/", 1)[-1]
    return not (simple.startswith(("R;", "R$", "BuildConfig;")))


async def sample_release_build(vm: JdwpClient, packages: tuple[str, ...]) -> ReleaseSample:
    """Sample prepared classes of ``packages`` (Java package names, e.g. ``com.example.app``).

    Raises:
        JdwpError: the VM failed a command other than with ABSENT_INFORMATION.
    """
    prefixes = tuple("L" + p.replace(".", "/") + "/" for p in packages)
    classes = [c for c in await vm.all_classes() if c.status & _PREPARED and _app_class(c.signature, prefixes)]
    classes.sort(key=lambda c: c.signature)  # the same sample for the same app, whatever the VM's order
    chosen = classes[:: max(1, len(classes) // SAMPLE_CLASSES)][:SAMPLE_CLASSES]
    methods = await gather([partial(_methods, vm, c.type_id) for c in chosen])
    targets = [(c.type_id, m) for c, m in zip(chosen, methods, strict=True) if m is not None]
    answers = await gather([partial(_has_table, vm, ref, method) for ref, method in targets])
    return ReleaseSample(len(answers), sum(1 for has in answers if not has))


async def _methods(vm: JdwpClient, ref: ReferenceTypeId) -> MethodId | None:
    """The id of the class's first method with code, or ``None`` (an interface, a class of natives)."""
    try:
        found = await vm.reference_type.methods(ref)
    except CommandError:
        return None  # unloaded meanwhile: leave it out of the sample
    with_code = [m for m in found if not m.mod_bits & _NO_CODE]
    return with_code[0].method_id if with_code else None


async def _has_table(vm: JdwpClient, ref: ReferenceTypeId, method: MethodId) -> bool:
    try:
        await vm.method.variable_table(ref, method)
    except AbsentInformation:
        return False
    return True
