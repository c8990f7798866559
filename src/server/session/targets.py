"""From a tool's target input to an open JDWP client: an Android app's process over adb, or a JVM.

Layer: ``server``; uses ``android`` (resolution, identity, JDWP streams) and ``jdwp`` (the client).
docs/design.md §4.2 (Android) and §5.1 (targets): the device is always explicit; a JVM address is resolved once
and is loopback unless the server was started with ``--allow-remote-jvm``, checked before any
connection is tried (:mod:`.addresses`); the connection goes to the checked addresses only.
"""

from __future__ import annotations

import dataclasses
import socket
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack, asynccontextmanager

import trio

import jdwp
from jdwp.debugger import FIRST_REQUESTS
from pyjdwp_android import AdbClient, ResolvedTarget, recheck_identity, resolve_target
from pyjdwp_android.frozen import open_app_jdwp_stream
from pyjdwp_android.hello import FirstContact, say_hello
from pyjdwp_android.launch import Launched, launch_app

from ..answers.failures import ToolFailure
from ..answers.results import AndroidTarget, JvmTarget, StartIdentity, Target
from .addresses import JvmAddress, format_address, resolve_jvm_address
from .config import Config as Config  # re-exported: the session modules and tests take it from here
from .models import AttachTimeout, TargetInput

STEP_LIMIT_S = 5.0
#: The first reply's own deadline on Android: ART loads the JDWP agent (libjdwp) when the first non-DDM
#: packet arrives (art/adbconnection/adbconnection.cc) and the agent tags every loaded class before it
#: answers (external/oj-libjdwp classTrack.c), which takes many seconds on a big app.
FIRST_REPLY_LIMIT_S = 45.0


@dataclasses.dataclass
class Connected:
    """An open JDWP client and what the session reports about its target."""

    device_key: str
    device: str
    target: Target
    vm: jdwp.JdwpClient
    recheck: Callable[[], Awaitable[None]] | None = None
    android: bool = False
    #: The app this attach started (``launch``), and what it said to our DDM HELO.
    launched: Launched | None = None
    contact: FirstContact | None = None


class CheckedTarget(TargetInput):
    """A JVM target whose address was resolved and checked, once, before its session started.

    Never an MCP input: the session manager makes it, so that the connection goes to the addresses that
    were checked (no second resolution) and a retried cleanup reaches the same JVM.
    """

    jvm: JvmAddress
    timeoutMs: AttachTimeout = 60000  # attach's own bound (it allows more than other calls)


def step_timeout(timeout_ms: int) -> float:
    """The bound of each step of opening a JVM connection: resolving, connecting, the JDWP handshake,
    the VM's first reply.

    A quarter of the call's ``timeoutMs``, at most 5 s (a JDWP agent answers each at once): a peer that
    is not JDWP is reported as DEBUGGER_ATTACH_FAILED before the call's own deadline, which would leave
    the attach's outcome unknown.
    """
    return min(STEP_LIMIT_S, timeout_ms / 4000)


async def check_target(inp: TargetInput, config: Config) -> TargetInput:
    """A JVM target with its address resolved and checked (:class:`CheckedTarget`); others as they are.

    Raises:
        ToolFailure: as :func:`check_jvm_address`.
    """
    if inp.platform != "jvm" or isinstance(inp, CheckedTarget):
        return inp
    jvm = await check_jvm_address(inp, config)
    return CheckedTarget(**inp.model_dump(exclude={"launch"}), jvm=jvm)


async def check_jvm_address(inp: TargetInput, config: Config) -> JvmAddress:
    """Resolve and check a JVM target's address (loopback unless ``--allow-remote-jvm``); no connection.

    Raises:
        ToolFailure: INVALID_ARGUMENT (malformed, unknown name, not loopback), DEBUGGER_ATTACH_FAILED
            (the resolver failed for now, or took longer than :func:`step_timeout`).
    """
    if isinstance(inp, CheckedTarget):
        return inp.jvm
    return await resolve_jvm_address(inp.address or "", allow_remote=config.allow_remote_jvm,
                                     timeout=step_timeout(inp.timeoutMs))


def device_keys(inp: TargetInput) -> tuple[str, ...]:
    """The keys of "one session per device": the serial; for a JVM, each address it resolved to.

    Raises:
        ValueError: a JVM target that was not checked (:func:`check_target`) yet.
    """
    if inp.platform == "android":
        return (f"android:{inp.deviceId}",)
    if not isinstance(inp, CheckedTarget):
        raise ValueError("a JVM target's keys are its resolved addresses: check_target it first")
    return inp.jvm.keys()


def device_key(inp: TargetInput) -> str:
    """The first of :func:`device_keys` (an Android target has one)."""
    return device_keys(inp)[0]


