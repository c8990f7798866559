"""The trio JDWP client: one connection over any ``trio.abc.Stream``, typed commands, event channels.

Layer: ``jdwp`` on trio; uses ``jdwp.protocol`` for every byte and never imports ``android`` or ``server``.
Spec: "JDWP Handshake", "JDWP Packets"; the typed methods come from :mod:`jdwp.mirrors`.

Design (the MCP SDK's dispatcher, in trio):

- One reader task owns the receive side. It routes replies to their waiters by packet ID, composite
  events and DDM chunks to their own channels, and drops unknown VM commands. It never raises: on end of
  stream, a broken stream or bytes it cannot frame it records the terminal error, fails every waiter
  with it and returns.
- Requests are pipelined: each registers its packet ID, writes, and waits in its own :class:`_ReplySlot`
  under a deadline. Its entry is removed in ``finally``, so a late reply for a cancelled request is
  dropped. :meth:`JdwpClient.request_all` sends several in one write and waits for them in the calling
  task: a round trip for N commands without a task per command.
- A reply longer than the packet cap fails its own request with ``ReplyTooLarge`` as soon as its header
  is in; the framing drops its body as it arrives (never held), and the connection goes on.
- Writes are serialised by a lock and shielded from cancellation (with their own deadline): a write cut
  in half would desynchronise the peer's framing for every later packet. When nothing else is being
  written, a packet goes straight into the socket without a trip through the scheduler (see
  :meth:`JdwpClient._write`): a conditional breakpoint's hit is a chain of such small requests, and each
  scheduler pass saved is time the hitting thread is not paused.
"""

from __future__ import annotations

import copy as copy_module
import logging
import math
import os
from collections.abc import AsyncIterator, Callable, Collection, Sequence
from contextlib import asynccontextmanager
from typing import Any, TypeVar

import trio

from ._groups import unwrap
from .mirrors import Mirrors
from .protocol.commands import DDM, Command, Empty, Event, VirtualMachine
from .protocol.commands.events import Composite, DdmChunk
from .protocol.commands.vm import VersionReply
from .protocol.connection import NEED_DATA, Closed, JdwpConnection, Oversized, State
from .protocol.errors import (
    CommandError,
    CommandTimeout,
    ConnectionClosed,
    JdwpError,
    ProtocolError,
    ReplyTooLarge,
    UsageError,
)
from .protocol.types import IdSizes
from .protocol.wire import DEFAULT_MAX_PACKET, CommandPacket, ReplyPacket

__all__ = ["JdwpClient", "open_jdwp", "open_jdwp_tcp"]

log = logging.getLogger("jdwp.client")

R = TypeVar("R")

RECEIVE_SIZE = 65536
DDM_BUFFER = 256
DEFAULT_REQUEST_TIMEOUT = 10.0
DDM_REPLY_WINDOW = 2.0  # ART answers DDM in process at once; silence that long is an empty answer
DEFAULT_HANDSHAKE_TIMEOUT = 10.0
DEFAULT_WRITE_TIMEOUT = 10.0


class _ReplySlot:
    """Where the reader puts the reply to one request, and the requesting task parks until it does.

    Lighter than a memory channel per request (no channel objects, no statistics): the task parks with
    ``wait_task_rescheduled`` and the reader reschedules it. A reply that comes before the task parks
    (its write yielded) is kept and returned at once.
    """

    __slots__ = ("_task", "outcome")

    def __init__(self) -> None:
        self._task: trio.lowlevel.Task | None = None
        self.outcome: ReplyPacket | JdwpError | None = None

    def deliver(self, outcome: ReplyPacket | JdwpError) -> None:
        if self.outcome is not None:
            return
        self.outcome = outcome
        task, self._task = self._task, None
        if task is not None:
            trio.lowlevel.reschedule(task)

    async def wait(self) -> ReplyPacket | JdwpError:
        if self.outcome is None:
            self._task = trio.lowlevel.current_task()

            def abort(_: Any) -> trio.lowlevel.Abort:
                self._task = None
                return trio.lowlevel.Abort.SUCCEEDED

            await trio.lowlevel.wait_task_rescheduled(abort)
        assert self.outcome is not None  # only deliver() reschedules us
        return self.outcome


class _Unwaited:
    """The place of a reply nobody waits for (:meth:`JdwpClient.send`): an error goes to a callback."""

    __slots__ = ("_name", "_on_error", "outcome", "sent_at")

    def __init__(self, name: str, on_error: Callable[[JdwpError], None]) -> None:
        self._name = name
        self._on_error = on_error
        self.outcome: ReplyPacket | JdwpError | None = None
        self.sent_at = trio.current_time()

    def deliver(self, outcome: ReplyPacket | JdwpError) -> None:
        if self.outcome is not None:
            return
        self.outcome = outcome
        if isinstance(outcome, ReplyTooLarge):
            self._on_error(outcome.named(self._name))
        elif isinstance(outcome, JdwpError):
            self._on_error(_again(outcome))
        elif outcome.error_code:
            self._on_error(CommandError.for_code(self._name, outcome.error_code))


