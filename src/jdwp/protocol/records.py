"""Typed records: frozen dataclasses whose fields carry their construct spec.

Layer: ``jdwp.protocol`` (sans-IO). This is the one typed-reply approach of the library: a command's
out-data and reply are records, each field declared once with its Python type and its wire spec::

    @record
    class LineEntry:
        line_code_index: int = wire(Int64ub)
        line_number: int = wire(Int32sb)

``LineEntry.__wire__`` is then a construct that parses to ``LineEntry`` and builds from one (or from a
plain mapping with the same keys). :class:`TaggedUnion` does the same for "a kind byte, then that kind's
record" — event kinds and request modifiers.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, ClassVar, Protocol, TypeVar, dataclass_transform

import construct as c

from ._frozen import fast_init


class Record(Protocol):
    """What :func:`record` adds to a dataclass (for type checkers)."""

    __wire__: ClassVar[c.Construct]


T = TypeVar("T")


def wire(spec: c.Construct) -> Any:
    """Declare a record field's wire format."""
    return dataclasses.field(metadata={"wire": spec})


@dataclass_transform(frozen_default=True, field_specifiers=(wire, dataclasses.field))
def record(cls: type[T]) -> type[T]:
    """Make ``cls`` a frozen, slotted dataclass and attach its construct as ``cls.__wire__``."""
    data_cls = fast_init(dataclasses.dataclass(frozen=True, slots=True)(cls))
    fields = dataclasses.fields(data_cls)  # type: ignore[arg-type]
    missing = [f.name for f in fields if "wire" not in f.metadata]
    if missing:
        raise TypeError(f"{cls.__name__}: fields without a wire spec: {missing}")
    struct = c.Struct(*(f.name / f.metadata["wire"] for f in fields))
    data_cls.__wire__ = _RecordAdapter(struct, data_cls, tuple(f.name for f in fields))  # type: ignore[attr-defined]
    return data_cls


class _RecordAdapter(c.Adapter):  # type: ignore[misc]
    def __init__(self, subcon: c.Construct, cls: type, names: tuple[str, ...]) -> None:
        super().__init__(subcon)
        self.record_class = cls  # also read by readers made from the spec (see :mod:`.compiled`)
        self._names = names

    def _decode(self, obj: Mapping[str, Any], context: Any, path: str) -> Any:
        return self.record_class(*[obj[name] for name in self._names])

    def _encode(self, obj: Any, context: Any, path: str) -> dict[str, Any]:
        if isinstance(obj, Mapping):
            return {name: obj[name] for name in self._names}
        if not isinstance(obj, self.record_class):
            raise c.ConstructError(f"expected {self.record_class.__name__}, got {type(obj).__name__}", path=path)
        return {name: getattr(obj, name) for name in self._names}


def spec_of(cls: type) -> c.Construct:
    """The construct of a record class."""
    spec: c.Construct = cls.__wire__  # type: ignore[attr-defined]
    return spec


class TaggedUnion(c.Construct):  # type: ignore[misc]
    """A kind field (e.g. one byte) followed by the record that kind selects.

    Each variant class names its kind in a class attribute (``KIND``). Parsing an unknown kind is a
    ``ConstructError``, so it surfaces as a protocol error rather than a misframed packet.
    """

    def __init__(self, kind: c.Construct, variants: Mapping[int, type], name: str) -> None:
        super().__init__()
        self._kind = kind
        self._variants = dict(variants)
        self._kinds = {cls: k for k, cls in variants.items()}
        self._name = name

    def _parse(self, stream: Any, context: Any, path: str) -> Any:
        kind = self._kind._parsereport(stream, context, path)
        cls = self._variants.get(kind)
        if cls is None:
            raise c.ConstructError(f"unknown {self._name} kind {kind}", path=path)
        return spec_of(cls)._parsereport(stream, context, path)

    def _build(self, obj: Any, stream: Any, context: Any, path: str) -> Any:
        kind = self._kinds.get(type(obj))
        if kind is None:
            raise c.ConstructError(f"not a {self._name}: {type(obj).__name__}", path=path)
        self._kind._build(kind, stream, context, path)
        spec_of(type(obj))._build(obj, stream, context, path)
        return obj

    def _sizeof(self, context: Any, path: str) -> int:
        raise c.SizeofError(path=path)

    def kind_of(self, obj: object) -> int:
        return self._kinds[type(obj)]


def variants(*classes: type) -> dict[int, type]:
    """Map each class's ``KIND`` to the class (for :class:`TaggedUnion`)."""
    return {int(cls.KIND): cls for cls in classes}  # type: ignore[attr-defined]

