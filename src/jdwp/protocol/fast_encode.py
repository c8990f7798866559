"""Hand-framed encoders for the out-data of hot commands: one ``struct`` pack per command.

Layer: ``jdwp.protocol`` (sans-IO); imports only ``fast``, ``strings`` and ``types``.

The construct specs in :mod:`.commands` stay the definition of each format; an encoder here writes the
same bytes faster (``tests/unit/test_fast_encode.py`` checks that with hypothesis). A layout is given as
the record class and one kind per field, in the record's order, so the field names come from the record
itself. On bad input an encoder raises what ``struct`` or Python raises (``struct.error``, ``TypeError``,
``AttributeError``…); :meth:`.commands._base.Command.encode_out` then runs the construct spec, whose
``UsageError`` says what is wrong in the words every other command uses.
"""

from __future__ import annotations

import dataclasses
import struct
from collections.abc import Callable
from operator import attrgetter
from typing import Any

from .fast import PerSizes, id_format
from .strings import encode_string
from .types import IdSizes

#: An out-data encoder: ``encoder(out, sizes) -> body``.
Encoder = Callable[[Any, IdSizes], bytes]

# Field kinds: an ID names the IdSizes width it has; other kinds are ``struct`` codes.
OBJECT = "object_id_size"
REFERENCE_TYPE = "reference_type_id_size"
METHOD = "method_id_size"
FIELD = "field_id_size"
FRAME = "frame_id_size"
INT = "i"  # the spec's int: signed, 4 bytes
BYTE = "B"  # the spec's byte, unsigned as the construct specs build it

_LENGTH = struct.Struct(">I")  # a string's length, as the construct spec writes it


def _format(kinds: tuple[str, ...], sizes: IdSizes) -> str:
    """The ``struct`` codes of ``kinds``; raises ``IrregularSizes`` for a width ``struct`` has no code for."""
    return "".join(id_format(getattr(sizes, kind)) if kind.endswith("_id_size") else kind for kind in kinds)


def _names(cls: type, count: int) -> tuple[str, ...]:
    names = tuple(f.name for f in dataclasses.fields(cls))
    if len(names) != count:
        raise TypeError(f"{cls.__name__} has {len(names)} fields, the layout gives {count} kinds")
    return names


def fixed(cls: type, *kinds: str) -> Encoder:
    """Out-data of IDs, ints and bytes only: one precompiled ``Struct`` per set of ID widths."""
    get = attrgetter(*_names(cls, len(kinds)))
    packs = PerSizes(lambda sizes: struct.Struct(">" + _format(kinds, sizes)).pack)

    if len(kinds) == 1:  # attrgetter of one name returns the value itself, not a tuple

        def encode_one(out: Any, sizes: IdSizes) -> bytes:
            last = packs.last
            pack = last[1] if last[0] is sizes else packs.get(sizes)
            return pack(get(out))

        return encode_one

    def encode(out: Any, sizes: IdSizes) -> bytes:
        last = packs.last
        pack = last[1] if last[0] is sizes else packs.get(sizes)
        return pack(*get(out))

    return encode


def counted(cls: type, *head: str, item: str) -> Encoder:
    """Fields of the ``head`` kinds, then the record's last field: a counted list of ``item`` (IDs, say)."""
    names = _names(cls, len(head) + 1)
    get_head, get_items = _tuple_getter(names[:-1]), attrgetter(names[-1])
    formats = PerSizes(lambda sizes: (">" + _format(head, sizes) + "i", _format((item,), sizes)))

    def encode(out: Any, sizes: IdSizes) -> bytes:
        last = formats.last
        prefix, code = last[1] if last[0] is sizes else formats.get(sizes)
        items = get_items(out)
        count = len(items)
        return struct.pack(f"{prefix}{count}{code}", *get_head(out), count, *items)

    return encode


def counted_records(cls: type, *head: str, element: type, element_kinds: tuple[str, ...]) -> Encoder:
    """Fields of the ``head`` kinds, then the record's last field: a counted list of ``element`` records."""
    names = _names(cls, len(head) + 1)
    get_head, get_items = _tuple_getter(names[:-1]), attrgetter(names[-1])
    get_element = _tuple_getter(_names(element, len(element_kinds)))
    formats = PerSizes(lambda sizes: (">" + _format(head, sizes) + "i", _format(element_kinds, sizes)))

    def encode(out: Any, sizes: IdSizes) -> bytes:
        last = formats.last
        prefix, code = last[1] if last[0] is sizes else formats.get(sizes)
        items = get_items(out)
        count = len(items)
        flat: list[Any] = []
        extend = flat.extend
        for item in items:
            if type(item) is not element:  # the spec accepts no other record (a mapping it builds itself)
                raise TypeError(f"expected {element.__name__}, got {type(item).__name__}")
            extend(get_element(item))
        return struct.pack(prefix + code * count, *get_head(out), count, *flat)

    return encode


def text(cls: type) -> Encoder:
    """Out-data of one string field (see :mod:`.strings` for the bytes a ``str`` becomes)."""
    get = attrgetter(*_names(cls, 1))

    def encode(out: Any, sizes: IdSizes) -> bytes:
        value = get(out)
        if not isinstance(value, str):
            raise TypeError(f"expected str, got {type(value).__name__}")
        data = encode_string(value)
        return _LENGTH.pack(len(data)) + data

    return encode


def _tuple_getter(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """Like ``attrgetter(*names)``, but a tuple for any number of names, none included."""
    if len(names) == 1:
        (name,) = names
        return lambda obj: (getattr(obj, name),)
    if not names:
        return lambda obj: ()
    return attrgetter(*names)
