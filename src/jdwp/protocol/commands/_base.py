"""The :class:`Command` record and the one place where decoding failures become ``ProtocolError``.

Layer: ``jdwp.protocol`` (sans-IO).
"""

from __future__ import annotations

import dataclasses
import io
import struct
from collections.abc import Callable
from typing import Any, Generic, TypeVar

import construct as c

from ..compiled import reply_reader
from ..errors import ProtocolError, UsageError
from ..fast import IrregularSizes, TrailingBytes
from ..nulls import refuse_null
from ..records import record, spec_of
from ..types import IdSizes

O = TypeVar("O")  # noqa: E741 - out-data record
R = TypeVar("R")  # reply record
T = TypeVar("T")

#: The first command set a VM sends rather than answers (Event, 64; Android's DDM, 199).
_VM_COMMAND_SETS = 64
#: Decoding failures that mean "the peer's bytes do not match the spec".
DECODE_FAILURES = (c.ConstructError, struct.error, ValueError, IndexError, OverflowError)
#: What a fast encoder raises on out-data that does not fit (or on ID widths ``struct`` cannot write).
FAST_ENCODE_FAILURES = (IrregularSizes, struct.error, TypeError, AttributeError, OverflowError, ValueError,
                        KeyError, IndexError)


@record
class Empty:
    """Out-data or reply with no fields."""


def hexdump(data: bytes, limit: int = 64) -> str:
    shown = data[:limit].hex(" ")
    return shown + (f" … ({len(data)} bytes)" if len(data) > limit else "")


def decode(spec: c.Construct, body: bytes, sizes: IdSizes | None, what: str, **extra: Any) -> Any:
    """Parse ``body`` with ``spec``; the whole body must be used.

    Raises:
        ProtocolError: the bytes do not match the spec (with the command's name and a hex dump).
    """
    params = sizes.params() if sizes is not None else {}
    stream = io.BytesIO(body)
    try:
        obj = spec.parse_stream(stream, **params, **extra)
    except DECODE_FAILURES as exc:
        raise _undecodable(what, body, exc) from None
    if stream.tell() != len(body):
        raise _trailing(what, body, len(body) - stream.tell())
    return obj


def encode(spec: c.Construct, obj: Any, sizes: IdSizes | None, what: str, **extra: Any) -> bytes:
    """Build ``obj`` with ``spec``.

    Raises:
        UsageError: ``obj`` does not fit the spec (a wrong type, a value out of range, a missing field).
    """
    params = sizes.params() if sizes is not None else {}
    try:
        return bytes(spec.build(obj, **params, **extra))
    except (*DECODE_FAILURES, KeyError, TypeError, AttributeError) as exc:
        raise UsageError(f"{what}: cannot encode {obj!r}: {_reason(exc)}") from None


def _undecodable(what: str, body: bytes, exc: BaseException) -> ProtocolError:
    if isinstance(exc, TrailingBytes):  # worded as the spec's decoding words it, whichever reader found it
        return _trailing(what, body, exc.count)
    return ProtocolError(f"{what}: cannot decode {hexdump(body)}: {_reason(exc)}")


def _trailing(what: str, body: bytes, count: int) -> ProtocolError:
    return ProtocolError(f"{what}: {count} unexpected trailing bytes in {hexdump(body)}")


