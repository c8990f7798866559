"""From a tool's target input to an open JDWP client: an Android app's process over adb, or a JVM.

Layer: ``server``; uses ``android`` (resolution, identity, JDWP streams) and ``jdwp`` (the client).
DESIGN.md §4 (Android) and §5 (targets): the device is always explicit; a JVM address is loopback
unless the server was started with ``--allow-remote-jvm``, checked before any connection is tried.
"""

from __future__ import annotations

import dataclasses
import ipaddress
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any

import jdwp
from android import AdbClient, ResolvedTarget, open_jdwp_stream, recheck_identity, resolve_target

from .envelope import ToolFailure
from .models import TargetInput


@dataclasses.dataclass(frozen=True)
class Config:
    """The server's flags that shape sessions."""

    pause_limit_s: float = 60.0
    idle_limit_s: float = 300.0
    session_limit_s: float = 1800.0
    adb_transport: str = "direct"
    allow_remote_jvm: bool = False


@dataclasses.dataclass
class Connected:
    """An open JDWP client and what the session reports about its target."""

    device_key: str
    device: str
    target: dict[str, Any]
    vm: jdwp.JdwpClient
    recheck: Callable[[], Awaitable[None]] | None = None
    android: bool = False


def device_key(inp: TargetInput) -> str:
    """The key of "one session per device": the serial, or the JVM's address."""
    if inp.platform == "android":
        return f"android:{inp.deviceId}"
    host, port = parse_address(inp.address or "")
    return f"jvm:{host}:{port}"


def parse_address(address: str) -> tuple[str, int]:
    """``host:port`` (``[v6]:port`` too).

    Raises:
        ToolFailure: INVALID_ARGUMENT for anything else.
    """
    host, sep, port = address.rpartition(":")
    host = host.strip("[]")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ToolFailure("INVALID_ARGUMENT", f"address must be host:port (e.g. 127.0.0.1:5005), got {address!r}")
    return host, int(port)


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_jvm_address(address: str, config: Config) -> tuple[str, int]:
    host, port = parse_address(address)
    if not is_loopback(host) and not config.allow_remote_jvm:
        raise ToolFailure("INVALID_ARGUMENT", f"{host} is not a loopback address; JDWP has no authentication, so "
                                              "remote JVMs are refused unless the server runs with --allow-remote-jvm")
    return host, port


@asynccontextmanager
async def connect(inp: TargetInput, config: Config, adb: AdbClient) -> AsyncIterator[Connected]:
    """Resolve and open the target; the JDWP connection closes when the block exits.

    Raises:
        ToolFailure, AdbError, JdwpError: the target cannot be resolved or attached; nothing is left open.
    """
    if inp.platform == "jvm":
        host, port = check_jvm_address(inp.address or "", config)
        async with AsyncExitStack() as stack:
            try:
                vm = await stack.enter_async_context(jdwp.open_jdwp_tcp(host, port))
            except (jdwp.ConnectionClosed, jdwp.CommandTimeout, jdwp.ProtocolError) as exc:
                raise ToolFailure("DEBUGGER_ATTACH_FAILED", f"{exc}. Is a JVM running with -agentlib:jdwp="
                                  "transport=dt_socket,server=y at that address, with no other debugger attached?",
                                  retryable=True) from None
            address = f"{host}:{port}"
            yield Connected(f"jvm:{address}", address, {"platform": "jvm", "address": address}, vm)
        return
    assert inp.deviceId is not None and inp.appId is not None
    resolved = await resolve_target(adb, inp.deviceId, inp.appId, inp.processId)
    stream = await open_jdwp_stream(adb, resolved.serial, resolved.pid, transport=config.adb_transport)
    async with jdwp.open_jdwp(stream, handshake=False) as vm:
        yield Connected(f"android:{resolved.serial}", resolved.serial, android_target(resolved), vm,
                        recheck=lambda: recheck_identity(adb, resolved), android=True)


def android_target(resolved: ResolvedTarget) -> dict[str, Any]:
    facts = resolved.facts
    return {
        "platform": "android",
        "app_id": resolved.app_id,
        "pid": facts.pid,
        "process_name": facts.name,
        "uid": facts.uid,
        "start_identity": {"start_ticks": facts.start_ticks, "boot_id": facts.boot_id},
    }