class _Batch:
    """The replies to commands sent together by :meth:`JdwpClient.submit`, handed to a callback once the last
    is in: from the reader, with no task woken. Each command waits in the client's pending replies as a
    :class:`_BatchSlot` of it."""

    __slots__ = ("_commands", "_done", "_left", "_on_replies", "_sizes", "outcomes", "sent_at")

    def __init__(self, commands: Sequence[Command[Any, Any]], sizes: IdSizes | None,
                 on_replies: Callable[[list[Any] | JdwpError], None]) -> None:
        self._commands = commands
        self._sizes = sizes
        self._on_replies = on_replies
        self.outcomes: list[ReplyPacket | JdwpError | None] = [None] * len(commands)
        self.sent_at = trio.current_time()
        self._left = len(commands)
        self._done = False

    def deliver(self, index: int, outcome: ReplyPacket | JdwpError) -> None:
        if self._done or self.outcomes[index] is not None:
            return
        self.outcomes[index] = outcome
        self._left -= 1
        if isinstance(outcome, JdwpError) and not isinstance(outcome, ReplyTooLarge):
            self._finish(_again(outcome))  # the connection ended: the others will not come either
        elif self._left == 0:
            self._finish(self._decoded())

    def _decoded(self) -> list[Any] | JdwpError:
        found: list[Any] = []
        for command, outcome in zip(self._commands, self.outcomes, strict=True):
            if isinstance(outcome, ReplyTooLarge):
                found.append(outcome.named(command.name))
            elif isinstance(outcome, ReplyPacket) and outcome.error_code:
                found.append(CommandError.for_code(command.name, outcome.error_code))
            elif isinstance(outcome, ReplyPacket):
                try:
                    found.append(command.decode_reply(outcome.body, self._sizes))
                except ProtocolError as exc:
                    return exc
        return found

    def _finish(self, outcome: list[Any] | JdwpError) -> None:
        self._done = True
        try:
            self._on_replies(outcome)
        except Exception:  # the reader must go on: a callback's bug costs its own batch only
            log.exception("a callback of JdwpClient.submit failed")


class _BatchSlot:
    __slots__ = ("_batch", "_index")

    def __init__(self, batch: _Batch, index: int) -> None:
        self._batch = batch
        self._index = index

    @property
    def sent_at(self) -> float:
        return self._batch.sent_at

    def deliver(self, outcome: ReplyPacket | JdwpError) -> None:
        self._batch.deliver(self._index, outcome)


def _socket_fd(stream: trio.abc.Stream) -> int | None:
    """The descriptor of the socket under ``stream`` when bytes written to it reach the peer as they are:
    a ``trio.SocketStream``, or a stream that hands its socket stream out as ``raw_socket_stream`` (the
    ADB ``jdwp:<pid>`` stream does). ``None`` for anything else (memory streams, recording proxies)."""
    inner = stream if isinstance(stream, trio.SocketStream) else getattr(stream, "raw_socket_stream", None)
    if not isinstance(inner, trio.SocketStream) or os.name != "posix":
        return None
    return inner.socket.fileno()


def _again(error: JdwpError) -> JdwpError:
    """A fresh copy of a shared terminal error, so each raise gets its own traceback."""
    try:
        copy = copy_module.copy(error)  # keeps the attributes of errors that carry more than a message
    except Exception:  # an error whose constructor its args do not fit
        copy = ConnectionClosed(str(error))
    copy.__cause__ = error.__cause__
    return copy


