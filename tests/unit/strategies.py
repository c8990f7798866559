"""Hypothesis strategies for the JDWP protocol layer, derived from the records' wire specs.

``for_record(cls, sizes)`` walks a record's fields and picks a strategy from each field's construct
(an ID of a context width, a fixed-width integer, a boolean, a string, a counted array, a nested record,
a tagged union, a tagged value, an array region…), so every out/reply record of the command table gets a
strategy without a hand-written one. Untagged values are the exception: their type lives outside the
bytes, so the records that carry them have hand-written strategies that also return the context needed
to decode them (``field_tags`` / ``component_tag``).
"""

from __future__ import annotations

import dataclasses
import functools
import struct
from typing import Any

import construct as c
from hypothesis import strategies as st

from jdwp.protocol.commands.objects import ArraySetValuesOut, ObjectSetValuesOut
from jdwp.protocol.commands.reftypes import ClassSetValuesOut, FieldValue
from jdwp.protocol.constants import OBJECT_TAGS, Tag
from jdwp.protocol.records import TaggedUnion, _RecordAdapter
from jdwp.protocol.types import (
    FieldIdSpec,
    FrameIdSpec,
    IdSizes,
    MethodIdSpec,
    ObjectIdSpec,
    ReferenceTypeIdSpec,
    _PlainList,
)
from jdwp.protocol.values import ArrayRegion, UntaggedValue, Value, _ArrayRegion, _TaggedObjectId, _TaggedValue

HOTSPOT = IdSizes(8, 8, 8, 8, 8)
#: ART in a 32-bit process: 4-byte method and field IDs (field, method, object, reftype, frame).
ART32 = IdSizes(4, 4, 8, 8, 8)
#: Regular but small: the fast decoders with 2- and 4-byte IDs.
SMALL = IdSizes(2, 2, 4, 4, 4)
#: Odd widths the spec allows (1..8) but the fast decoders do not handle.
ODD = IdSizes(3, 5, 7, 6, 1)
SIZES = (HOTSPOT, ART32, SMALL, ODD)
REGULAR_SIZES = (HOTSPOT, ART32, SMALL)

_ID_SPECS = {
    id(ObjectIdSpec): "object_id_size",
    id(ReferenceTypeIdSpec): "reference_type_id_size",
    id(MethodIdSpec): "method_id_size",
    id(FieldIdSpec): "field_id_size",
    id(FrameIdSpec): "frame_id_size",
}

PRIMITIVE_TAGS = (Tag.BYTE, Tag.CHAR, Tag.FLOAT, Tag.DOUBLE, Tag.INT, Tag.LONG, Tag.SHORT, Tag.BOOLEAN)
OBJECT_TAG_LIST = tuple(sorted(OBJECT_TAGS))
VALUE_TAGS = (*PRIMITIVE_TAGS, *OBJECT_TAG_LIST, Tag.VOID)

#: Strings worth seeing often: empty, NUL, non-BMP, a lone surrogate, class-name shapes.
SPECIAL_TEXT = st.sampled_from(["", "\x00", "a\x00b", "😀", "x😀y", "\ud800", "\udfff", "Ljava/lang/String;",
                                "java.*", "é"])
TEXT = st.one_of(st.text(max_size=12), SPECIAL_TEXT)


def unsigned(size: int) -> st.SearchStrategy[int]:
    """An unsigned big-endian integer of ``size`` bytes, biased to the edges."""
    top = (1 << (8 * size)) - 1
    return st.one_of(st.sampled_from([0, 1, top]), st.integers(0, top))


def id_of(sizes: IdSizes, param: str) -> st.SearchStrategy[int]:
    return unsigned(getattr(sizes, param))


def _format_ints(fmtstr: str) -> st.SearchStrategy[int]:
    bits = 8 * struct.calcsize(fmtstr)
    if fmtstr[-1].islower():
        lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    else:
        lo, hi = 0, (1 << bits) - 1
    return st.one_of(st.sampled_from([lo, hi, 0]), st.integers(lo, hi))


def raw_value(tag: Tag, sizes: IdSizes) -> st.SearchStrategy[Any]:
    """The Python value of an untagged value of ``tag`` (what :class:`Value` holds)."""
    if tag in OBJECT_TAGS:
        return id_of(sizes, "object_id_size")
    return {
        Tag.BYTE: st.integers(-128, 127),
        Tag.CHAR: st.integers(0, 0xFFFF).map(chr),  # a UTF-16 code unit; surrogates included
        Tag.FLOAT: st.floats(width=32, allow_nan=False),
        Tag.DOUBLE: st.floats(allow_nan=False),
        Tag.INT: st.integers(-(1 << 31), (1 << 31) - 1),
        Tag.LONG: st.integers(-(1 << 63), (1 << 63) - 1),
        Tag.SHORT: st.integers(-(1 << 15), (1 << 15) - 1),
        Tag.BOOLEAN: st.booleans(),
        Tag.VOID: st.none(),
    }[tag]


def value_of(tag: Tag, sizes: IdSizes) -> st.SearchStrategy[Value]:
    return raw_value(tag, sizes).map(lambda raw: Value(tag, raw))


def tagged_value(sizes: IdSizes, tags: tuple[Tag, ...] = VALUE_TAGS) -> st.SearchStrategy[Value]:
    return st.sampled_from(tags).flatmap(lambda tag: value_of(tag, sizes))


def tagged_object(sizes: IdSizes) -> st.SearchStrategy[Value]:
    return tagged_value(sizes, OBJECT_TAG_LIST)


