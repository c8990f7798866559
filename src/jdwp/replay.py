"""Replay a recording: play the VM's side of a recorded session to the code under test.

Layer: ``jdwp`` on trio; frames with the sans-IO :class:`JdwpConnection`.

A test opens a client on a recording instead of a VM::

    async with jdwp.open_replay("tests/recordings/threads.jsonl") as vm:
        assert len(await vm.all_threads()) == 12

Each command the code sends must match a command of the recording that is not matched yet — same
command, same out-data (packet IDs may differ: they are mapped). The order may differ where the code
pipelines: trio runs concurrent requests in no fixed order. What the VM sent is played in the recorded
order: a reply once its command has arrived, an event or DDM chunk once every command recorded before it
has arrived.

Where the code and the recording part ways, the code gets a :class:`ReplayMismatch`, never a hang or a
closed connection:

- a command the recording does not have fails, at once, with the command sent, the one the recording
  expected there, and a field-by-field diff of their decoded bodies;
- a recorded command the code does not send: once the code has been silent for ``stall_timeout``
  seconds while the recording waits for it, every request in flight (and every later one) fails with it,
  and :func:`open_replay` raises it when the block ends;
- a command sent after the end of the recording fails in the same way.

:class:`ReplayVm` is the engine underneath: it serves a recording over any ``trio.abc.Stream`` and keeps
what happened in a :class:`ReplayResult`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import trio

from ._groups import unwrap
from .client import JdwpClient, open_jdwp
from .decoded import decode_packet, describe, diff
from .protocol.commands import BY_ID, VirtualMachine
from .protocol.connection import NEED_DATA, Closed, JdwpConnection, Oversized, State
from .protocol.errors import JdwpError, ProtocolError, UsageError
from .protocol.wire import HANDSHAKE, CommandPacket, Packet, ReplyPacket, encode_packet
from .recording import OUT, Recording, load

__all__ = ["DEFAULT_STALL_TIMEOUT", "ReplayMismatch", "ReplayResult", "ReplayVm", "first_requests_of", "open_replay"]

#: Seconds of silence from the code, while the recording waits for its next command, that make that
#: command "never sent". Code under test waits on the VM, so silence that long means it sent something else
#: or nothing; a slow machine can be given more with ``stall_timeout``.
DEFAULT_STALL_TIMEOUT = 0.5


class ReplayMismatch(JdwpError):
    """The code under test did something other than what the recording says.

    Attributes:
        sent: what the code sent, as text (``"ThreadReference.Frames(thread=3, start_frame=0, length=-1)"``),
            or ``None`` when the mismatch is a recorded command the code never sent.
        expected: the recorded command expected there, as text, or ``None`` after the end of the recording.
        line: the line of the recording file that holds ``expected`` (the header is line 1), or ``None``.
        differences: where the sent command's out-data differs from the recorded command of the same name
            (``"length: recorded 5, sent -1"``), one entry per differing field.
    """

    def __init__(self, message: str, *, sent: str | None = None, expected: str | None = None,
                 line: int | None = None, differences: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.sent = sent
        self.expected = expected
        self.line = line
        self.differences = differences


@dataclasses.dataclass
class ReplayResult:
    """What a replay did.

    Attributes:
        played: recorded lines played or matched so far.
        total: lines in the recording.
        mismatch: the first divergence, or ``None``.
        unsent: recorded commands the code never sent (text with their line), when the replay ended early.
    """

    played: int = 0
    total: int = 0
    mismatch: ReplayMismatch | None = None
    unsent: list[str] = dataclasses.field(default_factory=list)

    @property
    def complete(self) -> bool:
        """Every line was played and nothing diverged."""
        return self.mismatch is None and self.played == self.total


class ReplayVm:
    """Serves one recording over one stream, as the VM of the recorded session; see the module docstring.

    Args:
        recording: what to play.
        stall_timeout: seconds of silence from the code, while the recording waits for its command, that
            end the replay with a :class:`ReplayMismatch`; ``None`` waits for ever (the code's own request
            timeouts then end it).
        on_mismatch: called with the mismatch before the stream is closed (:func:`open_replay` fails the
            client with it, so the code sees the reason rather than a closed connection).
    """

    def __init__(self, recording: Recording, *, receive_size: int = 65536, stall_timeout: float | None = None,
                 on_mismatch: Callable[[ReplayMismatch], None] | None = None) -> None:
        self.recording = recording
        self.result = ReplayResult(total=len(recording.lines))
        self._receive_size = receive_size
        self._stall_timeout = stall_timeout
        self._on_mismatch = on_mismatch
        self._lines = recording.lines
        self._sizes = recording.id_sizes()
        self._matched = [False] * len(self._lines)
        self._ids: dict[int, int] = {}  # recorded debugger packet ID -> the live debugger's ID
        self._cursor = 0
        self._last_sent = "nothing"

    async def serve(self, stream: trio.abc.Stream) -> ReplayResult:
        """Play the recording to the debugger at the other end of ``stream``; close it at the end.

        A debugger that leaves early (closes its end) ends the replay without a mismatch; ``unsent`` then
        lists what it never sent and ``complete`` is false.
        """
        framing = JdwpConnection()
        try:
            while True:
                await self._play_ready(stream, framing)
                if self._cursor >= len(self._lines):
                    await self._after_the_end(stream, framing)
                    return self.result
                packet = await self._receive_packet(stream, framing, self._stall_timeout)
                if packet is None:
                    self.result.unsent = self._unsent()
                    return self.result
                self._match(packet)
        except ReplayMismatch as exc:
            self._fail(exc)
        except ProtocolError as exc:
            self._fail(ReplayMismatch(f"the code sent bytes that are not JDWP: {exc}"))
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass
        finally:
            await trio.aclose_forcefully(stream)
        return self.result

    def _fail(self, mismatch: ReplayMismatch) -> None:
        self.result.mismatch = mismatch
        self.result.unsent = self._unsent()
        if self._on_mismatch is not None:
            self._on_mismatch(mismatch)

    async def _after_the_end(self, stream: trio.abc.Stream, framing: JdwpConnection) -> None:
        """With a stall timeout, a command that comes soon after the last recorded line is a mismatch (and
        not a closed connection); then the stream is closed, as the VM of a finished session does."""
        if self._stall_timeout is None:
            return
        try:
            packet = await self._receive_packet(stream, framing, self._stall_timeout)
        except _Stalled:
            return
        if packet is not None:
            self._match(packet)

    async def _play_ready(self, stream: trio.abc.Stream, framing: JdwpConnection) -> None:
        """Advance through the recording as far as what has arrived allows, sending the VM's lines."""
        while self._cursor < len(self._lines):
            line = self._lines[self._cursor]
            if line.kind == "handshake":
                if line.dir == OUT:
                    await self._receive_handshake(stream, framing)
                else:
                    await stream.send_all(HANDSHAKE)
            elif line.dir == OUT:
                if not self._matched[self._cursor]:
                    return
            else:
                packet = line.packet()
                if isinstance(packet, ReplyPacket):
                    live_id = self._ids.pop(packet.id, None)
                    if live_id is None:
                        raise ReplayMismatch(f"line {self._cursor + 2} of the recording replies to packet "
                                             f"{packet.id}, which no recorded command sent")
                    packet = packet._replace(id=live_id)
                await stream.send_all(encode_packet(packet))
            self._cursor += 1
            self.result.played += 1

    async def _receive_handshake(self, stream: trio.abc.Stream, framing: JdwpConnection) -> None:
        while framing.state is State.AWAIT_HANDSHAKE:
            framing.receive_data(await stream.receive_some(self._receive_size))
        if framing.state is not State.OPEN:
            raise ReplayMismatch("the code closed the connection before its handshake")

    async def _receive_packet(self, stream: trio.abc.Stream, framing: JdwpConnection,
                              stall_timeout: float | None) -> Packet | None:
        while True:
            event = framing.next_event()
            if isinstance(event, Closed):
                return None
            if event is not NEED_DATA:
                assert not isinstance(event, Oversized)  # this framing does not skip: an over-cap length raises
                return event
            data = None
            with trio.move_on_after(stall_timeout if stall_timeout is not None else float("inf")):
                data = await stream.receive_some(self._receive_size)
            if data is None:
                if self._cursor >= len(self._lines):
                    raise _Stalled()
                raise self._stalled(stall_timeout or 0.0)
            framing.receive_data(data)

    def _match(self, packet: Packet) -> None:
        if not isinstance(packet, CommandPacket):
            raise ReplayMismatch(f"the code sent a reply (packet {packet.id}); a debugger only sends commands")
        for index in range(self._cursor, len(self._lines)):
            line = self._lines[index]
            if line.dir != OUT or line.kind != "command" or self._matched[index]:
                continue
            expected = line.packet()
            if isinstance(expected, CommandPacket) and expected.key == packet.key and expected.body == packet.body:
                self._matched[index] = True
                self._ids[expected.id] = packet.id
                self._last_sent = self._text(packet)
                return
        raise self._unrecorded(packet)

    def _unrecorded(self, packet: CommandPacket) -> ReplayMismatch:
        """The mismatch for a command no unmatched recorded command equals."""
        sent = self._text(packet)
        expected_at = self._next_expected()
        if expected_at is None:
            return ReplayMismatch(f"the code sent {sent} after the end of the recording", sent=sent)
        expected = self._text(self._lines[expected_at].packet())
        message = (f"the code sent {sent}, which the recording does not have here; it expects {expected} "
                   f"next (line {expected_at + 2})")
        differences: tuple[str, ...] = ()
        same = self._next_expected(packet.key)
        if same is not None:
            recorded = self._lines[same].packet()
            try:
                differences = tuple(diff(decode_packet(recorded, None, self._sizes),
                                         decode_packet(packet, None, self._sizes)))
            except ProtocolError:  # the code's bytes do not decode with the recording's ID sizes
                differences = (f"body: recorded {recorded.body.hex()}, sent {packet.body.hex()}, which does not "
                               f"decode with the recording's ID sizes ({_sizes_text(self._sizes)}): was it "
                               f"encoded for a VM with other ID sizes?",)
            if same != expected_at:
                message += f"; the nearest recorded {_name(packet)} is at line {same + 2}"
            message += "; " + "; ".join(differences)
        return ReplayMismatch(message, sent=sent, expected=expected, line=expected_at + 2, differences=differences)

    def _stalled(self, waited: float) -> ReplayMismatch:
        index = self._next_expected()
        assert index is not None  # the cursor waits on an unmatched command
        expected = self._text(self._lines[index].packet())
        message = (f"the recording expects {expected} next (line {index + 2}), but the code sent nothing more "
                   f"for {waited:g} s (its last command: {self._last_sent}): a recorded command the code "
                   f"never sent")
        if self._before_first_reply(index):
            message += ("; it went out with VirtualMachine.IDSizes when the connection opened: open the client "
                        "with the recorded session's first_requests (the debugger engine's are "
                        "jdwp.debugger.FIRST_REQUESTS)")
        return ReplayMismatch(message, expected=expected, line=index + 2)

    def _before_first_reply(self, index: int) -> bool:
        return not any(line.kind == "reply" for line in self._lines[:index])

    def _next_expected(self, key: tuple[int, int] | None = None) -> int | None:
        for index in range(self._cursor, len(self._lines)):
            line = self._lines[index]
            if line.dir == OUT and line.kind == "command" and not self._matched[index]:
                packet = line.packet()
                if key is None or (isinstance(packet, CommandPacket) and packet.key == key):
                    return index
        return None

    def _unsent(self) -> list[str]:
        return [f"{self._text(line.packet())} (line {index + 2})" for index, line in enumerate(self._lines)
                if index >= self._cursor and line.dir == OUT and line.kind == "command" and not self._matched[index]]

    def _text(self, packet: Packet) -> str:
        """``Name(field=value, …)`` for a command packet; its hex where the body does not decode."""
        name = _name(packet)
        try:
            body = describe(decode_packet(packet, None, self._sizes))
        except ProtocolError:
            return f"{name} with body {packet.body.hex() or '(empty)'}"
        return f"{name}({body.partition('(')[2][:-1]})" if body else f"{name}()"