class JdwpClient(Mirrors):
    """A JDWP connection to one VM. Create it with :func:`open_jdwp` or :func:`open_jdwp_tcp`.

    Every command of the specification is reachable two ways: typed methods (``await
    vm.classes_by_signature("Lcom/x/Foo;")``, ``await vm.thread_reference.frames(thread, 0, -1)``), and
    :meth:`request` with a :class:`~jdwp.protocol.commands.Command` from the table.

    VirtualMachine commands (set 1) are methods of the client itself. Every other command set is a
    namespace attribute (``help(vm.thread_reference)`` lists its methods):

    - ``reference_type`` (2), ``class_type`` (3), ``array_type`` (4), ``interface_type`` (5),
      ``method`` (6): classes, their methods, fields, line and variable tables;
    - ``object_reference`` (9), ``string_reference`` (10), ``thread_reference`` (11),
      ``thread_group_reference`` (12), ``array_reference`` (13), ``class_loader_reference`` (14),
      ``class_object_reference`` (17), ``module_reference`` (18): objects of each kind;
    - ``event_request`` (15): set and clear event requests; events arrive through :meth:`events`;
    - ``stack_frame`` (16): locals of a frame, ``this``, and :meth:`~.mirrors.threads.StackFrameCommands.arguments`.

    Typed methods return the reply's single field when it has one (a list of frames, a name), else the
    reply record; :meth:`request` and :meth:`request_all` always return the reply record.
    """

    def __init__(
        self,
        stream: trio.abc.Stream,
        connection: JdwpConnection,
        *,
        request_timeout: float = DEFAULT_REQUEST_TIMEOUT,
        write_timeout: float = DEFAULT_WRITE_TIMEOUT,
    ) -> None:
        super().__init__()
        self._stream = stream
        self._conn = connection
        self.request_timeout = request_timeout
        self.write_timeout = write_timeout
        self._pending: dict[int, _ReplySlot | _Unwaited | _BatchSlot] = {}
        #: The connection's nursery (:func:`open_jdwp`), where a write that cannot go out at once from a
        #: synchronous caller (:meth:`submit`, :meth:`send_now`) is finished.
        self._nursery: trio.Nursery | None = None
        self._write_lock = trio.Lock()
        self._fd = _socket_fd(stream)
        # Reading straight from the descriptor is only right for a bare socket stream: a wrapper may hold bytes
        # it read ahead (the ADB stream replays what followed the handshake) that the descriptor no longer has.
        self._read_fd = self._fd if isinstance(stream, trio.SocketStream) else None
        self._outbox: list[bytes] = []  # packets waiting for the write lock, in call order
        #: Packets written from the reader's callbacks while it takes the packets of one read; they go out in
        #: one write before it waits for more (:meth:`_read_loop`).
        self._held: list[bytes] | None = None
        self._event_handler: Callable[[Composite | None], bool | None] | None = None
        self._events_in, self._events_out = trio.open_memory_channel[CommandPacket](math.inf)
        self._ddm_in, self._ddm_out = trio.open_memory_channel[CommandPacket](DDM_BUFFER)
        self._terminal: JdwpError | None = None
        self._closed = trio.Event()
        self._sizes: IdSizes | None = None
        self._version: VersionReply | None = None
        #: Seconds the VM took to answer its first command (set once the connection opened).
        self.first_reply_s: float | None = None
        self._first_answers: list[tuple[tuple[Command[Any, Any], Any], Any]] = []
        self._counts = {"requests": 0, "writes": 0, "replies": 0, "late_replies": 0, "events": 0, "ddm": 0,
                        "ddm_dropped": 0, "unknown_commands": 0, "oversized": 0, "events_handled_in_reader": 0}

    # --- state -------------------------------------------------------------------------------------

    @property
    def id_sizes(self) -> IdSizes:
        """The VM's ID widths (read once from ``VirtualMachine.IDSizes`` when the connection opened)."""
        if self._sizes is None:
            raise UsageError("the VM's ID sizes are not known yet")
        return self._sizes

    @property
    def version_info(self) -> VersionReply:
        """The VM's ``VirtualMachine.Version`` (1,1), read together with the ID sizes when the connection
        opened (unless :func:`open_jdwp` was told not to); :meth:`version` asks again."""
        if self._version is None:
            raise UsageError("the VM's version was not read when the connection opened")
        return self._version

    def first_answer(self, command: Command[Any, Any], out: Any) -> Any | None:
        """The answer to ``command`` with ``out`` if it went out in the connection's first write
        (:func:`open_jdwp`'s ``first_requests``): its decoded reply or the ``CommandError``; ``None`` if it
        was not among them."""
        return next((answer for asked, answer in self._first_answers if asked == (command, out)), None)

    @property
    def is_closed(self) -> bool:
        return self._terminal is not None

    @property
    def terminal_error(self) -> JdwpError | None:
        """Why the connection ended (``ConnectionClosed``, ``ProtocolError``…), or ``None`` while open."""
        return self._terminal

    async def wait_closed(self) -> JdwpError:
        """Wait until the connection ends; return why."""
        await self._closed.wait()
        assert self._terminal is not None  # set before the event fires
        return self._terminal

    def oldest_unanswered_send(self) -> float | None:
        """When the oldest command sent by :meth:`send`, :meth:`send_now` or :meth:`submit` that the VM has not
        answered yet was sent (trio's clock),
        or ``None``. A VM answers one connection's commands in order, so one unanswered for longer than
        ``request_timeout`` means the VM is not reading them."""
        return min((slot.sent_at for slot in self._pending.values() if not isinstance(slot, _ReplySlot)),
                   default=None)

    def statistics(self) -> dict[str, int]:
        """Counters: requests sent, writes they went out in (pipelined requests share one), replies matched,
        late replies dropped, events, DDM chunks, and more."""
        return {**self._counts, "in_flight": len(self._pending), "buffered_events":
                self._events_out.statistics().current_buffer_used}

    # --- requests ----------------------------------------------------------------------------------

    async def request(self, command: Command[Any, R], out: Any = None, /, *, timeout: float | None = None,
                      **fields: Any) -> R:
        """Send one command and return its decoded reply.

        Args:
            command: an entry of the command table, e.g. ``ThreadReference.Frames``.
            out: the out-data record; or give its fields as keyword arguments instead.
            timeout: seconds to wait for the reply (default: ``request_timeout``).

        Raises:
            CommandError: the VM answered with an error code (a subclass for the common ones).
            CommandTimeout: no reply in time; the connection stays usable.
            ConnectionClosed: the connection ended before the reply.
            ProtocolError: the reply's bytes do not match the command's reply format.
            UsageError: the out-data cannot be encoded.
        """
        if out is None:
            try:
                out = command.out(**fields)
            except TypeError as exc:
                raise UsageError(f"{command.name}: {exc}") from None
        elif fields:
            raise UsageError(f"{command.name}: give either an out-data record or keyword fields, not both")
        body = command.encode_out(out, self._sizes)
        reply = await self._round_trip(command.command_set, command.command, body, command.name, timeout)
        return command.decode_reply(reply, self._sizes)

    async def send(self, command: Command[Any, Any], out: Any, /, *,
                   on_error: Callable[[JdwpError], None]) -> None:
        """Send one command and return once it is written, without waiting for its reply.

        For a command whose answer changes nothing for the caller, such as releasing a thread that hit a
        breakpoint whose condition was false: the next command or event is not held up by it. The VM still
        answers; ``on_error`` is called (from the reader, so it must not block or raise) with the error it
        answered, or with ``ConnectionClosed`` when the connection ended first.

        Raises:
            ConnectionClosed, UsageError: as for :meth:`request`; then ``on_error`` is never called.
        """
        packet_id, data = self._unwaited(command, out, on_error)
        try:
            await self._write(data)
        except BaseException:
            self._pending.pop(packet_id, None)
            raise

    def send_now(self, command: Command[Any, Any], out: Any, /, *, on_error: Callable[[JdwpError], None]) -> None:
        """:meth:`send`, from synchronous code (a callback of :meth:`submit`): the packet goes into the socket
        now, or, when it cannot take it whole, is finished by a task of the connection (in order with every
        other write).

        Raises:
            ConnectionClosed, UsageError: as for :meth:`send`; then ``on_error`` is never called.
        """
        _, data = self._unwaited(command, out, on_error)
        self._write_now(data)

    def _unwaited(self, command: Command[Any, Any], out: Any, on_error: Callable[[JdwpError], None]
                  ) -> tuple[int, bytes]:
        """A command framed, its reply's place (:class:`_Unwaited`) kept: its packet ID and bytes."""
        body = command.encode_out(out, self._sizes)
        if self._terminal is not None:
            raise _again(self._terminal)
        packet_id, data = self._conn.send_command(command.command_set, command.command, body)
        self._pending[packet_id] = _Unwaited(command.name, on_error)
        self._counts["requests"] += 1
        return packet_id, data

    def submit(self, requests: Sequence[tuple[Command[Any, Any], Any]], /,
               on_replies: Callable[[list[Any] | JdwpError], None]) -> None:
        """Send several commands in one write, from synchronous code, and hand their replies to ``on_replies``.

        What :meth:`request_all` does, without a task waiting: for a caller that acts on each of thousands of
        events a second (a breakpoint's condition judged as its hit comes), where waking a task per reply is
        most of the cost. ``on_replies`` is called once, from the connection's reader, with each command's
        decoded reply or ``CommandError`` in order, or with the ``JdwpError`` that ended them all (the
        connection closed, a reply that cannot be decoded). It must not block; what it raises is logged and
        lost. There is no timeout: a VM that does not answer shows in :meth:`oldest_unanswered_send`.

        Raises:
            ConnectionClosed, UsageError: the commands were not sent; ``on_replies`` is never called.
        """
        bodies = [command.encode_out(out, self._sizes) for command, out in requests]
        if self._terminal is not None:
            raise _again(self._terminal)
        if not requests:
            raise UsageError("submit: no commands to send")
        batch = _Batch([command for command, _ in requests], self._sizes, on_replies)
        sent = [self._conn.send_command(command.command_set, command.command, body)
                for (command, _), body in zip(requests, bodies, strict=True)]
        self._counts["requests"] += len(sent)
        self._write_now(b"".join(data for _, data in sent))
        # Kept after the write: no reply is read before this returns (the reader is another task), and a write
        # that fails (the connection ended) leaves nothing to tell on_replies.
        for index, (packet_id, _) in enumerate(sent):
            self._pending[packet_id] = _BatchSlot(batch, index)

    async def request_all(self, requests: Sequence[tuple[Command[Any, Any], Any]], /, *,
                          timeout: float | None = None, raw: Collection[int] = ()) -> list[Any]:
        """Send several commands in one write and return their replies (or errors) in order.

        One round trip for all of them, in the calling task: nothing is spawned, which is what makes it
        cheaper than gathering :meth:`request` calls. The VM runs them in the order given (a JDWP back end
        answers one connection's commands in arrival order).

        Each out-data record is an instance of the command's ``out`` class, built from the fields the
        specification lists for that command, in its order (``help(command.out)`` shows them)::

            from jdwp.protocol.commands import ThreadReference
            frames, name = await vm.request_all([
                (ThreadReference.Frames, ThreadReference.Frames.out(thread, 0, -1)),
                (ThreadReference.Name, ThreadReference.Name.out(thread)),
            ])
            frames.frames[0].location, name.thread_name

        Unlike the typed methods (``vm.thread_reference.frames`` returns the list of frames), the replies
        are the whole reply records (an instance of the command's ``reply`` class, here ``FramesReply``
        with its one field ``frames``), as :meth:`request` returns them.

        Args:
            requests: ``(command, out-data record)`` pairs.
            timeout: seconds to wait for all the replies (default: ``request_timeout``).
            raw: the indexes of the commands whose reply data is returned as bytes, not decoded (for a
                caller with a reader of its own, as :meth:`request_raw` gives).

        Returns:
            Each command's decoded reply, or the ``CommandError`` the VM answered it with: one command's
            error does not lose the others' replies.

        Raises:
            CommandTimeout, ConnectionClosed, ProtocolError, UsageError: as for :meth:`request`, for the
                whole call.
        """
        bodies = [command.encode_out(out, self._sizes) for command, out in requests]
        if self._terminal is not None:
            raise _again(self._terminal)
        if not requests:
            return []
        seconds = self.request_timeout if timeout is None else timeout
        deadline = trio.current_time() + seconds
        slots: list[tuple[int, _ReplySlot]] = []
        frames = []
        for (command, _), body in zip(requests, bodies, strict=True):
            packet_id, data = self._conn.send_command(command.command_set, command.command, body)
            slot = _ReplySlot()
            self._pending[packet_id] = slot
            slots.append((packet_id, slot))
            frames.append(data)
        self._counts["requests"] += len(frames)
        results: list[Any] = []
        try:
            await self._write(b"".join(frames))
            with trio.move_on_at(deadline) as scope:
                if slots:
                    # The VM answers in order: once the last reply is in, so are the others (one wake-up, not
                    # one per reply when they arrive in separate segments); a VM that does not is waited for.
                    await slots[-1][1].wait()
                for index, ((command, _), (_, slot)) in enumerate(zip(requests, slots, strict=True)):
                    outcome = slot.outcome if slot.outcome is not None else await slot.wait()
                    if isinstance(outcome, ReplyTooLarge):
                        results.append(outcome.named(command.name))
                        continue
                    if isinstance(outcome, JdwpError):
                        raise _again(outcome)
                    if outcome.error_code:
                        results.append(CommandError.for_code(command.name, outcome.error_code))
                    elif index in raw:
                        results.append(outcome.body)
                    else:
                        results.append(command.decode_reply(outcome.body, self._sizes))
            if scope.cancelled_caught:
                names = ", ".join(command.name for command, _ in requests)
                raise CommandTimeout(f"{names}: no reply within {seconds:g} s")
        finally:
            for packet_id, _ in slots:
                self._pending.pop(packet_id, None)
        return results

    async def request_each(self, command: Command[Any, Any], bodies: Sequence[bytes], /, *,
                           timeout: float | None = None) -> list[tuple[int, bytes]]:
        """One command for each of many encoded out-data bodies, in one write: each reply's error code and raw
        data, in order.

        For a sweep over thousands of classes, where an out-data record encoded, a ``CommandError`` made and a
        reply decoded per command would cost more than the VM's own work (:meth:`request_all` does all three).

        Raises:
            CommandTimeout, ConnectionClosed, ProtocolError, UsageError: as for :meth:`request_all`, for the
                whole call.
        """
        if self._terminal is not None:
            raise _again(self._terminal)
        if not bodies:
            return []
        deadline = trio.current_time() + (self.request_timeout if timeout is None else timeout)
        pending = self._pending
        ids, data = self._conn.send_commands(command.command_set, command.command, bodies)
        slots: list[tuple[int, _ReplySlot]] = []
        for packet_id in ids:
            slot = pending[packet_id] = _ReplySlot()
            slots.append((packet_id, slot))
        self._counts["requests"] += len(ids)
        results: list[tuple[int, bytes]] = []
        try:
            await self._write(data)
            with trio.move_on_at(deadline) as scope:
                await slots[-1][1].wait()  # the VM answers in order (see request_all): the others are in
                for _, slot in slots:
                    outcome = slot.outcome if slot.outcome is not None else await slot.wait()
                    if isinstance(outcome, JdwpError):
                        raise _again(outcome)
                    results.append((outcome.error_code, outcome.body))
            if scope.cancelled_caught:
                raise CommandTimeout(f"{command.name} x{len(bodies)}: no reply within "
                                     f"{self.request_timeout if timeout is None else timeout:g} s")
        finally:
            for packet_id, _ in slots:
                pending.pop(packet_id, None)
        return results

    async def request_raw(self, command_set: int, command: int, body: bytes = b"", *,
                          timeout: float | None = None) -> bytes:
        """Send a command given as numbers and raw out-data; return the raw reply data.

        Raises:
            CommandError, CommandTimeout, ConnectionClosed: as for :meth:`request`.
        """
        return await self._round_trip(command_set, command, body, f"command ({command_set},{command})", timeout)

    async def _round_trip(self, command_set: int, command: int, body: bytes, name: str,
                          timeout: float | None) -> bytes:
        if self._terminal is not None:
            raise _again(self._terminal)
        seconds = self.request_timeout if timeout is None else timeout
        deadline = trio.current_time() + seconds
        packet_id, data = self._conn.send_command(command_set, command, body)
        slot = _ReplySlot()
        self._pending[packet_id] = slot
        self._counts["requests"] += 1
        try:
            await self._write(data)
            with trio.move_on_at(deadline) as scope:
                outcome = await slot.wait()
            if scope.cancelled_caught:
                raise CommandTimeout(f"{name}: no reply within {seconds:g} s")
        finally:
            self._pending.pop(packet_id, None)
        if isinstance(outcome, ReplyTooLarge):
            raise outcome.named(name)
        if isinstance(outcome, JdwpError):
            raise _again(outcome)
        if outcome.error_code:
            raise CommandError.for_code(name, outcome.error_code)
        return outcome.body

    def _write_at_once(self, data: bytes) -> bytes | None:
        """Nothing queued, nobody writing: straight into the socket's buffer, no checkpoint (the caller's wait
        for the reply is its checkpoint). Returns what the kernel did not take (all of it without a socket, or
        while others write), which must be queued behind them."""
        if self._fd is None or self._outbox or self._write_lock.locked():
            return data
        try:
            sent = os.write(self._fd, data)
        except BlockingIOError:
            sent = 0
        except OSError as exc:
            self._finish(ConnectionClosed(f"the JDWP connection broke while sending: {exc!r}"))
            raise _again(self._terminal or ConnectionClosed("the connection is closed")) from None
        if sent == len(data):
            self._counts["writes"] += 1
            return None
        return data[sent:]

    async def _write(self, data: bytes) -> None:
        if self._held:  # held writes go first: packets leave in call order
            self.send_held()
        rest = self._write_at_once(data)
        if rest is not None:
            self._outbox.append(rest)
            await self._drain()

    def _write_now(self, data: bytes) -> None:
        if self._held is not None:  # a callback of the reader's: sent with the others of this read
            self._held.append(data)
            return
        rest = self._write_at_once(data)
        if rest is None:
            return
        self._outbox.append(rest)
        if self._nursery is None:  # a client made outside open_jdwp: no task to finish it; never in use
            raise UsageError("this client has no task to finish a write with")
        self._nursery.start_soon(self._drain_quietly)

    async def _drain_quietly(self) -> None:
        try:
            await self._drain()
        except JdwpError:  # the connection ended: whoever waits for a reply gets that error
            pass

    async def _drain(self) -> None:
        # Packets queue in call order; whoever holds the lock sends every queued one in one write. A burst of
        # pipelined requests (gather) then leaves at once instead of one write per scheduler pass.
        with trio.CancelScope(shield=True):
            with trio.move_on_after(self.write_timeout) as scope:
                async with self._write_lock:
                    if not self._outbox:
                        return  # sent with an earlier holder's write
                    chunk = b"".join(self._outbox)
                    self._outbox.clear()
                    self._counts["writes"] += 1
                    try:
                        await self._stream.send_all(chunk)
                    except (trio.BrokenResourceError, trio.ClosedResourceError) as exc:
                        self._finish(ConnectionClosed(f"the JDWP connection broke while sending: {exc!r}"))
            if scope.cancelled_caught:
                self._finish(ConnectionClosed(f"sending to the VM stalled for {self.write_timeout:g} s"))
                await trio.aclose_forcefully(self._stream)
        if self._terminal is not None:
            raise _again(self._terminal)

    # --- events and DDM ----------------------------------------------------------------------------

    async def receive_event(self) -> Composite:
        """The next event set the VM sent (``Event.Composite``), in arrival order.

        Raises:
            ConnectionClosed, ProtocolError: the connection ended (after every event before the end was
                returned), or this event set cannot be decoded.
        """
        try:
            packet = await self._next_event_packet()
        except trio.EndOfChannel:
            raise _again(self._terminal or ConnectionClosed("the connection is closed")) from None
        return Event.Composite.decode_out(packet.body, self.id_sizes)

    async def _next_event_packet(self) -> CommandPacket:
        """The next queued event set's packet; a checkpoint only when none is queued yet.

        A memory channel's ``receive`` yields to the scheduler even when a packet is waiting: a whole scheduler
        pass per event set, which a tracer or a loaded breakpoint pays thousands of times a second. A burst
        already queued is taken without it (it is bounded by what the reader queued, and the reader runs only
        when this task waits), so other tasks still run at the latest once the queue is empty.

        Raises:
            trio.EndOfChannel: the connection ended and every event set before the end was taken.
        """
        try:
            return self._events_out.receive_nowait()
        except trio.WouldBlock:
            if self._held is not None:
                self.send_held()
            return await self._events_out.receive()

    def receive_event_nowait(self) -> Composite:
        """Like :meth:`receive_event` without waiting; raises ``trio.WouldBlock`` when none is queued."""
        try:
            packet = self._events_out.receive_nowait()
        except trio.EndOfChannel:
            raise _again(self._terminal or ConnectionClosed("the connection is closed")) from None
        return Event.Composite.decode_out(packet.body, self.id_sizes)

    async def events(self) -> AsyncIterator[Composite]:
        """Iterate over event sets until the connection ends (then :attr:`terminal_error` says why).

        It ends however the connection ended — EOF, or bytes that could not be framed (``ProtocolError``).

        Raises:
            ProtocolError: one event set cannot be decoded (the connection itself is still framed).
        """
        while True:
            try:
                packet = await self._next_event_packet()
            except trio.EndOfChannel:
                return
            yield Event.Composite.decode_out(packet.body, self.id_sizes)

    async def receive_ddm(self) -> DdmChunk:
        """The next DDM chunk the VM sent unasked (Android only; command set 199).

        Raises:
            ConnectionClosed: the connection ended.
        """
        try:
            packet = await self._ddm_out.receive()
        except trio.EndOfChannel:
            raise _again(self._terminal or ConnectionClosed("the connection is closed")) from None
        return DDM.Chunk.decode_out(packet.body, self._sizes)

    async def ddm_request(self, chunk: DdmChunk, *, timeout: float = DDM_REPLY_WINDOW) -> list[DdmChunk]:
        """Send a DDM chunk to the VM and return the chunks of its reply (Android only).

        From API 28 ART sends no reply at all to a DDM command whose answer is empty (a handler that returns
        nothing, such as one that answers later with a chunk of its own; docs/reliability.md, "ART as devices
        show it"), so silence is an answer: after ``timeout`` seconds without a reply this returns ``[]``, and a
        reply that comes later is dropped as any late reply is.

        Raises:
            CommandError: a VM without DDM answers NOT_IMPLEMENTED; see :meth:`request`.
            ConnectionClosed: the connection ended first.
        """
        try:
            reply = await self.request(DDM.Chunk, chunk, timeout=timeout)
        except CommandTimeout:
            return []
        return list(reply.chunks)

    # --- the reader --------------------------------------------------------------------------------

    async def _read_loop(self) -> None:
        try:
            next_event, pending, counts = self._conn.next_event, self._pending, self._counts
            while self._terminal is None:
                event = next_event()
                if isinstance(event, ReplyPacket):  # most packets: matched here, without a call per packet
                    waiter = pending.pop(event.id, None)
                    if waiter is None:
                        counts["late_replies"] += 1
                    else:
                        counts["replies"] += 1
                        if self._held is None:
                            self._held = []
                        waiter.deliver(event)
                elif event is NEED_DATA:
                    if self._held is not None:
                        self.send_held()
                    self._conn.receive_data(await self._receive())
                elif isinstance(event, Closed):
                    self._finish(event.error())
                elif isinstance(event, Oversized):
                    self._oversized(event)
                else:
                    self._dispatch(event)
        except ProtocolError as exc:
            self._finish(exc)
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
            self._finish(ConnectionClosed(f"the JDWP connection broke: {exc!r}"))
        except Exception as exc:  # a bug of ours must still release every waiter
            log.exception("JDWP reader failed")
            self._finish(JdwpError(f"the JDWP reader failed: {exc!r}"))
        finally:
            self._finish(ConnectionClosed("the JDWP connection was closed"))

    def hold_writes(self) -> None:
        """Hold what :meth:`submit` and :meth:`send_now` write until :meth:`send_held`, for a caller about to
        handle a burst of queued events (:attr:`events_queued`): one write for the burst. The held packets also
        leave before any other write, and at the latest when the events run out (:meth:`events` waits)."""
        if self._held is None:
            self._held = []

    @property
    def events_queued(self) -> int:
        """Event sets the reader has queued that :meth:`events` has not handed out yet."""
        return self._events_out.statistics().current_buffer_used

    def send_held(self) -> None:
        """Send what :meth:`hold_writes` held, or what the callbacks of one read's replies wrote (a judged hit's
        release, the next hit's reads), in one write: under load, one system call for many hits."""
        held, self._held = self._held, None
        if held:
            try:
                self._write_now(b"".join(held))
            except JdwpError:  # the connection broke (and ended): the loop sees it end
                pass

    async def _receive(self) -> bytes:
        fd = self._read_fd
        if fd is None:
            return bytes(await self._stream.receive_some(RECEIVE_SIZE))
        # Wait first: the reader comes here after taking every whole packet, so the socket is most likely
        # drained, and a read that fails with EAGAIN (what receive_some tries first) is a wasted syscall and
        # exception per packet. Closing the stream wakes this wait with ClosedResourceError.
        await trio.lowlevel.wait_readable(fd)
        while True:
            try:
                return os.read(fd, RECEIVE_SIZE)
            except BlockingIOError:
                await trio.lowlevel.wait_readable(fd)

    def handle_events(self, handler: Callable[[Composite | None], bool | None] | None) -> None:
        """Hand each event set to ``handler`` in the reader, as it is read, instead of queueing it for
        :meth:`receive_event` (``None``: queue them again).

        For a caller that answers events at a high rate (:mod:`jdwp.tracing`): the event's reads go out from
        the reader (:meth:`submit`), their replies come back to callbacks and the thread is released
        (:meth:`send_now`) before any task is woken; a task switch per event and per reply is what a
        suspended thread would otherwise wait for. ``handler`` must not block; what it writes leaves in one
        write with the rest of that read's. What it raises is logged and lost, so it must release what the
        set suspended itself. It is called once more with ``None`` when the connection has ended (every reply
        of :meth:`submit` has been handed out by then). A set it returns ``False`` for is queued for
        :meth:`receive_event` after all, and so is a set that cannot be decoded (for it to raise on).
        """
        self._event_handler = handler

    def _dispatch(self, packet: CommandPacket) -> None:
        """A command the VM sent (the reader matches replies itself)."""
        if packet.key == Event.Composite.key:
            self._counts["events"] += 1
            handler = self._event_handler
            if handler is not None:
                try:
                    composite = Event.Composite.decode_out(packet.body, self.id_sizes)
                except ProtocolError:
                    self._events_in.send_nowait(packet)
                    return
                self._counts["events_handled_in_reader"] += 1
                if self._held is None:  # its writes leave with the rest of this read's
                    self._held = []
                try:
                    if handler(composite) is False:
                        self._events_in.send_nowait(packet)
                except Exception:  # the reader must go on
                    log.exception("an event handler of JdwpClient.handle_events failed")
                return
            self._events_in.send_nowait(packet)
        elif packet.key == DDM.Chunk.key:
            try:
                self._ddm_in.send_nowait(packet)
                self._counts["ddm"] += 1
            except trio.WouldBlock:
                self._counts["ddm_dropped"] += 1
        else:
            self._counts["unknown_commands"] += 1
            log.warning("dropping a command the VM sent that we do not know: set %d, command %d, %d bytes",
                        packet.command_set, packet.command, len(packet.body))

    def _oversized(self, header: Oversized) -> None:
        """A packet over the cap, whose body the framing is skipping: a reply fails its own request at once;
        a command (an event set or DDM chunk that big) is lost, and said so."""
        self._counts["oversized"] += 1
        if not header.is_reply:
            log.warning("dropping a %d-byte command packet from the VM (set %d, command %d): over the %d-byte "
                        "limit", header.length, header.code >> 8, header.code & 0xFF, header.limit)
            return
        waiter = self._pending.pop(header.packet_id, None)
        if waiter is None:
            self._counts["late_replies"] += 1
            return
        self._counts["replies"] += 1
        waiter.deliver(ReplyTooLarge("", header.length, header.limit))

    def _finish(self, error: JdwpError) -> None:
        if self._terminal is not None:
            return
        self._terminal = error
        pending, self._pending = self._pending, {}
        for waiter in pending.values():
            waiter.deliver(error)
        self._events_in.close()
        self._ddm_in.close()
        self._closed.set()
        if self._event_handler is not None:
            try:
                self._event_handler(None)
            except Exception:
                log.exception("an event handler of JdwpClient.handle_events failed")

    # --- lifecycle ---------------------------------------------------------------------------------

    async def _load_id_sizes(self, timeout: float, read_version: bool,
                             more: Sequence[tuple[Command[Any, Any], Any]] = ()) -> None:
        """``IDSizes``, ``Version`` when asked and ``more`` in one write. Neither of the first two replies holds
        IDs, so neither needs the sizes to be read; ``more``'s replies are read once the sizes are known.
        ``IDSizes``'s own failure is the one raised first."""
        requests: list[tuple[Command[Any, Any], Any]] = [(VirtualMachine.IDSizes, Empty())]
        if read_version:
            requests.append((VirtualMachine.Version, Empty()))
        first = len(requests)
        answers = await self.request_all([*requests, *more], timeout=timeout, raw=range(first, first + len(more)))
        for answer in answers[:first]:
            if isinstance(answer, JdwpError):
                raise answer
        sizes = answers[0]
        try:
            sizes.check()
        except ValueError as exc:
            raise ProtocolError(str(exc)) from None
        self._sizes = sizes
        if read_version:
            self._version = answers[1]
        self._first_answers = [((command, out), answer if isinstance(answer, JdwpError)
                                else command.decode_reply(answer, sizes))
                               for (command, out), answer in zip(more, answers[first:], strict=True)]

    async def aclose(self) -> None:
        """Close the stream without telling the VM (see :meth:`dispose` for a polite goodbye)."""
        self._finish(ConnectionClosed("the JDWP connection was closed by us"))
        await trio.aclose_forcefully(self._stream)

    async def dispose(self, *, timeout: float | None = None) -> None:
        """``VirtualMachine.Dispose`` (1,6), then close.

        The VM drops our event requests and resumes what we suspended; it keeps running.
        A connection that is already gone is closed quietly.
        """
        try:
            if self._terminal is None:
                await self.request(VirtualMachine.Dispose, timeout=timeout)
        except (ConnectionClosed, CommandTimeout):
            pass
        finally:
            await self.aclose()

    def __repr__(self) -> str:
        state = "closed" if self._terminal else "open"
        return f"<JdwpClient {state}, {len(self._pending)} in flight>"


