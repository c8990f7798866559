"""Whether a VM we just attached to runs its program already, or waits to send VM_START.

Layer: ``jdwp.debugger`` on ``jdwp.client``. The engine asks it once, at attach (:meth:`.engine.Debugger._await_start`):
a VM that runs gets no grace period for a VM_START event that will never come.
"""

from __future__ import annotations

from ...client import JdwpClient
from ...protocol.commands import VirtualMachine
from ...protocol.commands.vm import ClassesBySignatureOut
from ...protocol.errors import JdwpError, UsageError

__all__ = ["FIRST_REQUESTS", "runs_already"]

LAUNCHER = "Lsun/launcher/LauncherHelper;"  # loaded by the java launcher to load the main class
ANDROID = "Ldalvik/system/VMRuntime;"

#: What :func:`runs_already` asks a VM that is not Android's. Given to ``jdwp.open_jdwp`` as its
#: ``first_requests``, it goes out with ``IDSizes`` and ``Version``: attaching to a running JVM costs no
#: round trip of its own (an Android VM ignores the question at no cost: the write goes out anyway).
FIRST_REQUESTS = ((VirtualMachine.ClassesBySignature, ClassesBySignatureOut(LAUNCHER)),)


async def runs_already(vm: JdwpClient) -> bool:
    """Whether the VM evidently runs its program; one round trip at most, none for an Android VM or when the
    connection opened with :data:`FIRST_REQUESTS`.

    An Android VM's ``VirtualMachine.Version`` (1,1) names its ``java.vm.name`` system property, which
    libcore sets to ``Dalvik`` (``java.lang.System.initUnchangeableSystemProperties``): an app process is
    forked from the zygote, running (an app that waits for its debugger is held by the caller). Any other
    VM runs once the java launcher's helper class is loaded. A VM whose version was not read when the
    connection opened is asked about both classes, in one write. A VM that cannot answer is taken as running.
    """
    try:
        name: str | None = vm.version_info.vm_name
    except UsageError:
        name = None
    if name is not None and "Dalvik" in name:
        return True
    answered = vm.first_answer(*FIRST_REQUESTS[0])
    if name is not None and answered is not None:
        return isinstance(answered, JdwpError) or bool(answered.classes)
    markers = [LAUNCHER] if name is not None else [LAUNCHER, ANDROID]
    try:
        loaded = await vm.request_all([(VirtualMachine.ClassesBySignature, ClassesBySignatureOut(marker))
                                       for marker in markers])
    except JdwpError:
        return True
    return any(isinstance(answer, JdwpError) or answer.classes for answer in loaded)
