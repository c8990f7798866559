"""Bounded array reads: every ``ArrayReference.GetValues`` (13,2) the engine sends asks for at most
:data:`MAX_ELEMENTS` elements, and a longer region is read in chunks sent in one write.

Layer: ``jdwp.debugger`` (via ``jdwp.client``). DESIGN.md §8.1 ("no command may exceed what a VM's agent
survives").

Why a bound at all: HotSpot's back end answers ``ArrayReference.GetValues`` for an object array inside one JNI
local frame sized for the whole region — ``writeObjectComponents`` in OpenJDK's
``src/jdk.jdwp.agent/share/native/libjdwp/ArrayReferenceImpl.c`` calls
``JNI_FUNC_PTR(env,PushLocalFrame)(env, length)`` with the requested ``length`` — and ``PushLocalFrame``
failing there is fatal: it reports ``EXIT_ERROR(AGENT_ERROR_OUT_OF_MEMORY, "PushLocalFrame: Unable to push JNI
frame")``, which ends the whole VM (``JDWP exit error AGENT_ERROR_OUT_OF_MEMORY(188)``, an ``hs_err`` file).
HotSpot refuses frames above its local-reference capacity (``JNIHandleBlock``'s bound behind
``-XX:MaxJNILocalCapacity``, 65,536 by default), so 65,537 references in one command kill the app.

ART runs the same agent (AOSP ``external/oj-libjdwp``, whose ``ArrayReferenceImpl.c`` has the same
``PushLocalFrame(env, length)`` and ``EXIT_ERROR``) on its JVMTI; there the frame is bounded by the thread's
local reference table: ``art/runtime/jni/local_reference_table.h`` (``kMaxTableSizeInBytes``; older
releases' ``indirect_reference_table.h`` ``kLocalsInitial``/``kLocalsMax`` = 512) and
``art/runtime/jni/jni_env_ext.cc`` ``JNIEnvExt::EnsureLocalCapacity``, which fails above its maximum: the same
abort. Releases before the growable table refuse more than ``kLocalsInitial`` (512) less the references the
thread holds already (``art/runtime/jni/jni_internal.cc`` ``EnsureLocalCapacityInternal``), so an Android VM
(``java.vm.name`` ``Dalvik``) is read :data:`MAX_ART_ELEMENTS` at a time. :data:`MAX_ELEMENTS` (4,096) is far
below HotSpot's bound (checked on OpenJDK 17 here; ART from its sources only, not on a device).
Primitive regions are bounded too: their replies are 4 bytes an element or more, and a 10,000,000-element
``int[]`` in one reply would pass the client's packet cap.
"""

from __future__ import annotations

from typing import Any

from ..client import JdwpClient
from ..protocol.commands import ArrayReference
from ..protocol.errors import CommandError, UsageError
from ..protocol.types import ObjectId
from ..protocol.values import ArrayRegion

#: The most elements one ``ArrayReference.GetValues`` asks for (see the module's text for why).
MAX_ELEMENTS = 4096
#: The same on an Android VM, whose older releases cap a JNI local frame at 512 references.
MAX_ART_ELEMENTS = 256
#: The most chunks sent in one write: a longer read is several writes, so the replies held at once stay
#: bounded (64 × 4,096 object references ≈ 2.4 MB of reply).
MAX_CHUNKS_PER_WRITE = 64


def chunk_size(vm: JdwpClient) -> int:
    """The most elements one ``GetValues`` asks of this VM."""
    try:
        name = vm.version_info.vm_name
    except UsageError:
        return MAX_ART_ELEMENTS  # not known (no Version asked): the bound every agent survives
    return MAX_ART_ELEMENTS if "Dalvik" in name else MAX_ELEMENTS


def spans(first: int, count: int, most: int = MAX_ELEMENTS) -> list[tuple[int, int]]:
    """``(first_index, length)`` of the chunks that cover ``count`` elements from ``first``."""
    return [(index, min(most, first + count - index)) for index in range(first, first + count, most)]


async def read_region(vm: JdwpClient, array: ObjectId, first: int, count: int) -> ArrayRegion:
    """Elements ``first`` … ``first+count-1`` of ``array``: one ``GetValues`` when ``count`` is at most
    :data:`MAX_ELEMENTS`, else chunks of that many, :data:`MAX_CHUNKS_PER_WRITE` to a write.

    Raises:
        CommandError: the VM refused a chunk (the first refusal, e.g. ``INVALID_LENGTH``, ``INVALID_OBJECT``).
    """
    most = chunk_size(vm)
    if count <= most:
        return await vm.array_reference.get_values(array, first, count)
    chunks = spans(first, count, most)
    tag: Any = None
    values: list[Any] = []
    for at in range(0, len(chunks), MAX_CHUNKS_PER_WRITE):
        replies = await vm.request_all([
            (ArrayReference.GetValues, ArrayReference.GetValues.out(array_object=array, first_index=index,
                                                                    length=length))
            for index, length in chunks[at:at + MAX_CHUNKS_PER_WRITE]])
        for reply in replies:
            if isinstance(reply, CommandError):
                raise reply
            tag = reply.values.tag if tag is None else tag
            values.extend(reply.values.values)
    return ArrayRegion(tag, values)