@asynccontextmanager
async def open_jdwp(
    stream: trio.abc.Stream,
    *,
    handshake_timeout: float = DEFAULT_HANDSHAKE_TIMEOUT,
    request_timeout: float = DEFAULT_REQUEST_TIMEOUT,
    write_timeout: float = DEFAULT_WRITE_TIMEOUT,
    max_packet: int = DEFAULT_MAX_PACKET,
    handshake: bool = True,
    read_version: bool = True,
    first_reply_timeout: float | None = None,
    first_requests: Sequence[tuple[Command[Any, Any], Any]] = (),
) -> AsyncIterator[JdwpClient]:
    """Handshake over ``stream``, read the VM's ID sizes and version, and yield a :class:`JdwpClient`.

    The stream is closed when the block exits (use :meth:`JdwpClient.dispose` inside it to let the VM
    clean up first). Any ``trio.abc.Stream`` works: TCP to ``-agentlib:jdwp``, an ADB ``jdwp:<pid>``
    stream, or ``trio.testing.memory_stream_pair()``. Pass ``handshake=False`` for a stream whose
    handshake was already exchanged (``pyjdwp_android.open_jdwp_stream`` does it, to tell a busy app apart).
    ``VirtualMachine.Version`` goes out with ``IDSizes``, in the same round trip, and is kept as
    :attr:`JdwpClient.version_info`; ``read_version=False`` sends ``IDSizes`` alone. ``first_requests``
    (``(command, out-data record)`` pairs whose out-data holds no IDs: their width is not known yet) go out
    in that same write, a round trip earlier than they could otherwise; their answers are
    :meth:`JdwpClient.first_answer` (``jdwp.debugger.FIRST_REQUESTS`` are those the debugger engine asks
    as soon as it starts).

    ``first_reply_timeout`` (default: ``handshake_timeout``) bounds the wait for the first reply on its
    own: on Android the first non-DDM packet is what makes ART's adbconnection load the JDWP agent
    (libjdwp), which then tags every loaded class before it answers, so that reply can take many seconds
    on a big app while the handshake (answered by adbconnection itself) is immediate. The time it took
    is kept in :attr:`JdwpClient.first_reply_s`.

    Raises:
        ConnectionClosed: the peer closed the stream during the handshake (on Android this is what a
            process already being debugged does).
        CommandTimeout: no handshake, or no reply to the first commands (``VirtualMachine.IDSizes`` and
            ``Version``), within ``handshake_timeout`` and ``first_reply_timeout`` seconds.
        ProtocolError: the peer is not a JDWP agent.
    """
    connection = JdwpConnection(max_packet, skip_oversized=True)
    if handshake:
        try:
            await _handshake(stream, connection, handshake_timeout)
        except BaseException:
            await trio.aclose_forcefully(stream)
            raise
    else:
        connection.skip_handshake()
    client = JdwpClient(stream, connection, request_timeout=request_timeout, write_timeout=write_timeout)
    try:
        async with trio.open_nursery() as nursery:
            client._nursery = nursery
            nursery.start_soon(client._read_loop)
            try:
                first_reply = handshake_timeout if first_reply_timeout is None else first_reply_timeout
                asked = trio.current_time()
                try:
                    await client._load_id_sizes(first_reply, read_version, first_requests)
                except CommandTimeout:
                    # A peer that echoes what it gets passes the handshake; the first reply tells.
                    raise CommandTimeout(f"the peer answered the JDWP handshake but not its first command, "
                                         f"VirtualMachine.IDSizes (1,7), within {first_reply:g} s") from None
                client.first_reply_s = trio.current_time() - asked
                yield client
            finally:
                with trio.CancelScope(shield=True):
                    await client.aclose()
                nursery.cancel_scope.cancel()
    except BaseExceptionGroup as group:
        # The reader never raises, so a group holds exactly what the caller's block raised.
        raise unwrap(group)  # noqa: B904 - the group is what we unwrap


