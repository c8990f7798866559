"""A scripted heap for counting the round trips of value reads (issue 12's budgets) in waves.

The stop of :mod:`test_debugger_faults` (``com.example.Q``:5) gets four locals laid out as OpenJDK 17 lays
them out: ``map`` (a ``HashMap`` of 10,000 ``Integer`` → ``String`` entries in a table of 16,384 buckets),
``list`` (an ``ArrayList`` of 10,000 ``Integer``s), ``wide`` (an object of 50 fields, 20 of them strings)
and ``a`` (``a.b.c[3].d``). The handlers answer from that model.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from test_debugger_faults import CLASS_ID, class_handlers

from jdwp.protocol.commands.objects import ArrayGetValuesReply, ArrayLengthReply, ReferenceTypeReply, StringValueReply
from jdwp.protocol.commands.reftypes import (
    FieldInfo,
    FieldsReply,
    InterfacesReply,
    LineTableReply,
    SignatureReply,
    SuperclassReply,
    ValuesReply,
    VariableSlot,
    VariableTableReply,
)
from jdwp.protocol.commands.threads import ThisObjectReply
from jdwp.protocol.commands.vm import AllClassesReply, ClassesBySignatureReply, ClassInfo, ClassRef
from jdwp.protocol.constants import ErrorCode, Tag, TypeTag
from jdwp.protocol.values import ArrayRegion, Value
from support.fakevm import Handler, ScriptedVm

ENTRIES, BUCKETS = 10_000, 16_384


@dataclasses.dataclass
class Klass:
    signature: str
    superclass: int
    fields: list[tuple[str, str]]  # (name, signature), instance fields, ids assigned in order

    def field_infos(self, first_id: int) -> list[FieldInfo]:
        return [FieldInfo(first_id + k, name, sig, 0) for k, (name, sig) in enumerate(self.fields)]


class Heap:
    """Classes, objects (fields by name), arrays and strings, by ID."""

    def __init__(self) -> None:
        self.classes: dict[int, Klass] = {}
        self.objects: dict[int, tuple[int, dict[str, Value]]] = {}
        self.arrays: dict[int, tuple[int, Tag, list[Any]]] = {}
        self.strings: dict[int, str] = {}
        self._next = 0x100000

    def klass(self, type_id: int, signature: str, superclass: int, *fields: tuple[str, str]) -> int:
        self.classes[type_id] = Klass(signature, superclass, list(fields))
        return type_id

    def fresh(self) -> int:
        self._next += 1
        return self._next

    def obj(self, type_id: int, **fields: Value) -> Value:
        oid = self.fresh()
        self.objects[oid] = (type_id, dict(fields))
        return Value(Tag.OBJECT, oid)

    def string(self, text: str) -> Value:
        oid = self.fresh()
        self.strings[oid] = text
        return Value(Tag.STRING, oid)

    def array(self, type_id: int, tag: Tag, values: list[Any]) -> Value:
        oid = self.fresh()
        self.arrays[oid] = (type_id, tag, values)
        return Value(Tag.ARRAY, oid)

    def field_id(self, type_id: int, name: str) -> int:
        names = [n for n, _ in self.classes[type_id].fields]
        return type_id * 1000 + names.index(name)

    def infos(self, type_id: int) -> list[FieldInfo]:
        return self.classes[type_id].field_infos(type_id * 1000)

    def handlers(self, vm_ref: list[ScriptedVm], local_names: list[tuple[str, str, Value]]) -> dict[str, Handler]:
        table = class_handlers(vm_ref)
        # Classes nested in Q (``com.example.Q$B``) are listed with it, as a breakpoint's bind lists the loaded
        # classes; only Q has code at the breakpoint's line.
        nested = [ClassInfo(TypeTag.CLASS, type_id, k.signature, 7) for type_id, k in self.classes.items()
                  if k.signature.startswith("Lcom/example/Q$")]
        original_listing, original_lines = table["VirtualMachine.AllClasses"], table["Method.LineTable"]
        table["VirtualMachine.AllClasses"] = lambda out: AllClassesReply(original_listing(out).classes + nested)
        table["Method.LineTable"] = lambda out: original_lines(out) if out.ref_type == CLASS_ID else LineTableReply(
            -1, -1, [])
        by_signature = {k.signature: type_id for type_id, k in self.classes.items()}

        def type_of(oid: int) -> int:
            if oid in self.strings:
                return STRING
            if oid in self.arrays:
                return self.arrays[oid][0]
            return self.objects[oid][0]

        def field_value(oid: int, field_id: int) -> Value | None:
            """A field by name, or by ``0x<declaring class>.name`` where a subclass shadows it; ``None`` (the
            reply is INVALID_FIELDID, as on ART) for a field of a class the object is not an instance of."""
            type_id, index = divmod(field_id, 1000)
            cls, fields = self.objects[oid]
            while cls and cls != type_id:
                cls = self.classes[cls].superclass
            if not cls:
                return None
            name = self.classes[type_id].fields[index][0]
            return fields.get(f"{type_id:#x}.{name}", fields.get(name, Value.null()))

        def get_values(out: Any) -> Any:
            read = [field_value(out.object, f) for f in out.fields]
            return ErrorCode.INVALID_FIELDID if None in read else ValuesReply(read)

        def region(out: Any) -> Any:
            _, tag, values = self.arrays[out.array_object]
            if out.first_index + out.length > len(values):
                return ErrorCode.INVALID_LENGTH
            return ArrayGetValuesReply(ArrayRegion(tag, values[out.first_index:out.first_index + out.length]))

        def classes_by_signature(out: Any) -> Any:
            found = by_signature.get(out.signature)
            if found is not None:
                return ClassesBySignatureReply([ClassRef(TypeTag.CLASS, found, 7)])
            if out.signature.startswith("Ljava/lang/"):  # a class of the platform the heap does not hold
                return ClassesBySignatureReply([])
            return original_by_signature(out)

        original_by_signature = table["VirtualMachine.ClassesBySignature"]
        original_signature = table["ReferenceType.Signature"]
        table.update({
            "Method.VariableTable": lambda out: VariableTableReply(0, [
                VariableSlot(0, name, sig, 20, slot) for slot, (name, sig, _) in enumerate(local_names)]),
            "StackFrame.ThisObject": lambda out: ThisObjectReply(Value(Tag.OBJECT, 0)),
            "StackFrame.GetValues": lambda out: ValuesReply([local_names[s.slot][2] for s in out.slots]),
            "ObjectReference.ReferenceType": lambda out: ReferenceTypeReply(
                TypeTag.ARRAY if out.object in self.arrays else TypeTag.CLASS, type_of(out.object)),
            "ReferenceType.Signature": lambda out: SignatureReply(self.classes[out.ref_type].signature)
            if out.ref_type in self.classes else original_signature(out),
            "ReferenceType.Fields": lambda out: FieldsReply(self.infos(out.ref_type)),
            "ReferenceType.Interfaces": lambda out: InterfacesReply([]),
            "ClassType.Superclass": lambda out: SuperclassReply(self.classes[out.clazz].superclass),
            "ObjectReference.GetValues": get_values,
            "ArrayReference.Length": lambda out: ArrayLengthReply(len(self.arrays[out.array_object][2])),
            "ArrayReference.GetValues": region,
            "StringReference.Value": lambda out: StringValueReply(self.strings[out.string_object]),
            "VirtualMachine.ClassesBySignature": classes_by_signature,
        })
        return table


OBJECT, STRING = 0x1000, 0x1006


def standard_heap(nested: bool = False) -> tuple[Heap, list[tuple[str, str, Value]]]:
    """The four locals of the budgets, laid out as on OpenJDK 17; with ``nested``, the classes of ``a.b.c[3].d``
    are nested in the breakpoint's class Q (as the bench's are in ``Heap``), so its bind names them."""
    outer = "Lcom/example/Q$" if nested else "Lcom/example/"
    heap = Heap()
    heap.klass(OBJECT, "Ljava/lang/Object;", 0)
    abstract_map = heap.klass(0x1001, "Ljava/util/AbstractMap;", OBJECT, ("keySet", "Ljava/util/Set;"),
                              ("values", "Ljava/util/Collection;"))
    hash_map = heap.klass(0x1002, "Ljava/util/HashMap;", abstract_map, ("table", "[Ljava/util/HashMap$Node;"),
                          ("entrySet", "Ljava/util/Set;"), ("size", "I"), ("modCount", "I"), ("threshold", "I"),
                          ("loadFactor", "F"))
    node = heap.klass(0x1003, "Ljava/util/HashMap$Node;", OBJECT, ("hash", "I"), ("key", "Ljava/lang/Object;"),
                      ("value", "Ljava/lang/Object;"), ("next", "Ljava/util/HashMap$Node;"))
    number = heap.klass(0x1005, "Ljava/lang/Number;", OBJECT)
    integer = heap.klass(0x1004, "Ljava/lang/Integer;", number, ("value", "I"))
    heap.klass(STRING, "Ljava/lang/String;", OBJECT)
    collection = heap.klass(0x1009, "Ljava/util/AbstractCollection;", OBJECT)
    abstract_list = heap.klass(0x1008, "Ljava/util/AbstractList;", collection, ("modCount", "I"))
    array_list = heap.klass(0x1007, "Ljava/util/ArrayList;", abstract_list, ("elementData", "[Ljava/lang/Object;"),
                            ("size", "I"))
    node_array = heap.klass(0x100A, "[Ljava/util/HashMap$Node;", 0)
    object_array = heap.klass(0x100B, "[Ljava/lang/Object;", 0)
    wide_fields = [(f"s{k:02d}", "Ljava/lang/String;") for k in range(20)] + [(f"p{k:02d}", "I") for k in range(30)]
    wide = heap.klass(0x100C, "Lcom/example/Wide;", OBJECT, *wide_fields)
    d_class = heap.klass(0x100F, f"{outer}D;", OBJECT, ("d", "I"))
    d_array = heap.klass(0x1010, f"[{outer}D;", 0)
    b_class = heap.klass(0x100E, f"{outer}B;", OBJECT, ("c", f"[{outer}D;"))
    # e: declared B, a B2 whose own c shadows B's; x and y: declared X (a class by the same name as another
    # loader's B would be), each holding a B.
    b2_class = heap.klass(0x1011, f"{outer}B2;", b_class, ("c", f"[{outer}D;"))
    heap.klass(0x1012, f"{outer}X;", OBJECT, ("c", f"[{outer}D;"))
    a_class = heap.klass(0x100D, f"{outer}A;", OBJECT, ("b", f"{outer}B;"), ("e", f"{outer}B;"),
                         ("x", f"{outer}X;"), ("y", f"{outer}X;"))

    boxes = [heap.obj(integer, value=Value(Tag.INT, k)) for k in range(ENTRIES)]
    buckets: list[Value] = [Value.null()] * BUCKETS
    for k in range(ENTRIES):  # Integer k hashes to k: one node per bucket, as on OpenJDK
        buckets[k] = heap.obj(node, hash=Value(Tag.INT, k), key=boxes[k], value=heap.string(f"v{k}"))
    table = heap.array(node_array, Tag.OBJECT, buckets)
    the_map = heap.obj(hash_map, table=table, size=Value(Tag.INT, ENTRIES), threshold=Value(Tag.INT, 12288),
                       loadFactor=Value(Tag.FLOAT, 0.75))
    data = heap.array(object_array, Tag.OBJECT, boxes + [Value.null()] * 1000)
    the_list = heap.obj(array_list, elementData=data, size=Value(Tag.INT, ENTRIES))
    wide_values = {f"s{k:02d}": heap.string(f"field string {k:02d}") for k in range(20)}
    wide_values.update({f"p{k:02d}": Value(Tag.INT, k) for k in range(30)})
    the_wide = heap.obj(wide, **wide_values)
    ds = heap.array(d_array, Tag.OBJECT, [heap.obj(d_class, d=Value(Tag.INT, k)) for k in range(5)])
    shadowing = heap.array(d_array, Tag.OBJECT, [heap.obj(d_class, d=Value(Tag.INT, 10 + k)) for k in range(5)])
    the_a = heap.obj(a_class, b=heap.obj(b_class, c=ds), e=heap.obj(b2_class, c=shadowing, **{f"{b_class:#x}.c": ds}),
                     x=heap.obj(b_class, c=ds), y=heap.obj(b_class, c=ds))
    return heap, [("map", "Ljava/util/HashMap;", the_map), ("list", "Ljava/util/ArrayList;", the_list),
                  ("wide", "Lcom/example/Wide;", the_wide), ("a", f"{outer}A;", the_a)]