@asynccontextmanager
async def connect(inp: TargetInput, config: Config, adb: AdbClient) -> AsyncIterator[Connected]:
    """Resolve and open the target; the JDWP connection closes when the block exits.

    Raises:
        ToolFailure, AdbError, JdwpError: the target cannot be resolved or attached; nothing is left open.
    """
    if inp.platform == "jvm":
        jvm = await check_jvm_address(inp, config)
        step = step_timeout(inp.timeoutMs)
        tcp, ip = await open_tcp(jvm, step)
        address = format_address(ip, jvm.port)
        async with AsyncExitStack() as stack:
            try:
                vm = await stack.enter_async_context(jdwp.open_jdwp(tcp, handshake_timeout=step,
                                                                    first_requests=FIRST_REQUESTS))
            except jdwp.JdwpError as exc:
                raise _handshake_failure(address, exc) from None
            yield Connected(f"jvm:{address}", address, JvmTarget("jvm", address, requested_address=jvm.given), vm)
        return
    assert inp.deviceId is not None and inp.appId is not None
    launched = None
    launch = getattr(inp, "launch", None)  # attach_debugger's AttachInput; never a cleanup retry's target
    if launch is not None:
        # The launch gets most of the call's time; attaching to a waiting app is quick.
        launched = await launch_app(adb, inp.deviceId, inp.appId, launch.activity, clear_data=launch.clearData,
                                    timeout=max(2.0, inp.timeoutMs / 1000 - 3))
    resolved = await resolve_target(adb, inp.deviceId, inp.appId, launched.pid if launched else inp.processId)
    stream = await open_app_jdwp_stream(adb, resolved.serial, resolved.pid, transport=config.adb_transport)
    try:
        contact = await say_hello(stream)
    except BaseException:
        with trio.CancelScope(shield=True):
            await stream.aclose()
        raise
    async with jdwp.open_jdwp(stream, handshake=False, first_reply_timeout=FIRST_REPLY_LIMIT_S) as vm:
        yield Connected(f"android:{resolved.serial}", resolved.serial, android_target(resolved), vm,
                        recheck=lambda: recheck_identity(adb, resolved), android=True, launched=launched,
                        contact=contact)


async def open_tcp(jvm: JvmAddress, timeout: float) -> tuple[trio.SocketStream, str]:
    """Connect to the first checked address that accepts, within ``timeout`` seconds in all.

    Raises:
        ToolFailure: DEBUGGER_ATTACH_FAILED; not retryable when every address refused.
    """
    failures: list[str] = []
    refused = True
    with trio.move_on_after(timeout):
        for ip in jvm.addresses:
            sock = trio.socket.socket(socket.AF_INET6 if ":" in ip else socket.AF_INET, socket.SOCK_STREAM)
            try:
                await sock.connect((ip, jvm.port))
            except OSError as exc:
                sock.close()
                failures.append(f"{format_address(ip, jvm.port)}: {exc.strerror or exc}")
                refused = refused and isinstance(exc, ConnectionRefusedError)
                continue
            except BaseException:
                sock.close()
                raise
            return trio.SocketStream(sock), ip
        tried = "; ".join(failures)
        if refused:
            raise ToolFailure("DEBUGGER_ATTACH_FAILED", f"nothing accepts connections at {jvm.given} ({tried}): "
                              "no JVM listens there with -agentlib:jdwp=transport=dt_socket,server=y, or another "
                              "debugger holds it (a JDWP agent stops listening while a debugger is attached)")
        raise ToolFailure("DEBUGGER_ATTACH_FAILED", f"cannot connect to {jvm.given} ({tried})", retryable=True)
    raise ToolFailure("DEBUGGER_ATTACH_FAILED", f"connecting to {jvm.given} took longer than {timeout:g} s",
                      retryable=True)


def _handshake_failure(address: str, exc: jdwp.JdwpError) -> ToolFailure:
    """What it means when a peer accepted the connection and the JDWP opening failed (not worth a retry)."""
    if isinstance(exc, jdwp.ConnectionClosed):
        return ToolFailure("DEBUGGER_ATTACH_FAILED", f"{address} accepted the connection, then closed it during "
                           f"the JDWP handshake or its first command ({exc}): another debugger holds that JVM "
                           "(its agent serves one at a time), or no JDWP agent listens there")
    return ToolFailure("DEBUGGER_ATTACH_FAILED", f"{address} does not speak JDWP: {exc}. A JVM's -agentlib:jdwp "
                       "answers the JDWP handshake and its first command at once: is something else listening there?")


def android_target(resolved: ResolvedTarget) -> AndroidTarget:
    facts = resolved.facts
    return AndroidTarget("android", resolved.app_id, facts.pid, facts.name, facts.uid,
                         StartIdentity(facts.start_ticks, facts.boot_id))
