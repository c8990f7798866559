"""Every command of the table has a typed method on the client, and that method sends exactly that command.

The method is found by rule: VirtualMachine commands are methods of the client (``vm.all_threads()``);
every other set is a namespace attribute named after the set in snake_case, and the method is the command
name in snake_case (``vm.thread_reference.frames``). For each command, out-data and a reply are drawn from
the records' wire specs (``strategies.for_record``); the method is called with the out-data's fields as its
arguments against a client whose ``request`` only records what it is asked; the recorded command and
out-data must be the drawn ones, and the method must return the reply's single field (or the reply when it
has none or several). No I/O: the coroutine finishes on its first step.
"""

from __future__ import annotations

import dataclasses
import inspect
import re
import typing
from collections.abc import Coroutine
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import HOTSPOT, for_record

from jdwp import Composite, JdwpClient
from jdwp.protocol.commands import ALL_COMMANDS, COMMAND_SETS, Command
from jdwp.protocol.connection import JdwpConnection

#: Commands whose method does not follow the naming rule, and why.
RENAMED = {
    # ``vm.id_sizes`` is the property holding the sizes read when the connection opened.
    "VirtualMachine.IDSizes": "fetch_id_sizes",
    # DDM (199) is Android's channel, not a JDWP command set: no namespace, one method beside receive_ddm.
    "DDM.Chunk": "ddm_request",
}
#: Commands the VM sends to us: the client's method receives them instead of sending.
RECEIVED = {"Event.Composite": "receive_event"}
#: Parameters that are the whole out-data record rather than one of its fields.
WHOLE_OUT = {"DDM.Chunk": "chunk"}

SENT = [cmd for cmd in ALL_COMMANDS if cmd.name not in RECEIVED]


def snake(name: str) -> str:
    """``"OwnedMonitorsStackDepthInfo"`` → ``"owned_monitors_stack_depth_info"``; ``"IDSizes"`` → ``"id_sizes"``."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name).lower()


class RecordingClient(JdwpClient):
    """A client whose ``request`` records the command and out-data and answers with a prepared reply."""

    def __init__(self, reply: Any) -> None:
        super().__init__(stream=typing.cast(Any, None), connection=JdwpConnection())
        self.reply = reply
        self.sent: list[tuple[Command[Any, Any], Any]] = []

    async def request(self, command: Command[Any, Any], out: Any = None, /, *, timeout: float | None = None,
                      **fields: Any) -> Any:
        self.sent.append((command, out if out is not None else command.out(**fields)))
        return self.reply

    async def aclose(self) -> None:
        pass


def method_of(client: JdwpClient, cmd: Command[Any, Any]) -> Any:
    """The bound method for ``cmd`` by the naming rule, or ``None``."""
    set_name, command_name = cmd.name.split(".")
    name = RENAMED.get(cmd.name, snake(command_name))
    if cmd.name in RENAMED or cmd.command_set == 1:
        return getattr(client, name, None)
    namespace = getattr(client, snake(set_name), None)
    return getattr(namespace, name, None)


def run(coroutine: Coroutine[Any, Any, Any]) -> Any:
    try:
        coroutine.send(None)
    except StopIteration as done:
        return done.value
    coroutine.close()
    raise AssertionError("the method awaited something besides request")


def test_every_command_set_with_commands_has_a_namespace() -> None:
    client = RecordingClient(None)
    for number, namespace in COMMAND_SETS.items():
        if number in (1, 64, 199) or not any(isinstance(v, Command) for v in vars(namespace).values()):
            continue
        assert hasattr(client, snake(namespace.__name__)), namespace.__name__


def test_every_command_has_a_typed_method() -> None:
    client = RecordingClient(None)
    missing = [cmd.name for cmd in SENT if method_of(client, cmd) is None]
    assert not missing, f"commands without a typed method: {missing}"
    for name, method in RECEIVED.items():
        assert typing.get_type_hints(getattr(JdwpClient, method))["return"] is Composite, name


@pytest.mark.parametrize("cmd", SENT, ids=lambda cmd: cmd.name)
@settings(max_examples=8, deadline=None)
@given(data=st.data())
def test_the_method_sends_its_command_with_its_fields(cmd: Command[Any, Any], data: st.DataObject) -> None:
    out = data.draw(for_record(cmd.out, HOTSPOT), label="out")
    reply = data.draw(for_record(cmd.reply, HOTSPOT), label="reply")
    client = RecordingClient(reply)
    method = method_of(client, cmd)
    fields = {f.name: getattr(out, f.name) for f in dataclasses.fields(out)}
    arguments: dict[str, Any] = {}
    for name, param in inspect.signature(method).parameters.items():
        if name == WHOLE_OUT.get(cmd.name):
            arguments[name] = out
        elif name in fields:
            arguments[name] = fields[name]
        else:
            assert param.default is not inspect.Parameter.empty, f"{name} is not a field of {cmd.out.__name__}"
    if cmd.name not in WHOLE_OUT:
        assert set(fields) <= set(arguments), f"fields the method cannot set: {set(fields) - set(arguments)}"

    returned = run(method(**arguments))

    assert client.sent == [(cmd, out)]
    reply_fields = dataclasses.fields(reply)
    if not reply_fields:
        assert returned is None
    elif len(reply_fields) == 1:
        assert returned == getattr(reply, reply_fields[0].name)
    else:
        assert returned is reply
