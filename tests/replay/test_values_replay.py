"""Locals against a scripted VM: ART's all-or-nothing ``StackFrame.GetValues`` (16,1).

ART runs OpenJDK's JDWP back end (libjdwp) over its own JVMTI: libjdwp's ``StackFrame.GetValues`` reads
the slots one by one and answers the first JVMTI error for the whole command, and ART's
``GetLocalVariable*`` (openjdkjvmti ``ti_method.cc``) fails a slot that the compiled frame no longer
holds or whose type the verifier sees otherwise (INVALID_SLOT, TYPE_MISMATCH; OPAQUE_FRAME for a frame it
cannot read at all). HotSpot, interpreting debuggee frames, rarely shows this, so the scripted VM does:
one bad slot must cost only its own variable.

Containers of another library's layout (Android 6's libcore ``TreeMap`` of AVL ``TreeMap$Node``s) are
shown as fields with a note: a reader checks the fields it reads and never guesses. Links that end before
the container's size (another thread mid-change) make a short last page with a note, never a loop.
"""

from __future__ import annotations

from collections.abc import Callable

from test_debugger_faults import class_handlers, locals_at_a_hit, scripted

from jdwp.debugger import Debugger
from jdwp.protocol.commands.objects import ReferenceTypeReply
from jdwp.protocol.commands.reftypes import (
    FieldInfo,
    FieldsReply,
    SignatureReply,
    SuperclassReply,
    ValuesReply,
    VariableSlot,
    VariableTableReply,
)
from jdwp.protocol.commands.threads import ThisObjectReply
from jdwp.protocol.constants import ErrorCode, Tag
from jdwp.protocol.values import Value
from support.fakevm import Handler, ScriptedVm

SLOTS = [VariableSlot(0, "good", "I", 20, 0), VariableSlot(0, "bad", "J", 20, 1), VariableSlot(0, "also", "Z", 20, 3)]


def art_like(vm_ref: list[ScriptedVm]) -> dict[str, Handler]:
    table = class_handlers(vm_ref)
    table["Method.VariableTable"] = lambda out: VariableTableReply(0, SLOTS)
    table["StackFrame.ThisObject"] = lambda out: ThisObjectReply(Value(Tag.OBJECT, 0))

    def get_values(out: object) -> object:
        slots = out.slots  # type: ignore[attr-defined]
        if any(s.slot == 1 for s in slots):
            return ErrorCode.INVALID_SLOT  # the whole reply fails at the first bad slot, as libjdwp answers
        return ValuesReply([Value(Tag.INT, 7) if s.slot == 0 else Value(Tag.BOOLEAN, True) for s in slots])

    table["StackFrame.GetValues"] = get_values
    return table


async def test_one_unreadable_slot_costs_only_its_own_variable() -> None:
    async with scripted(art_like) as (vm, debugger):
        stop_id, result = await locals_at_a_hit(vm, debugger)
        assert result.availability == "available"
        by_name = {local.name: local for local in result.locals}
        assert (by_name["good"].kind, by_name["good"].value) == ("primitive", "7")
        assert (by_name["also"].kind, by_name["also"].value) == ("primitive", "true")
        bad = by_name["bad"]
        assert (bad.kind, bad.value, bad.reason, bad.type) == ("unavailable", None, "INVALID_SLOT", "long")
        assert vm.count("StackFrame.GetValues") == 4  # all at once, then each slot alone
        await debugger.resume(stop_id)


# Android 6's libcore TreeMap: the same root/size, but AVL nodes TreeMap$Node (no TreeMap$Entry fields).
MAP, MAP_TYPE, NODE, NODE_TYPE = 0x500, 0x900, 0x501, 0x901
MAP_FIELDS = [FieldInfo(1, "root", "Ljava/util/TreeMap$Node;", 2), FieldInfo(2, "size", "I", 0),
              FieldInfo(3, "modCount", "I", 0)]
NODE_FIELDS = [FieldInfo(11 + i, name, signature, 0) for i, (name, signature) in enumerate([
    ("parent", "Ljava/util/TreeMap$Node;"), ("left", "Ljava/util/TreeMap$Node;"), ("right", "Ljava/util/TreeMap$Node;"),
    ("key", "Ljava/lang/Object;"), ("value", "Ljava/lang/Object;"), ("height", "I")])]


def one_container(signature: str, fields: list[FieldInfo], node_signature: str, node_fields: list[FieldInfo],
                  values: dict[tuple[int, int], Value]) -> Callable[[list[ScriptedVm]], dict[str, Handler]]:
    """A stop whose one local ``m`` is the object MAP (of ``signature``) with one node NODE; ``values``
    answers ``ObjectReference.GetValues`` by (object, field)."""
    def handlers(vm_ref: list[ScriptedVm]) -> dict[str, Handler]:
        table = class_handlers(vm_ref)
        table["Method.VariableTable"] = lambda out: VariableTableReply(0, [VariableSlot(0, "m", signature, 20, 0)])
        table["StackFrame.ThisObject"] = lambda out: ThisObjectReply(Value(Tag.OBJECT, 0))
        table["StackFrame.GetValues"] = lambda out: ValuesReply([Value(Tag.OBJECT, MAP)])
        table["ObjectReference.ReferenceType"] = lambda out: ReferenceTypeReply(
            1, {MAP: MAP_TYPE, NODE: NODE_TYPE}.get(out.object, STRING_TYPE))
        signatures = {MAP_TYPE: signature, NODE_TYPE: node_signature, STRING_TYPE: "Ljava/lang/Object;"}
        table["ReferenceType.Signature"] = lambda out: SignatureReply(signatures.get(out.ref_type, "Lcom/example/Q;"))
        by_type = {MAP_TYPE: fields, NODE_TYPE: node_fields, STRING_TYPE: []}
        table["ReferenceType.Fields"] = lambda out: FieldsReply(by_type[out.ref_type])
        table["ClassType.Superclass"] = lambda out: SuperclassReply(0)
        table["ObjectReference.GetValues"] = lambda out: ValuesReply([values[(out.object, f)] for f in out.fields])
        return table
    return handlers


