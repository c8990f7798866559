"""A frozen app's refusal by a recent adbd: ``jdwp:<pid>`` refused while the pid stays registered.

packages/modules/adb's ``daemon/jdwp_service.cpp`` (recent versions) checks the process's cgroup freezer
before handing it a socket and refuses a frozen one; the testbed's Android 10 adbd has no such check. Its
refusal of an unknown pid is the same code path and the same bytes on the wire (no socket, the service
fails), so the test takes that real refusal and lets the pid listing say what the newer device would say:
the pid is still registered. Only the listing is faked; the refusal comes from the real adbd.
"""

from __future__ import annotations

import pytest
import trio

from adb.testbed import Testbed
from pyjdwp_android import ProcessNotFound
from pyjdwp_android.frozen import ProcessFrozen, open_app_jdwp_stream

pytestmark = pytest.mark.live

UNREGISTERED = 4_000_000  # above pid_max: adbd refuses it


async def test_a_refused_pid_that_is_still_registered_is_frozen(testbed: Testbed,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    client = testbed.client()
    with trio.fail_after(30):
        with pytest.raises(ProcessNotFound):  # refused and not listed: gone
            await open_app_jdwp_stream(client, testbed.serial, UNREGISTERED)
        listed = await client.jdwp_pids(testbed.serial)

        async def still_listed(serial: str) -> list[int]:
            return [*listed, UNREGISTERED]

        monkeypatch.setattr(client, "jdwp_pids", still_listed)
        with pytest.raises(ProcessFrozen) as info:
            await open_app_jdwp_stream(client, testbed.serial, UNREGISTERED)
        assert info.value.code == "PROCESS_FROZEN" and info.value.retryable
        assert "refused" in str(info.value) and "bring it to the foreground" in str(info.value)
