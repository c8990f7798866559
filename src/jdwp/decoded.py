"""Decoded packets for people: a one-line text of a record, a field-by-field diff, and ID renumbering.

Layer: ``jdwp`` (no I/O, no trio). Used by recordings (a decoded text beside each packet's bytes, IDs
renumbered so two recordings of one session diff only where the session differs) and by replay (what the
code sent against what the recording holds, field by field rather than in hex).

A record's fields carry their wire spec (:mod:`.protocol.records`), so which fields are IDs is read from
the spec: ``objectID``, ``referenceTypeID``, ``methodID``, ``fieldID`` and ``frameID`` fields, counted
lists of them, and the object IDs inside tagged values and array regions.
"""

from __future__ import annotations

import dataclasses
import enum
import json
from collections.abc import Callable
from typing import Any

import construct as c

from .protocol.commands import BY_ID, Command
from .protocol.constants import Tag
from .protocol.errors import ProtocolError, UsageError
from .protocol.types import (
    FieldIdSpec,
    FrameIdSpec,
    IdSizes,
    MethodIdSpec,
    ObjectIdSpec,
    ReferenceTypeIdSpec,
    counted_element,
)
from .protocol.values import ArrayRegion, Value
from .protocol.wire import CommandPacket, Packet

__all__ = ["IdRenumbering", "check_round_trip", "decode_packet", "describe", "diff"]

_ID_SPECS = (ObjectIdSpec, ReferenceTypeIdSpec, MethodIdSpec, FieldIdSpec, FrameIdSpec)


def decode_packet(packet: Packet, sent: Command[Any, Any] | None, sizes: IdSizes | None) -> Any:
    """The record a packet's body holds: out-data of a command, or the reply to ``sent``.

    Raises:
        ProtocolError: the body does not decode (or the command is not in the table).
    """
    if isinstance(packet, CommandPacket):
        command = BY_ID.get(packet.key)
        if command is None:
            raise ProtocolError(f"command ({packet.command_set},{packet.command}) is not in the JDWP table")
        return command.decode_out(packet.body, sizes)
    if sent is None:
        raise ProtocolError(f"reply {packet.id} answers no recorded command")
    if packet.error_code:
        return None
    return sent.decode_reply(packet.body, sizes)


def encode_packet_body(packet: Packet, sent: Command[Any, Any] | None, record: Any, sizes: IdSizes) -> bytes:
    """The bytes of ``record`` as ``packet``'s body (the inverse of :func:`decode_packet`)."""
    if isinstance(packet, CommandPacket):
        return BY_ID[packet.key].encode_out(record, sizes)
    if record is None:
        return packet.body
    assert sent is not None  # decode_packet needed it
    return sent.encode_reply(record, sizes)


def describe(obj: Any) -> str:
    """One line of text for a decoded value: ``FramesOut(thread=3, start_frame=0, length=-1)``,
    ``INT 42``, ``OBJECT #5`` (the object ID after ``#``)."""
    if isinstance(obj, Value):
        if obj.tag in (Tag.VOID,):
            return "VOID"
        return f"{obj.tag.name} #{obj.value}" if obj.is_object else f"{obj.tag.name} {describe(obj.value)}"
    if isinstance(obj, ArrayRegion):
        return f"{obj.tag.name}[{', '.join(describe(v) for v in obj.values)}]"
    if isinstance(obj, enum.Enum):
        return obj.name
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        if not dataclasses.fields(obj):
            return ""  # Empty: a command without out-data, a reply without data
        inner = ", ".join(f"{f.name}={describe(getattr(obj, f.name))}" for f in dataclasses.fields(obj))
        return f"{type(obj).__name__}({inner})"
    if isinstance(obj, list | tuple):
        return f"[{', '.join(describe(v) for v in obj)}]"
    if isinstance(obj, str):
        return json.dumps(obj, ensure_ascii=False)
    if isinstance(obj, bytes | bytearray):
        return f"<{bytes(obj).hex()}>"
    return repr(obj)


def diff(recorded: Any, sent: Any, path: str = "") -> list[str]:
    """Where two decoded values differ, one ``path: recorded X, sent Y`` line per differing leaf."""
    here = path or "body"
    if recorded == sent:
        return []
    if (dataclasses.is_dataclass(recorded) and type(recorded) is type(sent)
            and not isinstance(recorded, Value | ArrayRegion)):
        lines: list[str] = []
        for f in dataclasses.fields(recorded):
            lines += diff(getattr(recorded, f.name), getattr(sent, f.name), f"{path}.{f.name}" if path else f.name)
        return lines
    if isinstance(recorded, list) and isinstance(sent, list):
        if len(recorded) != len(sent):
            return [f"{here}: recorded {len(recorded)} items {describe(recorded)}, sent {len(sent)} items "
                    f"{describe(sent)}"]
        lines = []
        for index, (a, b) in enumerate(zip(recorded, sent, strict=True)):
            lines += diff(a, b, f"{here}[{index}]")
        return lines
    return [f"{here}: recorded {describe(recorded)}, sent {describe(sent)}"]


class IdRenumbering:
    """Maps every ID of a session to 1, 2, 3… in order of first appearance (0, ``null``, stays 0).

    One map serves every kind of ID: a VM may use one number space for objects and reference types
    (HotSpot does), so keeping them apart could make two IDs that were one into two. The map is one to
    one, so a replayed session sees the same identities, only smaller numbers.
    """

    def __init__(self) -> None:
        self.ids: dict[int, int] = {0: 0}

    def __call__(self, old: int) -> int:
        new = self.ids.get(old)
        if new is None:
            new = self.ids[old] = len(self.ids)
        return new

    def record(self, obj: Any) -> Any:
        """``obj`` (a decoded record, value or list) with every ID in it renumbered."""
        return _map_value(obj, self)


def _map_field(obj: Any, spec: c.Construct, renumber: Callable[[int], int]) -> Any:
    if any(spec is id_spec for id_spec in _ID_SPECS):
        return renumber(obj)
    element = counted_element(spec)
    if element is not None and isinstance(obj, list):
        return [_map_field(item, element, renumber) for item in obj]
    return _map_value(obj, renumber)


def _map_value(obj: Any, renumber: Callable[[int], int]) -> Any:
    if isinstance(obj, Value):
        return Value(obj.tag, renumber(obj.value)) if obj.is_object and isinstance(obj.value, int) else obj
    if isinstance(obj, ArrayRegion):
        if not obj.values or not isinstance(obj.values[0], Value):
            return obj
        return ArrayRegion(obj.tag, [_map_value(v, renumber) for v in obj.values])
    if isinstance(obj, list):
        return [_map_value(item, renumber) for item in obj]
    wire_fields = getattr(type(obj), "__wire__", None)
    if wire_fields is not None and dataclasses.is_dataclass(obj):
        changes = {f.name: _map_field(getattr(obj, f.name), f.metadata["wire"], renumber)
                   for f in dataclasses.fields(obj)}
        remade: Any = type(obj)
        return remade(**changes)
    return obj


def check_round_trip(packet: Packet, sent: Command[Any, Any] | None, sizes: IdSizes) -> Any:
    """Decode ``packet`` and check that encoding the record gives its bytes back; the record.

    Raises:
        ProtocolError: the body does not decode, or does not encode back to the same bytes (a record
            that cannot be rewritten faithfully).
    """
    record = decode_packet(packet, sent, sizes)
    try:
        again = encode_packet_body(packet, sent, record, sizes)
    except UsageError as exc:
        raise ProtocolError(str(exc)) from None
    if again != packet.body:
        raise ProtocolError("the decoded record does not encode back to the same bytes")
    return record