STRING_TYPE = 0x902
other_tree_map = one_container("Ljava/util/TreeMap;", MAP_FIELDS, "Ljava/util/TreeMap$Node;", NODE_FIELDS, {
    (MAP, 1): Value(Tag.OBJECT, NODE), (MAP, 2): Value(Tag.INT, 1), (MAP, 3): Value(Tag.INT, 1)})
# A LinkedList whose size says 3 but whose links end after one node (another thread was mid-change).
short_list = one_container("Ljava/util/LinkedList;", [FieldInfo(1, "size", "I", 0), FieldInfo(
    2, "first", "Ljava/util/LinkedList$Node;", 0), FieldInfo(3, "last", "Ljava/util/LinkedList$Node;", 0)],
    "Ljava/util/LinkedList$Node;", [FieldInfo(11, "item", "Ljava/lang/Object;", 0), FieldInfo(
        12, "next", "Ljava/util/LinkedList$Node;", 0), FieldInfo(13, "prev", "Ljava/util/LinkedList$Node;", 0)], {
    (MAP, 1): Value(Tag.INT, 3), (MAP, 2): Value(Tag.OBJECT, NODE), (MAP, 3): Value(Tag.OBJECT, NODE),
    (NODE, 11): Value(Tag.OBJECT, 0x503), (NODE, 12): Value(Tag.OBJECT, 0), (NODE, 13): Value(Tag.OBJECT, 0)})


async def container_local(vm: ScriptedVm, debugger: Debugger) -> tuple[str, str]:
    """The stop's id and the handle of its one local."""
    stop_id, result = await locals_at_a_hit(vm, debugger)
    (local,) = result.locals
    assert local.object_id is not None
    return stop_id, local.object_id


async def test_a_tree_map_of_another_layout_is_shown_as_fields_with_a_note() -> None:
    async with scripted(other_tree_map) as (vm, debugger):
        stop_id, handle = await container_local(vm, debugger)
        shown = await debugger.object(stop_id, handle, depth=0)  # the scripted heap has no node fields to preview
        assert shown.runtime_type == "java.util.TreeMap"
        assert shown.view == "fields" and [f.name for f in shown.fields] == ["root", "size", "modCount"]
        assert shown.note is not None and "key, value, left, right" in shown.note
        assert shown.fields[0].runtime_type == "java.util.TreeMap$Node"
        await debugger.resume(stop_id)


async def test_links_ending_before_the_size_make_a_last_page_with_a_note() -> None:
    async with scripted(short_list) as (vm, debugger):
        stop_id, handle = await container_local(vm, debugger)
        shown = await debugger.object(stop_id, handle)
        assert (shown.view, shown.size, len(shown.elements)) == ("list", 3, 1)
        assert shown.next_offset is None and shown.note is not None and "ended after 1 of 3" in shown.note
        await debugger.resume(stop_id)


# An android.util.ArrayMap of a layout no release has (keys and values in two arrays): shown as fields.
other_array_map = one_container("Landroid/util/ArrayMap;", [FieldInfo(1, "keys", "[Ljava/lang/Object;", 0), FieldInfo(
    2, "values", "[Ljava/lang/Object;", 0), FieldInfo(3, "mSize", "I", 0)], "Ljava/lang/Object;", [], {
    (MAP, 1): Value.null(), (MAP, 2): Value.null(), (MAP, 3): Value(Tag.INT, 0)})
# A SparseArray with removals pending (mGarbage) whose class lacks the DELETED marker it would skip.
unmarked_sparse = one_container("Landroid/util/SparseArray;", [FieldInfo(1, "mKeys", "[I", 2), FieldInfo(
    2, "mValues", "[Ljava/lang/Object;", 2), FieldInfo(3, "mSize", "I", 2), FieldInfo(4, "mGarbage", "Z", 2)],
    "Ljava/lang/Object;", [], {(MAP, 1): Value(Tag.OBJECT, 0x601), (MAP, 2): Value(Tag.OBJECT, 0x602),
                               (MAP, 3): Value(Tag.INT, 2), (MAP, 4): Value(Tag.BOOLEAN, True)})


async def test_android_containers_of_another_layout_are_shown_as_fields_with_a_note() -> None:
    async with scripted(other_array_map) as (vm, debugger):
        stop_id, handle = await container_local(vm, debugger)
        shown = await debugger.object(stop_id, handle)
        assert shown.view == "fields" and [f.name for f in shown.fields] == ["keys", "values", "mSize"]
        assert shown.note is not None and "mHashes/mArray/mSize or hashes/array/size" in shown.note
        assert vm.count("ArrayReference.GetValues") == 0  # nothing guessed
        await debugger.resume(stop_id)
    async with scripted(unmarked_sparse) as (vm, debugger):
        stop_id, handle = await container_local(vm, debugger)
        shown = await debugger.object(stop_id, handle)
        assert shown.view == "fields" and shown.note is not None and "DELETED" in shown.note
        await debugger.resume(stop_id)