class _Stalled(Exception):
    """Nothing came after the end of the recording (the normal end of a replay)."""


def _sizes_text(sizes: Any) -> str:
    if sizes is None:
        return "unknown"
    return ", ".join(f"{name.removesuffix('_id_size')} {size}" for name, size in sizes.params().items())


def _name(packet: Packet) -> str:
    if not isinstance(packet, CommandPacket):
        return "a reply"
    command = BY_ID.get(packet.key)
    return command.name if command is not None else f"command ({packet.command_set},{packet.command})"


@asynccontextmanager
async def open_replay(recording: Recording | str | Path, *, stall_timeout: float = DEFAULT_STALL_TIMEOUT,
                      **options: Any) -> AsyncIterator[JdwpClient]:
    """A :class:`JdwpClient` whose VM is a recording: the code under test runs against it as against the
    VM it was recorded from (see the module docstring).

    Args:
        recording: a :class:`~jdwp.recording.Recording` or the path of a recording file.
        stall_timeout: see :data:`DEFAULT_STALL_TIMEOUT`.
        **options: passed to :func:`jdwp.open_jdwp` (``request_timeout``…). ``first_requests`` defaults
            to what the recorded session sent with ``VirtualMachine.IDSizes`` (:func:`first_requests_of`).

    Raises:
        ReplayMismatch: the code diverged from the recording (raised into the code where it waits on the
            client, and here when the block ends: a divergence the code caught, or recorded commands it
            never sent). Another exception of the block raised after a divergence is chained to it.
        RecordingError: ``recording`` is a path to a file that cannot be read as a recording.
        UsageError: the recording holds no ``VirtualMachine.IDSizes`` reply (no client can open on it).
    """
    rec = recording if isinstance(recording, Recording) else load(recording)
    if rec.id_sizes() is None:
        raise UsageError("the recording has no VirtualMachine.IDSizes reply, so no client can open on it")
    options.setdefault("first_requests", first_requests_of(rec))
    clients: list[JdwpClient] = []

    def fail_clients(mismatch: ReplayMismatch) -> None:
        for client in clients:
            client._finish(mismatch)  # the reason every waiter gets, instead of "connection closed"

    from trio.testing import memory_stream_pair  # here: trio.testing costs an import of the whole library

    debugger_end, vm_end = memory_stream_pair()
    vm = ReplayVm(rec, stall_timeout=stall_timeout, on_mismatch=fail_clients)
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(vm.serve, vm_end)
            try:
                async with open_jdwp(debugger_end, **options) as client:
                    clients.append(client)
                    yield client
            except Exception as exc:
                mismatch = vm.result.mismatch
                if mismatch is None or isinstance(exc, ReplayMismatch):
                    raise
                raise _fresh(mismatch) from exc
    except BaseExceptionGroup as group:
        raise unwrap(group)  # noqa: B904 - the group is what we unwrap (the server task never raises)
    if vm.result.mismatch is not None:
        raise _fresh(vm.result.mismatch)  # the code caught it and went on
    if vm.result.unsent:
        shown = "; ".join(vm.result.unsent[:3]) + ("; …" if len(vm.result.unsent) > 3 else "")
        raise ReplayMismatch(f"the code ended the session without sending {len(vm.result.unsent)} recorded "
                             f"command(s): {shown}", expected=vm.result.unsent[0])


def _fresh(mismatch: ReplayMismatch) -> ReplayMismatch:
    return ReplayMismatch(str(mismatch), sent=mismatch.sent, expected=mismatch.expected, line=mismatch.line,
                          differences=mismatch.differences)


def first_requests_of(recording: Recording) -> list[tuple[Any, Any]]:
    """The ``(command, out-data)`` pairs the recorded session sent with ``VirtualMachine.IDSizes``, before
    any reply: what to pass as ``first_requests`` to replay a session opened with them."""
    sizes = recording.id_sizes()
    found: list[tuple[Any, Any]] = []
    for line in recording.lines:
        if line.kind == "reply":
            break
        if line.kind != "command" or line.dir != OUT:
            continue
        packet = line.packet()
        command = BY_ID.get(packet.key) if isinstance(packet, CommandPacket) else None
        if command is None or command in (VirtualMachine.IDSizes, VirtualMachine.Version):
            continue
        found.append((command, command.decode_out(packet.body, sizes)))
    return found