async def _handshake(stream: trio.abc.Stream, connection: JdwpConnection, timeout: float) -> None:
    try:
        with trio.fail_after(timeout):
            await stream.send_all(connection.initiate())
            while connection.state is State.AWAIT_HANDSHAKE:
                connection.receive_data(await stream.receive_some(RECEIVE_SIZE))
    except trio.TooSlowError:
        raise CommandTimeout(f"no JDWP handshake from the peer within {timeout:g} s") from None
    except (trio.BrokenResourceError, trio.ClosedResourceError) as exc:
        raise ConnectionClosed(f"the connection broke during the JDWP handshake: {exc!r}") from None
    if connection.state is not State.OPEN:
        raise ConnectionClosed(
            "the peer closed the connection during the JDWP handshake "
            "(a VM accepts one debugger at a time: is another one attached?)")


@asynccontextmanager
async def open_jdwp_tcp(host: str, port: int, *, connect_timeout: float = DEFAULT_HANDSHAKE_TIMEOUT,
                        **options: Any) -> AsyncIterator[JdwpClient]:
    """Connect to a VM started with ``-agentlib:jdwp=transport=dt_socket,server=y,address=…``.

    Takes the same options as :func:`open_jdwp`.

    Raises:
        ConnectionClosed: nothing accepted the connection, or it closed during the handshake.
        CommandTimeout, ProtocolError: as for :func:`open_jdwp`.
    """
    try:
        with trio.fail_after(connect_timeout):
            stream = await trio.open_tcp_stream(host, port)
    except trio.TooSlowError:
        raise CommandTimeout(f"connecting to {host}:{port} took longer than {connect_timeout:g} s") from None
    except OSError as exc:
        raise ConnectionClosed(f"cannot connect to a JDWP agent at {host}:{port}: {exc.strerror or exc}") from None
    async with open_jdwp(stream, **options) as client:
        yield client
