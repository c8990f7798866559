"""Strings read only as far as shown, and a string the VM must send whole over the packet cap (docs/design.md §2.7).

Scripted heaps stand for the two layouts: HotSpot's (OpenJDK 17: ``java.lang.String`` with ``byte[] value`` and
``byte coder``; the VM named as OpenJDK names itself in ``VirtualMachine.Version``) and ART's (``count`` with
the characters inline, ``count_ = length << 1 | uncompressed``, art/runtime/mirror/string.h; the VM named
``Dalvik``). The fake encodes every reply as the VM would, byte for byte; the client's packet cap is lowered to
64 KiB so that ART's whole-string reply of a 100,000-char string is over it, as a 30M-char one is over 64 MiB.
"""

from __future__ import annotations

from typing import Any

from heap_vm import OBJECT, STRING, Heap
from test_debugger_faults import locals_at_a_hit, scripted

from jdwp.protocol.commands.vm import VersionReply
from jdwp.protocol.constants import Tag
from jdwp.protocol.values import Value
from support.fakevm import Handler, ScriptedVm

CAP = 64 * 1024
OPENJDK = VersionReply("Java Debug Wire Protocol (Reference Implementation) version 17.0", 17, 0, "17.0.9",
                       "OpenJDK 64-Bit Server VM")
ART = VersionReply("Android Runtime", 1, 8, "2.1.0", "Dalvik")
HUGE = "ab\u00e9" * 40_000  # 120,000 units, LATIN1 on HotSpot (all below U+0100)
WIDE = "\u20ac" + "x" * 9_999  # 10,000 units, UTF16 on HotSpot


def _heap(layout: str) -> tuple[Heap, list[tuple[str, str, Value]], dict[int, str]]:
    heap = Heap()
    heap.klass(OBJECT, "Ljava/lang/Object;", 0)
    byte_array = heap.klass(0x2001, "[B", 0)
    if layout == "hotspot":
        heap.klass(STRING, "Ljava/lang/String;", OBJECT, ("value", "[B"), ("coder", "B"), ("hash", "I"))
    else:
        heap.klass(STRING, "Ljava/lang/String;", OBJECT, ("count", "I"), ("hash", "I"))
    texts: dict[int, str] = {}
    locals_: list[tuple[str, str, Value]] = []
    for name, text in (("huge", HUGE), ("wide", WIDE), ("small", "hi")):
        string = heap.string(text)
        texts[string.value] = text  # type: ignore[index]
        if layout == "hotspot":
            latin = all(ord(c) < 256 for c in text)
            data = text.encode("latin-1") if latin else text.encode("utf-16-le")
            array = heap.array(byte_array, Tag.BYTE, [b - 256 if b > 127 else b for b in data])
            heap.objects[string.value] = (STRING, {"value": array,  # type: ignore[index]
                                                   "coder": Value(Tag.BYTE, 0 if latin else 1)})
        else:
            heap.objects[string.value] = (STRING, {"count": Value(Tag.INT, len(text) << 1 | 1)})  # type: ignore[index]
        locals_.append((name, "Ljava/lang/String;", string))
    return heap, locals_, texts


def _handlers(heap: Heap, local_names: list[tuple[str, str, Value]], version: VersionReply,
              lengths: list[int] | None = None) -> Any:
    def handlers(vm_ref: list[ScriptedVm]) -> dict[str, Handler]:
        table = heap.handlers(vm_ref, local_names)
        table["VirtualMachine.Version"] = lambda out: version
        region = table["ArrayReference.GetValues"]

        def counted(out: Any) -> Any:
            if lengths is not None:
                lengths.append(out.length)
            return region(out)

        table["ArrayReference.GetValues"] = counted
        return table
    return handlers


async def _frame(debugger: Any, stop_id: str) -> str:
    return str((await debugger.stack(stop_id, debugger.current_stop.thread_id)).frames[0].frame_id)


async def test_hotspot_strings_are_read_from_their_fields_as_far_as_shown() -> None:
    heap, local_names, _ = _heap("hotspot")
    lengths: list[int] = []
    async with scripted(_handlers(heap, local_names, OPENJDK, lengths), max_packet=CAP) as (vm, debugger):
        stop_id, found = await locals_at_a_hit(vm, debugger)
        frame = await _frame(debugger, stop_id)
        by_name = {local.name: local for local in found.locals}
        assert (by_name["huge"].value, by_name["huge"].length, by_name["huge"].truncated) == (HUGE[:256], 120_000,
                                                                                            True)
        assert (by_name["wide"].value, by_name["wide"].length, by_name["wide"].truncated) == (WIDE[:256], 10_000,
                                                                                            True)
        assert (by_name["small"].value, by_name["small"].length, by_name["small"].truncated) == ("hi", 2, False)
        # Only the short one whole; the long ones' prefixes from their arrays; never a whole long string.
        assert vm.count("StringReference.Value") == 1
        assert debugger.vm.statistics()["oversized"] == 0
        # A page of the 120,000-unit string reads that page's units alone, in commands of at most 4,096.
        page = await debugger.object(stop_id, by_name["huge"].object_id, offset=100_000, limit=10_000)
        assert (page.text, page.total, page.next_offset) == (HUGE[100_000:110_000], 120_000, 110_000)
        assert vm.count("StringReference.Value") == 1
        # Every array read was bounded: the prefixes (257 units of each long one) and the page's 10,000 bytes.
        assert max(lengths) <= 4096 and sum(lengths) == 257 + 2 * 257 + 10_000
        # The same strings again: read once, kept with their handles.
        before = len(vm.sent)
        again = await debugger.locals(stop_id, frame)
        assert {v.name: v.value for v in again.locals}["huge"] == HUGE[:256]
        assert "ArrayReference.GetValues" not in vm.sent[before:]


async def test_art_string_over_the_cap_is_that_value_s_answer_with_its_length_and_a_note() -> None:
    heap, local_names, _ = _heap("art")
    async with scripted(_handlers(heap, local_names, ART), max_packet=CAP) as (vm, debugger):
        stop_id, found = await locals_at_a_hit(vm, debugger)
        frame = await _frame(debugger, stop_id)
        by_name = {local.name: local for local in found.locals}
        huge = by_name["huge"]
        assert (huge.kind, huge.value, huge.truncated, huge.length) == ("string", None, True, 120_000)
        assert huge.note is not None and "packet limit" in huge.note and "120,000" in huge.note
        assert (by_name["wide"].value, by_name["wide"].length) == (WIDE[:256], 10_000)  # under the cap: read
        assert debugger.vm.statistics()["oversized"] == 1
        # The session goes on: a page of the string says the same; another call is answered.
        page = await debugger.object(stop_id, huge.object_id)
        assert (page.text, page.total, page.length) == (None, 120_000, 120_000) and page.note == huge.note
        assert (await debugger.evaluate(stop_id, frame, "small")).value == "hi"
        assert not debugger.vm.is_closed
