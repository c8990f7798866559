"""Bounded array reads: every ``ArrayReference.GetValues`` (13,2) the engine sends asks for at most
:data:`MAX_ELEMENTS` elements, and a longer region is read in chunks sent in one write.

Layer: ``jdwp.debugger`` (via ``jdwp.client``). docs/design.md §2.7 ("no command may exceed what a VM's agent
survives").

Why a bound at all: HotSpot's back end answers ``ArrayReference.GetValues`` for an object array inside one JNI
local frame sized for the whole region: ``writeObjectComponents`` in OpenJDK's
``src/jdk.jdwp.agent/share/native/libjdwp/ArrayReferenceImpl.c`` opens ``WITH_LOCAL_REFS(env, length)`` with
the requested ``length``, and that macro's ``createLocalRefSpace`` (``libjdwp/util.c``) calls
``PushLocalFrame(env, capacity)`` and, when it fails, ``EXIT_ERROR(AGENT_ERROR_OUT_OF_MEMORY, "PushLocalFrame:
Unable to push JNI frame")``, which ends the whole VM (``JDWP exit error AGENT_ERROR_OUT_OF_MEMORY(188)``, an
``hs_err`` file). HotSpot's ``jni_PushLocalFrame`` (``src/hotspot/share/prims/jni.cpp``) answers ``JNI_ERR`` for
a capacity above ``-XX:MaxJNILocalCapacity`` (65,536 by default), so 65,537 references in one command kill
the app (issue 23 measured it at a 65,536-slot table and more).

ART runs the same agent (AOSP ``external/oj-libjdwp``, the same ``ArrayReferenceImpl.c`` and ``util.c``) on its
JVMTI, so its bound is ART's ``PushLocalFrame``: ``art/runtime/jni/jni_internal.cc`` passes the capacity to
``EnsureLocalCapacityInternal``, which in the releases before the growable local reference table refuses more
than ``kLocalsInitial`` (512) less the references the thread already holds ("TODO: we should try to expand
the table if necessary"); current releases grow the table (``art/runtime/jni/local_reference_table.h``,
``EnsureFreeCapacity``, doubling from ``kInitialLrtBytes``) up to its maximum. So an Android VM
(``java.vm.name`` ``Dalvik``) is read :data:`MAX_ART_ELEMENTS` at a time, well below 512. :data:`MAX_ELEMENTS`
(4,096) is far below HotSpot's bound. Checked on OpenJDK 17 here; ART from its sources only, not on a device.
Primitive regions are bounded too: their replies are 4 bytes an element or more, and a 10,000,000-element
``int[]`` in one reply would pass the client's packet cap.
"""

from __future__ import annotations

from typing import Any

from ...client import JdwpClient
from ...protocol.commands import ArrayReference
from ...protocol.errors import CommandError, UsageError
from ...protocol.types import ObjectId
from ...protocol.values import ArrayRegion

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
