"""Whether the app is debuggable itself or only because the device is (userdebug/eng builds).

Layer: ``android`` (trio); never imports ``jdwp``. Issue 14 §3; docs/design.md §4.

On a device whose ``ro.debuggable`` is 1 (userdebug and eng builds) every app process registers for
JDWP, debuggable or not. ART then runs an app without the manifest's ``android:debuggable`` (the
package's ``ApplicationInfo.FLAG_DEBUGGABLE``, frameworks/base) without the debuggable runtime flag its
debug build would get: its code stays compiled and optimised, so breakpoints and steps work where ART
can deoptimise, but frames keep few or no readable locals. A debug build of the app is the fix, not a
different device.

The app's flag comes from ``dumpsys package <appId>``: the package manager prints the flags of each
package as ``flags=[ DEBUGGABLE HAS_CODE … ]`` (and its settings' ``pkgFlags=[ … ]``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .client import AdbClient
from .device import validate_app_id

__all__ = ["AppDebuggability", "read_app_debuggability"]

_FLAGS = re.compile(r"^\s*(?:pkg)?[Ff]lags=\[([^\]]*)\]", re.MULTILINE)


@dataclass(frozen=True)
class AppDebuggability:
    """``device_debuggable``: ``ro.debuggable`` is 1; ``app_debuggable``: the package has FLAG_DEBUGGABLE.
    Either is ``None`` when the device did not say."""

    device_debuggable: bool | None
    app_debuggable: bool | None

    @property
    def limited(self) -> bool:
        """Debuggable only through the device: ART keeps the app's frames optimised."""
        return self.device_debuggable is True and self.app_debuggable is False

    def warning(self, app_id: str) -> str | None:
        if not self.limited:
            return None
        return (f"{app_id} is not a debuggable build (no android:debuggable): this userdebug/eng device lets a "
                "debugger attach anyway, but ART keeps the app's code optimised, so locals are often unavailable "
                "and some lines never stop; install a debug build of the app for full debugging")


def parse_debuggability(getprop_output: str, dumpsys_output: str) -> AppDebuggability:
    """The facts from ``getprop ro.debuggable`` and the ``flags=[…]`` lines of ``dumpsys package``."""
    prop = getprop_output.strip()
    device = True if prop == "1" else False if prop == "0" else None
    flag_lines = _FLAGS.findall(dumpsys_output)
    app = any("DEBUGGABLE" in line.split() for line in flag_lines) if flag_lines else None
    return AppDebuggability(device, app)


async def read_app_debuggability(client: AdbClient, serial: str, app_id: str) -> AppDebuggability:
    """Ask the device, in one shell call.

    Raises:
        InvalidArgument: a malformed appId (checked before it reaches the shell).
        DeviceNotFound, DeviceUnavailable, AdbConnectionError, AdbTimeout, AdbProtocolError.
    """
    validate_app_id(app_id)
    # A marker line splits the two outputs; grep keeps dumpsys's answer to the flag lines (a package
    # dump runs to hundreds of lines).
    result = await client.shell(
        serial, f"getprop ro.debuggable; echo @@; dumpsys package {app_id} | grep -E 'lags=\\['")
    text = result.stdout.decode("utf-8", "replace")
    prop, _, flags = text.partition("@@")
    return parse_debuggability(prop, flags)
