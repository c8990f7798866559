"""Launching for debugging: the activity check, the commands, and what am, cmd package, getprop and dumpsys
print (texts as frameworks/base's ActivityManagerShellCommand, PackageManagerShellCommand and
ProcessRecord.dump print them; no device here)."""

from __future__ import annotations

import pytest

from pyjdwp_android.anr import parse_debugging
from pyjdwp_android.errors import InvalidArgument
from pyjdwp_android.launch import (
    clear_command,
    parse_am_start,
    parse_resolved_activity,
    parse_sdk,
    resolve_command,
    start_command,
    validate_activity,
)


@pytest.mark.parametrize("good", [".MainActivity", "com.example.app.MainActivity", "a.B$Inner", "_x", ".a1.b2"])
def test_class_names_pass(good: str) -> None:
    assert validate_activity(good) == good


@pytest.mark.parametrize("bad", ["", ";reboot", ".Main Activity", "..Main", "a..b", "com/x", "a\x00b", "$(id)",
                                 "`id`", "a|b", "a&b", "'a'", "a\nb", "1abc", ".", "x" * 256, "a.", "ä.b"])
def test_everything_else_is_refused_before_a_shell(bad: str) -> None:
    with pytest.raises(InvalidArgument):
        validate_activity(bad)
    with pytest.raises(InvalidArgument):
        start_command("com.example.app", bad, suspend=False)


def test_commands() -> None:
    assert start_command("com.x.y", ".Main", suspend=False) == "am start -S -D -n com.x.y/.Main"
    assert start_command("com.x.y", ".Main", suspend=True) == "am start -S -D --suspend -n com.x.y/.Main"
    assert "-W" not in start_command("com.x.y", ".Main", suspend=True).split()
    assert clear_command("com.x.y") == "pm clear com.x.y"
    assert resolve_command("com.x.y") == "cmd package resolve-activity --brief com.x.y"
    with pytest.raises(InvalidArgument):
        clear_command("com.x;reboot")


def test_am_start_output() -> None:
    assert parse_am_start("Starting: Intent { cmp=com.x/.Main }\n").started
    missing = parse_am_start("Starting: Intent { cmp=com.x/.Nope }\nError type 3\n"
                             "Error: Activity class {com.x/com.x.Nope} does not exist.\n")
    assert not missing.started and missing.missing_activity
    assert missing.error == "Error: Activity class {com.x/com.x.Nope} does not exist."
    denied = parse_am_start("Starting: Intent { cmp=com.x/.Main }\n"
                            "Error: Activity not started, you do not have permission to access it.\n")
    assert not denied.started and not denied.missing_activity and "permission" in (denied.error or "")
    assert parse_am_start("Exception occurred while executing 'start':\njava.lang.SecurityException: x").error
    assert not parse_am_start("").started


def test_resolve_activity_and_sdk() -> None:
    brief = "priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=true\ncom.x.y/.MainActivity\n"
    assert parse_resolved_activity(brief, "com.x.y") == ".MainActivity"
    assert parse_resolved_activity("com.x.y/com.x.y.ui.Home\n", "com.x.y") == "com.x.y.ui.Home"
    assert parse_resolved_activity("No activity found\n", "com.x.y") is None
    assert parse_resolved_activity("com.other/.Main\n", "com.x.y") is None
    assert parse_sdk("34\n") == 34 and parse_sdk("") is None and parse_sdk("３４") is None


DUMP = """ACTIVITY MANAGER RUNNING PROCESSES (dumpsys activity processes)
  All known processes:
  *APP* UID 10123 ProcessRecord{3a1b2c 4242:com.x.y/u0a123}
    user #0 uid=10123 gids={50123}
    pid=4242 starting=false
    mDebugging=true
  *APP* UID 10124 ProcessRecord{3a1b2d 4343:com.other/u0a124}
    pid=4343 starting=false
  mDebugApp=com.x.y/orig=com.x.y mDebugTransient=true mOrigWaitForDebugger=true
"""


def test_debug_app_from_dumpsys() -> None:
    assert parse_debugging(DUMP, 4242) is True
    assert parse_debugging(DUMP, 4343) is False
    assert parse_debugging(DUMP, 999) is None
    assert parse_debugging("", 4242) is None