def array_region(sizes: IdSizes) -> st.SearchStrategy[ArrayRegion]:
    """A primitive region (plain values) or an object region (tagged :class:`Value` elements)."""

    def region(tag: Tag) -> st.SearchStrategy[ArrayRegion]:
        element = tagged_object(sizes) if tag in OBJECT_TAGS else raw_value(tag, sizes)
        return st.lists(element, max_size=6).map(lambda values: ArrayRegion(tag, values))

    return st.sampled_from((*PRIMITIVE_TAGS, *OBJECT_TAG_LIST)).flatmap(region)


def for_spec(spec: c.Construct, sizes: IdSizes) -> st.SearchStrategy[Any]:
    """A strategy for the Python values ``spec`` builds from, for ID widths ``sizes``."""
    if id(spec) in _ID_SPECS:
        return id_of(sizes, _ID_SPECS[id(spec)])
    if isinstance(spec, _RecordAdapter):
        return for_record(spec.record_class, sizes)
    if isinstance(spec, _PlainList):  # counted/greedy/repeated: a list around construct's arrays
        return for_spec(spec.subcon, sizes)
    if isinstance(spec, c.BytesInteger):
        # An ID construct not declared in types.py: read the width's name off its expression.
        param = str(spec.length).rsplit("'", 2)[-2]
        return id_of(sizes, param)
    if isinstance(spec, c.FormatField):
        return _format_ints(spec.fmtstr)
    name = type(spec).__name__
    if name == "_Boolean":
        return st.booleans()
    if name == "_String":
        return TEXT
    if isinstance(spec, _TaggedObjectId):  # before _TaggedValue: it is a subclass
        return tagged_object(sizes)
    if isinstance(spec, _TaggedValue):
        return tagged_value(sizes)
    if isinstance(spec, _ArrayRegion):
        return array_region(sizes)
    if isinstance(spec, TaggedUnion):
        return st.one_of([for_record(cls, sizes) for _, cls in sorted(spec._variants.items())])
    if isinstance(spec, c.FocusedSeq):  # PrefixedArray(count, element): a spec "Repeat"
        array = spec.subcons[1].subcon
        return st.lists(for_spec(array.subcon, sizes), max_size=4)
    if isinstance(spec, c.Array) and isinstance(spec.count, int):
        return st.lists(for_spec(spec.subcon, sizes), min_size=spec.count, max_size=spec.count)
    if isinstance(spec, c.GreedyRange):
        return st.lists(for_spec(spec.subcon, sizes), max_size=3)
    if isinstance(spec, c.Prefixed) and spec.subcon is c.GreedyBytes:
        return st.binary(max_size=16)
    if isinstance(spec, UntaggedValue):
        raise TypeError("untagged values need a context: use for_record_with_context")
    raise TypeError(f"no strategy for {spec!r}")


@functools.cache
def for_record(cls: type, sizes: IdSizes) -> st.SearchStrategy[Any]:
    """Instances of record ``cls``, each field drawn from its wire spec."""
    if cls in _CONTEXT_RECORDS:
        return _CONTEXT_RECORDS[cls](sizes).map(lambda pair: pair[0])
    fields = dataclasses.fields(cls)
    return st.builds(cls, **{f.name: for_spec(f.metadata["wire"], sizes) for f in fields})


# --- records with untagged values: the strategy also yields the decode context -----------------------


def _field_values(sizes: IdSizes) -> st.SearchStrategy[tuple[list[FieldValue], dict[int, Tag]]]:
    """Field/value pairs with distinct field IDs, and the ``field_tags`` that types them."""
    pair = st.tuples(id_of(sizes, "field_id_size"), tagged_value(sizes, (*PRIMITIVE_TAGS, *OBJECT_TAG_LIST)))
    return st.lists(pair, max_size=4, unique_by=lambda p: p[0]).map(
        lambda pairs: ([FieldValue(fid, v) for fid, v in pairs], {fid: v.tag for fid, v in pairs})
    )


def _class_set_values(sizes: IdSizes) -> st.SearchStrategy[tuple[Any, dict[str, Any]]]:
    return st.tuples(id_of(sizes, "reference_type_id_size"), _field_values(sizes)).map(
        lambda t: (ClassSetValuesOut(t[0], t[1][0]), {"field_tags": t[1][1]})
    )


def _object_set_values(sizes: IdSizes) -> st.SearchStrategy[tuple[Any, dict[str, Any]]]:
    return st.tuples(id_of(sizes, "object_id_size"), _field_values(sizes)).map(
        lambda t: (ObjectSetValuesOut(t[0], t[1][0]), {"field_tags": t[1][1]})
    )


def _array_set_values(sizes: IdSizes) -> st.SearchStrategy[tuple[Any, dict[str, Any]]]:
    def with_tag(tag: Tag) -> st.SearchStrategy[tuple[Any, dict[str, Any]]]:
        values = st.lists(value_of(tag, sizes), max_size=5)
        return st.tuples(id_of(sizes, "object_id_size"), st.integers(0, (1 << 31) - 1), values).map(
            lambda t: (ArraySetValuesOut(*t), {"component_tag": tag})
        )

    return st.sampled_from((*PRIMITIVE_TAGS, *OBJECT_TAG_LIST)).flatmap(with_tag)


_CONTEXT_RECORDS = {
    ClassSetValuesOut: _class_set_values,
    ObjectSetValuesOut: _object_set_values,
    ArraySetValuesOut: _array_set_values,
}


def for_record_with_context(cls: type, sizes: IdSizes) -> st.SearchStrategy[tuple[Any, dict[str, Any]]]:
    """``(instance, extra decode context)``; the context is empty for records without untagged values."""
    if cls in _CONTEXT_RECORDS:
        return _CONTEXT_RECORDS[cls](sizes)
    return for_record(cls, sizes).map(lambda obj: (obj, {}))

