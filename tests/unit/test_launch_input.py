"""attach_debugger's ``launch`` input: checked before anything reaches a device."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from pyjdwp_server.session.models import AttachInput, TargetInput

ANDROID = {"platform": "android", "deviceId": "emulator-5554", "appId": "com.example.app"}


def test_launch_is_optional_and_defaults_to_the_launcher_activity() -> None:
    assert AttachInput(**ANDROID).launch is None
    launch = AttachInput(**ANDROID, launch={}).launch
    assert launch is not None and launch.activity is None and launch.clearData is False
    given = AttachInput(**ANDROID, launch={"activity": ".Main", "clearData": True}).launch
    assert given is not None and given.activity == ".Main" and given.clearData is True


@pytest.mark.parametrize("launch", [{"activity": "; reboot"}, {"activity": ".A B"}, {"activity": "../x"},
                                    {"activity": "a\x00b"}, {"activity": "x" * 300}, {"activity": ""},
                                    {"clearData": "yes"}, {"other": 1}])
def test_bad_launch_inputs_are_refused(launch: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        AttachInput(**ANDROID, launch=launch)


def test_launch_goes_with_android_only_and_not_with_a_pid() -> None:
    with pytest.raises(ValidationError, match="launch or processId"):
        AttachInput(**ANDROID, processId=42, launch={})
    with pytest.raises(ValidationError, match="launch is for platform android"):
        AttachInput(platform="jvm", address="127.0.0.1:5005", launch={})
    with pytest.raises(ValidationError):  # the capabilities tool never launches
        TargetInput(**ANDROID, launch={})


def test_the_launched_process_keeps_the_attach_input_as_validated() -> None:
    """Issue 23 item 11: attach's default timeoutMs (60 s) is above every other call's cap (30 s); the target
    kept for a cleanup retry is this input with the new pid, never re-validated as another model."""
    given = AttachInput(**ANDROID, launch={"activity": ".Main"})
    assert given.timeoutMs == 60000
    launched = given.launched(8025)
    assert (launched.launch, launched.processId, launched.timeoutMs) == (None, 8025, 60000)
    assert AttachInput.model_validate(launched.model_dump()) == launched  # what it holds is valid input
    assert given.launch is not None and given.processId is None  # the call's input is unchanged
    for pid in (0, -1, 2**53):
        with pytest.raises(ValueError, match="not a process id"):
            given.launched(pid)


@pytest.mark.parametrize("timeout", [99, 120001, "60000", 1.5])
def test_attach_timeouts_are_checked_with_the_input(timeout: object) -> None:
    with pytest.raises(ValidationError, match="timeoutMs"):
        AttachInput(**ANDROID, launch={}, timeoutMs=timeout)
    assert AttachInput(**ANDROID, launch={}, timeoutMs=120000).timeoutMs == 120000
