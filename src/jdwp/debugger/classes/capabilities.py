"""What the VM can do, as this engine needs to know it: ``VirtualMachine.CapabilitiesNew`` (1,17) and the
JDWP version (``VirtualMachine.Version``, 1,1), asked once per session.

Layer: ``jdwp.debugger.classes`` (trio, via ``jdwp.client``); no MCP, no ``android``.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any

from ...client import JdwpClient
from ...protocol.commands.vm import CapabilitiesNewReply, VersionReply
from ...protocol.errors import CommandError, UsageError
from .._gather import gather

__all__ = ["Capabilities", "VmCapabilities"]

log = logging.getLogger("jdwp.debugger")


@dataclasses.dataclass(frozen=True, slots=True)
class Capabilities:
    """What this engine needs to know of the VM (all false when the VM cannot say)."""

    source_debug_extension: bool = False
    source_name_filters: bool = False
    #: ``canWatchFieldModification`` / ``canWatchFieldAccess`` (watchpoints).
    field_modification: bool = False
    field_access: bool = False
    #: ``MethodExitWithReturnValue`` (event kind 42): JDWP 1.6 added it with no capability bit of its own;
    #: JDI's ``canGetMethodReturnValues`` goes by the version (>= 1.6), and so does this.
    method_return_values: bool = False
    can_pop_frames: bool = False
    #: ``canRedefineClasses`` / ``canForceEarlyReturn`` (:mod:`..changes`).
    can_redefine_classes: bool = False
    can_force_early_return: bool = False


class VmCapabilities:
    """The VM's :class:`Capabilities`, asked once (:meth:`get`) or learnt from a caller's own question."""

    def __init__(self, vm: JdwpClient) -> None:
        self._vm = vm
        self._known: Capabilities | None = None

    async def get(self) -> Capabilities:
        """The VM's capabilities, asked once (with its JDWP version when the connection did not read it).

        Source-name filters: OpenJDK's back end implements ``SourceNameMatch`` since JDWP 1.6 but reports
        ``canUseSourceNameFilters`` false (JDI goes by the version too); either one is enough. A VM that
        cannot answer has no capabilities.
        """
        if self._known is not None:
            return self._known
        if self.version_known:
            return self.learn(await _or_none(self._vm.capabilities_new))
        reply, version = await gather([partial(_or_none, self._vm.capabilities_new),
                                       partial(_or_none, self._vm.version)])
        return self._learn(reply, version)

    @property
    def known(self) -> Capabilities | None:
        """The capabilities once asked, else ``None``."""
        return self._known

    @property
    def version_known(self) -> bool:
        """Whether the connection read the VM's version when it opened (then the capabilities are one
        command, which a caller may send with others and hand to :meth:`learn`)."""
        try:
            return self._vm.version_info is not None
        except UsageError:
            return False

    def learn(self, reply: CapabilitiesNewReply | CommandError | None) -> Capabilities:
        """The answer to ``VirtualMachine.CapabilitiesNew`` (1,17) sent by a caller (an error: none), when the
        version is known (:attr:`version_known`)."""
        if isinstance(reply, CommandError):
            log.info("%s: the engine goes on without it", reply)
            reply = None
        return self._learn(reply, self._vm.version_info)

    def _learn(self, reply: CapabilitiesNewReply | None, version: VersionReply | None) -> Capabilities:
        # From the capabilities and the JDWP version only, never ``vmVersion``: ART's is no Java version (its
        # ``vmName`` is ``Dalvik``; docs/reliability.md, "ART as devices show it").
        if self._known is None:  # learnt once: a second answer changes nothing
            names = bool(reply and reply.can_use_source_name_filters) or bool(
                version and (version.jdwp_major, version.jdwp_minor) >= (1, 6))
            six = bool(version and (version.jdwp_major, version.jdwp_minor) >= (1, 6))
            self._known = Capabilities(bool(reply and reply.can_get_source_debug_extension), names,
                                       bool(reply and reply.can_watch_field_modification),
                                       bool(reply and reply.can_watch_field_access), six,
                                       bool(reply and reply.can_pop_frames),
                                       bool(reply and reply.can_redefine_classes),
                                       bool(reply and reply.can_force_early_return))
        return self._known

    def refuse_source_name_filters(self) -> None:
        """The VM refused a ``SourceNameMatch`` request after all: use class patterns from now on."""
        if self._known is not None:
            self._known = dataclasses.replace(self._known, source_name_filters=False)


async def _or_none(ask: Callable[[], Awaitable[Any]]) -> Any:
    try:
        return await ask()
    except CommandError as exc:
        log.info("%s: the engine goes on without it", exc)
        return None