def _reason(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[-1] if text else type(exc).__name__


@dataclasses.dataclass(frozen=True, eq=False)
class Command(Generic[O, R]):
    """One command of the JDWP specification.

    Attributes:
        command_set: the command set number (1 = VirtualMachine …).
        command: the command number within the set.
        name: the spec's name, ``"<Set>.<Command>"``, verbatim.
        out: the record class of the command's out-data.
        reply: the record class of the reply data.
        fast_reply: an optional hand-framed decoder for hot replies; it must return exactly what the
            construct spec returns (a property test checks this). Left out, a reply whose fields are all
            plain gets one made from its record's specs on its first decode (:meth:`reply_decoder`).
        fast_out: the same for the out-data of hot commands the VM sends (Event.Composite).
        fast_encode: an optional hand-framed encoder of the out-data of hot commands (see
            :mod:`..fast_encode`); it must return exactly what the construct spec builds.
    """

    command_set: int
    command: int
    name: str
    out: type[O]
    reply: type[R]
    fast_reply: Callable[[bytes, IdSizes], R] | None = None
    fast_out: Callable[[bytes, IdSizes], O] | None = None
    fast_encode: Callable[[O, IdSizes], bytes] | None = None

    #: Whether a reader was made for a reply without ``fast_reply`` (on its first decode, not at import:
    #: most commands are never sent in a session, and a reader per command would cost memory for nothing).
    _reader_made: bool = dataclasses.field(default=False, init=False, repr=False)

    def reply_decoder(self) -> Callable[[bytes, IdSizes], R] | None:
        """The fast decoder of the reply: ``fast_reply``, else, for a reply of plain fields, a reader made
        from its record's specs (:mod:`..compiled`) the first time it is asked for; ``None`` for others."""
        if self.fast_reply is None and not self._reader_made:
            object.__setattr__(self, "_reader_made", True)
            if self.reply is not Empty:
                object.__setattr__(self, "fast_reply", reply_reader(self.reply))
        return self.fast_reply

    @property
    def key(self) -> tuple[int, int]:
        return (self.command_set, self.command)

    def encode_out(self, out: O, sizes: IdSizes | None, **extra: Any) -> bytes:
        """The out-data's bytes.

        Raises:
            NullIdError: an ID is null where the specification does not allow it (:mod:`..nulls`); only
                for the commands a debugger sends (sets below 64), not the VM's events.
            UsageError: ``out`` does not fit the spec.
        """
        if self.command_set < _VM_COMMAND_SETS:
            refuse_null(self, out)
        if not extra and type(out) is self.out:  # a mapping, or another record, takes the spec's checks below
            if self.out is Empty:
                return b""
            fast_encode = self.fast_encode
            if fast_encode is not None and sizes is not None:
                try:
                    return fast_encode(out, sizes)
                except FAST_ENCODE_FAILURES:
                    pass  # odd ID widths, which the spec below writes, or bad out-data, whose error it words
        return encode(spec_of(self.out), out, sizes, self.name, **extra)

    def decode_out(self, body: bytes, sizes: IdSizes | None, **extra: Any) -> O:
        fast_out = self.fast_out
        if fast_out is not None and sizes is not None and not extra:
            try:
                return fast_out(body, sizes)
            except IrregularSizes:
                pass
            except DECODE_FAILURES as exc:
                raise _undecodable(self.name, body, exc) from None
        result: O = decode(spec_of(self.out), body, sizes, self.name, **extra)
        return result

    def encode_reply(self, reply: R, sizes: IdSizes | None, **extra: Any) -> bytes:
        return encode(spec_of(self.reply), reply, sizes, f"{self.name} reply", **extra)

    def decode_reply(self, body: bytes, sizes: IdSizes | None) -> R:
        if self.reply is Empty and not body:  # Resume, Suspend, Dispose…: the common case of a hit's release
            return Empty()  # type: ignore[return-value]  # R is Empty here
        fast_reply = self.fast_reply
        if fast_reply is None and not self._reader_made:
            fast_reply = self.reply_decoder()
        if fast_reply is not None and sizes is not None:
            try:
                return fast_reply(body, sizes)
            except IrregularSizes:
                pass
            except DECODE_FAILURES as exc:
                raise _undecodable(f"{self.name} reply", body, exc) from None
        result: R = decode(spec_of(self.reply), body, sizes, f"{self.name} reply")
        return result

    def __repr__(self) -> str:
        return f"<Command {self.name} ({self.command_set},{self.command})>"
