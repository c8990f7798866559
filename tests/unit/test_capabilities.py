"""What get_debugger_capabilities offers a target: operations of the target's platform only (issue 23 item 12)."""

from __future__ import annotations

import socket

import trio

from pyjdwp_android import AdbClient
from pyjdwp_android.connection import ServerAddress
from pyjdwp_server.answers.capabilities import CAPABILITIES, INVOKE_CAPABILITIES, capabilities_for, operations_on
from pyjdwp_server.session.manager import SessionManager
from pyjdwp_server.session.targets import Config
from pyjdwp_server.transport.handling import call_tool


def test_launch_is_an_android_operation_only() -> None:
    for capabilities in (CAPABILITIES, INVOKE_CAPABILITIES):
        assert "launch" in capabilities.operations  # the profile's, over both of its platforms
        android, jvm = operations_on(capabilities, "android"), operations_on(capabilities, "jvm")
        assert android == capabilities.operations
        assert jvm == tuple(op for op in capabilities.operations if op != "launch")


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def test_capabilities_of_a_jvm_and_of_an_android_target() -> None:
    adb = AdbClient(ServerAddress("127.0.0.1", closed_port()), start_server=False)  # unreachable: facts only
    async with trio.open_nursery() as nursery:
        manager = SessionManager(Config(), nursery, adb)
        jvm = await call_tool(manager, "get_debugger_capabilities", {"platform": "jvm", "address": "127.0.0.1:1"})
        android = await call_tool(manager, "get_debugger_capabilities",
                                  {"platform": "android", "deviceId": "emulator-5554", "appId": "com.example.app"})
        nursery.cancel_scope.cancel()
    assert jvm["success"] and android["success"]
    assert "launch" not in jvm["result"]["supported_operations"]
    assert "launch" in android["result"]["supported_operations"]
    assert android["result"]["prerequisites"]["adb"]["available"] is False


def test_mutation_adds_the_changes_and_trades_no_mutation_for_bodies_only() -> None:
    plain, texts, codes = capabilities_for(False)
    assert "set_value" not in plain.operations and "no_mutation" in codes
    assert any("--allow-mutation" in text for text in texts)
    assert {"watchpoints", "method_breakpoints", "return_values"} <= set(plain.operations)
    for invoke in (False, True):
        mutable, texts, codes = capabilities_for(invoke, "jvm", allow_mutation=True)
        assert mutable.profile.endswith("+mutation")
        assert {"set_value", "redefine_classes", "restart_frame", "force_return"} <= set(mutable.operations)
        assert "no_mutation" not in codes and "bodies_only" in codes
        assert ("method_invocation" in mutable.operations) is invoke
