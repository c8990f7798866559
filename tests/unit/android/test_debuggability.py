"""The app's own debuggable flag vs the device's ro.debuggable, from what the device prints."""

from __future__ import annotations

from pyjdwp_android.debuggability import parse_debuggability

# What `dumpsys package <appId> | grep -E 'lags=\['` prints for a debug build and for a release build.
DEBUG_BUILD = ("    flags=[ DEBUGGABLE HAS_CODE ALLOW_CLEAR_USER_DATA ALLOW_BACKUP ]\n"
               "    pkgFlags=[ DEBUGGABLE HAS_CODE ALLOW_CLEAR_USER_DATA ALLOW_BACKUP ]\n")
RELEASE_BUILD = ("    flags=[ HAS_CODE ALLOW_CLEAR_USER_DATA ALLOW_BACKUP ]\n"
                 "    pkgFlags=[ HAS_CODE ALLOW_CLEAR_USER_DATA ALLOW_BACKUP ]\n")


def test_a_release_build_on_a_userdebug_device_is_limited() -> None:
    facts = parse_debuggability("1\n", RELEASE_BUILD)
    assert facts.limited and facts.device_debuggable and facts.app_debuggable is False
    warning = facts.warning("com.example.app")
    assert warning is not None and "debug build" in warning and "userdebug" in warning


def test_a_debug_build_is_not_limited_on_any_device() -> None:
    for prop in ("1", "0"):
        facts = parse_debuggability(prop, DEBUG_BUILD)
        assert facts.app_debuggable is True and not facts.limited and facts.warning("com.x.y") is None


def test_unknown_facts_warn_of_nothing() -> None:
    facts = parse_debuggability("", "")
    assert facts.device_debuggable is None and facts.app_debuggable is None and not facts.limited


def test_a_flag_name_containing_debuggable_is_not_the_flag() -> None:
    facts = parse_debuggability("1", "    flags=[ HAS_CODE NOT_DEBUGGABLE_X ]\n")
    assert facts.app_debuggable is False
