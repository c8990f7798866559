"""Decode Android's DDM chunks (HELO, APNM, WAIT, STAG, THST) and build the HELO request.

Layer: ``android``, sans-IO (stdlib only). Takes ``(chunk type, data)`` as the ``jdwp`` client's
DDM channel delivers it, so it never imports ``jdwp``. Spec: docs/design.md §2 (DDM channel),
§4 and §4.6; layouts follow the framework's ``android.ddm`` handlers (big-endian, strings are UTF-16BE
with a length in UTF-16 units). Later Android versions append fields, so everything after the
first fields is optional: a decoder reads what is there and never fails on a shorter chunk.

Who sends what (read in art/adbconnection/adbconnection.cc and frameworks/base android.ddm / android.os):
- ART sends nothing when a debugger connects. ``HELO`` is the *reply* to a debugger's HELO request;
  until the first non-DDM packet, adbconnection answers DDM packets in process (``HandleDataWithoutAgent``
  → ``Dbg::DdmHandleChunk`` → ``DdmHandleHello``) without loading the JDWP agent, so a HELO right after
  the handshake is cheap and quick. Its reply carries pid, VM identity, app name, user id, ABI
  (``"64-bit (arm64)"``), VM flags, native-debuggable, package name and, since API 34, the boot stage.
- ``WAIT`` (reason 0) is sent by ``Debug.waitForDebugger``/``suspendAllAndSendVmStart`` when they start
  waiting, and again just before the HELO reply while the app waits (``Debug.waitingForDebugger()``).
- ``APNM`` is sent when the app's name is set (``DdmHandleAppName.setAppName``) while a DDM client is
  connected: once the app binds, not before any reply.
- ``STAG`` (API 34+, ``DdmSyncStageUpdater``) is sent at each boot stage: BOOT, ATCH, BIND, NAMD, DEBG, A_GO.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from dataclasses import dataclass

from .errors import AdbProtocolError

__all__ = [
    "APNM",
    "BOOT_STAGES",
    "HELO",
    "HELO_PROTOCOL_VERSION",
    "STAG",
    "THST",
    "WAIT",
    "AppName",
    "BootStage",
    "Hello",
    "ThreadStatus",
    "ThreadStatusEntry",
    "Waiting",
    "chunk_type",
    "decode_chunk",
    "hello_request",
    "pointer_size",
    "real_name",
    "split_chunk",
]


def chunk_type(name: str) -> int:
    """The u32 type of a four-character chunk name (``"HELO"`` → 0x48454C4F)."""
    raw = name.encode("ascii")
    if len(raw) != 4:
        raise ValueError(f"a DDM chunk name has 4 characters, got {name!r}")
    return int.from_bytes(raw, "big")


HELO = chunk_type("HELO")
APNM = chunk_type("APNM")
WAIT = chunk_type("WAIT")
THST = chunk_type("THST")
STAG = chunk_type("STAG")

HELO_PROTOCOL_VERSION = 1
"""The DDM protocol version a debugger announces in its HELO request (and ART's handler answers with)."""

BOOT_STAGES = {
    "BOOT": "from zygote to attach",
    "ATCH": "attached, before the application is bound",
    "BIND": "binding the application",
    "NAMD": "named: the package name is known",
    "DEBG": "waiting for or talking to a debugger",
    "A_GO": "running its main loop",
}
"""``android.os.DdmSyncState.Stage`` labels (API 34+) and what each means, in boot order."""


def hello_request(version: int = HELO_PROTOCOL_VERSION) -> bytes:
    """The data of a HELO request chunk: the debugger's DDM protocol version (u32)."""
    return struct.pack(">I", version)


def pointer_size(abi: str | None) -> int | None:
    """8 or 4 from HELO's ABI text (``"64-bit (arm64)"``, ``"32-bit (arm)"``), else ``None``."""
    if abi is None:
        return None
    if abi.startswith("64-bit"):
        return 8
    if abi.startswith("32-bit"):
        return 4
    return None


PLACEHOLDER_NAMES = frozenset({"", "<pre-initialized>"})
"""What ``HELO`` and ``APNM`` carry as the app name before the app is bound: ``<pre-initialized>`` on older
releases, ``""`` on newer ones (``DdmHandleAppName``); clients that ran devices met both, with ``HELO`` and
``APNM`` in either order (android-dev-ext PR #138, jadx issue #2089)."""


def real_name(name: str | None) -> str | None:
    """``name`` unless it is a placeholder (:data:`PLACEHOLDER_NAMES`) or absent: then ``None``."""
    return None if name is None or name in PLACEHOLDER_NAMES else name


def _stage_label(value: int) -> str:
    raw = value.to_bytes(4, "big")
    return raw.decode("ascii") if all(0x20 <= b < 0x7F for b in raw) else f"0x{value:08x}"


@dataclass(frozen=True)
class Hello:
    """HELO: the VM's self-introduction, the reply to a debugger's HELO (ART never sends it unasked).

    ``boot_stage`` is the four-letter ``DdmSyncState`` label (API 34+, see :data:`BOOT_STAGES`).
    """

    protocol_version: int
    pid: int
    vm_identity: str
    app_name: str
    user_id: int | None = None
    abi: str | None = None
    jvm_flags: str | None = None
    native_debuggable: bool | None = None
    package_name: str | None = None
    boot_stage: str | None = None

    @property
    def pointer_size(self) -> int | None:
        """8 for a 64-bit process, 4 for 32-bit (known before ``IDSizes``), from :attr:`abi`."""
        return pointer_size(self.abi)


@dataclass(frozen=True)
class BootStage:
    """STAG (API 34+): the app reached a boot stage (a :data:`BOOT_STAGES` label)."""

    stage: str


@dataclass(frozen=True)
class AppName:
    """APNM: the process got (or changed) its app name, e.g. once the app is bound."""

    app_name: str
    user_id: int | None = None
    package_name: str | None = None


@dataclass(frozen=True)
class Waiting:
    """WAIT: the app is blocked in ``Debug.waitForDebugger()``. Reason 0 is the only one defined."""

    reason: int

    @property
    def waiting_for_debugger(self) -> bool:
        return self.reason == 0


@dataclass(frozen=True)
class ThreadStatusEntry:
    thread_id: int
    status: int
    tid: int
    utime: int
    stime: int
    is_daemon: bool | None


@dataclass(frozen=True)
class ThreadStatus:
    """THST: a status line per thread (ids are DDM thread ids, not JDWP thread ids)."""

    threads: tuple[ThreadStatusEntry, ...]


class _Reader:
    def __init__(self, data: bytes, name: str) -> None:
        self.data = data
        self.pos = 0
        self.name = name

    @property
    def remaining(self) -> int:
        return len(self.data) - self.pos

    def take(self, n: int) -> bytes:
        if n < 0 or self.remaining < n:
            raise AdbProtocolError(f"DDM {self.name} chunk is truncated at byte {self.pos}")
        out = self.data[self.pos : self.pos + n]
        self.pos += n
        return out

    def u8(self) -> int:
        return self.take(1)[0]

    def u16(self) -> int:
        return int(struct.unpack(">H", self.take(2))[0])

    def u32(self) -> int:
        return int(struct.unpack(">I", self.take(4))[0])

    def i32(self) -> int:
        return int(struct.unpack(">i", self.take(4))[0])

    def utf16(self, units: int) -> str:
        return self.take(units * 2).decode("utf-16-be", errors="replace")

    def string(self) -> str:
        return self.utf16(self.u32())


def _decode_hello(r: _Reader) -> Hello:
    version, pid, ident_len, name_len = r.u32(), r.u32(), r.u32(), r.u32()
    fields: dict[str, object] = {
        "protocol_version": version,
        "pid": pid,
        "vm_identity": r.utf16(ident_len),
        "app_name": r.utf16(name_len),
    }
    # Each later field was added by a newer Android release; stop at the first one that is absent.
    if r.remaining >= 4:
        fields["user_id"] = r.i32()
    if r.remaining >= 4:
        fields["abi"] = r.string()
    if r.remaining >= 4:
        fields["jvm_flags"] = r.string()
    if r.remaining >= 1:
        fields["native_debuggable"] = r.u8() != 0
    if r.remaining >= 4:
        fields["package_name"] = r.string()
    if r.remaining >= 4:
        fields["boot_stage"] = _stage_label(r.u32())
    return Hello(**fields)  # type: ignore[arg-type]


def _decode_apnm(r: _Reader) -> AppName:
    name = r.string()
    user_id = r.i32() if r.remaining >= 4 else None
    package = r.string() if r.remaining >= 4 else None
    return AppName(name, user_id, package)


def _decode_thst(r: _Reader) -> ThreadStatus:
    header_len, entry_len, count = r.u8(), r.u8(), r.u16()
    if header_len < 4 or entry_len < 17:
        raise AdbProtocolError(f"DDM THST header {header_len}/{entry_len} is smaller than the fixed fields")
    r.take(header_len - 4)
    threads = []
    for _ in range(count):
        entry = _Reader(r.take(entry_len), "THST entry")
        thread_id, status, tid, utime, stime = entry.u32(), entry.u8(), entry.u32(), entry.u32(), entry.u32()
        daemon = entry.u8() != 0 if entry.remaining >= 1 else None
        threads.append(ThreadStatusEntry(thread_id, status, tid, utime, stime, daemon))
    return ThreadStatus(tuple(threads))


def _decode_stag(r: _Reader) -> BootStage:
    return BootStage(_stage_label(r.u32()))


_DECODERS: dict[int, Callable[[_Reader], Hello | AppName | ThreadStatus | BootStage]] = {
    HELO: _decode_hello,
    APNM: _decode_apnm,
    THST: _decode_thst,
    STAG: _decode_stag,
}


def decode_chunk(kind: int, data: bytes) -> Hello | AppName | Waiting | ThreadStatus | BootStage | None:
    """Decode one DDM chunk.

    Args:
        kind: the chunk type as a u32 (``HELO``, ``APNM``, ``WAIT``, ``STAG``, ``THST`` …).
        data: the chunk's payload (without the 8-byte type/length header).

    Returns:
        The decoded chunk, or ``None`` for a type this module does not decode (never an error:
        ART may send chunk types we do not know).

    Raises:
        AdbProtocolError: a known chunk type whose payload is too short for its fixed fields.
    """
    if kind == WAIT:
        return Waiting(_Reader(data, "WAIT").u8())
    decoder = _DECODERS.get(kind)
    if decoder is None:
        return None
    return decoder(_Reader(data, struct.pack(">I", kind).decode("latin-1")))


def split_chunk(body: bytes) -> tuple[int, bytes]:
    """Split a DDM packet body (JDWP command 199/1) into ``(type, data)``.

    Raises:
        AdbProtocolError: the body is shorter than its 8-byte header or its announced length.
    """
    if len(body) < 8:
        raise AdbProtocolError(f"DDM packet body of {len(body)} bytes has no chunk header")
    kind, length = struct.unpack_from(">II", body)
    if len(body) - 8 < length:
        raise AdbProtocolError(f"DDM chunk announces {length} bytes but carries {len(body) - 8}")
    return kind, body[8 : 8 + length]
