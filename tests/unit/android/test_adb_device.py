"""Device-fact parsers and validators, with outputs as Android 7, 8 and 14 print them."""

from __future__ import annotations

import os
import subprocess

import pytest

from pyjdwp_android.device import (
    belongs_to_app,
    facts_command,
    package_uid_command,
    parse_facts,
    parse_package_uid,
    parse_ps,
    ps_command,
    validate_app_id,
    validate_pid,
)
from pyjdwp_android.errors import InvalidArgument

# Android 14 (toybox 0.8.9): `ps -A -o pid,args`, then the separator, then plain `ps` (own session only).
PS_ANDROID_14 = """\
  PID ARGS
    1 init second_stage
  612 zygote64
 4242 com.example.app
 4301 com.example.app:remote
 4310 com.example.application
--pyjdwp-ps--
USER           PID  PPID        VSZ    RSS WCHAN            ADDR S NAME
shell         9001  9000   10781260   3320 __do_sys_+          0 S sh
"""

# Android 8.1 (toybox 0.7.3) prints the same shape for -A -o pid,args.
PS_ANDROID_8 = """\
  PID ARGS
    1 init
 2001 com.example.app
--pyjdwp-ps--
USER           PID  PPID     VSZ    RSS WCHAN            ADDR S NAME
"""

# Android 7 (toolbox ps): -A/-o are taken as a name filter, so only the header; the plain listing
# has an unlabelled state column before NAME.
PS_ANDROID_7 = """\
USER      PID   PPID  VSIZE  RSS   WCHAN              PC  NAME
--pyjdwp-ps--
USER      PID   PPID  VSIZE  RSS   WCHAN              PC  NAME
root      1     0     8924   740   SyS_epoll_ 0000000000 S /init
u0_a85    12345 567   1560712 71232 SyS_epoll_ 0000000000 S com.example.app
u0_a85    12400 567   1490200 60112 SyS_epoll_ 0000000000 S com.example.app:sync
"""


def test_ps_outputs_of_three_generations() -> None:
    assert parse_ps(PS_ANDROID_14)[2:] == [
        (4242, "com.example.app"),
        (4301, "com.example.app:remote"),
        (4310, "com.example.application"),
    ]
    assert parse_ps(PS_ANDROID_8) == [(1, "init"), (2001, "com.example.app")]
    assert parse_ps(PS_ANDROID_7) == [
        (1, "/init"),
        (12345, "com.example.app"),
        (12400, "com.example.app:sync"),
    ]
    assert parse_ps("") == []


# procps on a host whose pids wrapped: the `sh -c` running the command (whose argv once held the
# separator) got pid 300, below the app's; every row after the shell's line must still be read.
PS_SHELL_LINE_BELOW_THE_APP = """\
    PID COMMAND
      1 init
    300 sh -c ps -A -o pid,args 2>/dev/null; echo '--pyjdwp-ps--'; ps 2>/dev/null
    301 ps -A -o pid,args
   4242 com.example.app
   4301 com.example.app:remote
--pyjdwp-ps--
    PID TTY          TIME CMD
    300 ?        00:00:00 sh
"""


def test_ps_listing_is_split_only_at_the_separator_line() -> None:
    assert parse_ps(PS_SHELL_LINE_BELOW_THE_APP) == [
        (1, "init"), (300, "sh"), (301, "ps"), (4242, "com.example.app"), (4301, "com.example.app:remote"),
    ]
    # A process whose argv holds the separator is a row like any other.
    assert parse_ps("  PID ARGS\n   7 --pyjdwp-ps--\n   8 app\n") == [(7, "--pyjdwp-ps--"), (8, "app")]


def test_ps_command_never_holds_its_separator_in_one_piece() -> None:
    assert "--pyjdwp-ps--" not in ps_command()


def test_ps_command_runs_on_a_posix_host() -> None:
    # The listing holds the shell that runs the command, and processes on both sides of its pid — this
    # test process (usually below it) and the `ps` it forks (usually above; the other way once pids
    # wrap): all three are read whatever the order.
    shell = subprocess.Popen(["sh", "-c", ps_command()], stdout=subprocess.PIPE, text=True)
    out, _ = shell.communicate(timeout=30)
    rows = dict(parse_ps(out))
    assert rows.get(shell.pid) == "sh" and os.getpid() in rows and "ps" in rows.values(), out


def test_numbers_read_back_from_a_device_are_ascii_digits() -> None:
    fullwidth = FACTS_OUTPUT.replace("pid 4242", "pid ４２４２").replace("\t10123\t", "\t１０１２３\t", 1)
    _, facts = parse_facts(fullwidth)
    assert 4242 not in facts and set(facts) == {4999}
    ticks = FACTS_OUTPUT.replace("987654", "９８７６５４").replace("\t10123\t", "\t１０１２３\t", 1)
    _, facts = parse_facts(ticks)
    alive = facts[4242]
    assert alive is not None and alive.start_ticks is None and alive.uid is None
    assert parse_ps("  PID ARGS\n ４２４２ com.example.app\n   42 other\n") == [(42, "other")]
    assert parse_package_uid("package:com.example.app uid:１０１２３\n", "com.example.app") is None


def test_process_names_of_an_app() -> None:
    assert belongs_to_app("com.example.app", "com.example.app")
    assert belongs_to_app("com.example.app:remote", "com.example.app")
    assert not belongs_to_app("com.example.application", "com.example.app")
    assert not belongs_to_app("com.example.app:", "com.example.app")
    assert not belongs_to_app("com.example", "com.example.app")


# facts_command output for two pids on an Android 14 device: 4242 alive (comm has a space and a
# parenthesis, as thread-named processes can), 4999 gone.
FACTS_OUTPUT = """\
boot 6c1f3e0e-2a1b-4a5e-9f57-0d7d7e0b1c2a
pid 4242
name com.example.app

stat 4242 (le.app) x) S 612 612 0 0 -1 1077952832 12345 0 0 0 120 30 0 0 10 -10 40 0 987654 15607 2 3

uid Uid:\t10123\t10123\t10123\t10123

pid 4999
name
stat
uid
"""


def test_parse_facts_reads_name_uid_and_start_time() -> None:
    boot, facts = parse_facts(FACTS_OUTPUT)
    assert boot == "6c1f3e0e-2a1b-4a5e-9f57-0d7d7e0b1c2a"
    alive = facts[4242]
    assert alive is not None
    assert (alive.name, alive.uid, alive.start_ticks) == ("com.example.app", 10123, 987654)
    assert alive.identity.boot_id == boot
    assert facts[4999] is None


def test_facts_command_on_this_host_reads_our_own_process() -> None:
    out = subprocess.run(["sh", "-c", facts_command([os.getpid()])], capture_output=True, text=True, timeout=30)
    boot, facts = parse_facts(out.stdout)
    me = facts[os.getpid()]
    assert boot and me is not None
    assert me.uid == os.getuid() and me.start_ticks is not None and me.start_ticks > 0


def test_identity_differences_name_the_changed_fields() -> None:
    _, facts = parse_facts(FACTS_OUTPUT)
    before = facts[4242]
    assert before is not None
    after = type(before)(4242, "com.example.app", 10123, 987999, before.boot_id)
    assert before.identity.differences(after.identity) == ["start_ticks 987654 -> 987999"]
    assert before.identity.differences(before.identity) == []


# `pm list packages -U com.example.app`: the filter is a substring match (Android 8 and 14 alike);
# a device with a work profile prints one uid per user on Android 14.
PM_ANDROID_8 = "package:com.example.app.test uid:10124\npackage:com.example.app uid:10123\n"
PM_ANDROID_14_TWO_USERS = "package:com.example.app uid:10123,1010123\n"


def test_package_uid_takes_only_the_exact_package() -> None:
    assert parse_package_uid(PM_ANDROID_8, "com.example.app") == 10123
    assert parse_package_uid(PM_ANDROID_8, "com.example.app.test") == 10124
    assert parse_package_uid(PM_ANDROID_14_TWO_USERS, "com.example.app") == 10123
    assert parse_package_uid("", "com.example.app") is None
    assert parse_package_uid("package:com.example.app\n", "com.example.app") is None
    assert package_uid_command("com.example.app") == "pm list packages -U com.example.app"


@pytest.mark.parametrize(
    "bad", ["", "app", "com.example.app;reboot", "com.example.$(id)", "1com.example", "com..example", 5, None]
)
def test_app_id_validation_keeps_shell_text_out(bad: object) -> None:
    with pytest.raises(InvalidArgument):
        validate_app_id(bad)
    with pytest.raises(InvalidArgument):
        package_uid_command(bad)  # type: ignore[arg-type]


def test_pid_validation() -> None:
    assert validate_pid(4242) == 4242
    for bad in (0, -1, 4_194_305, True, "12", 1.5):
        with pytest.raises(InvalidArgument):
            validate_pid(bad)
    with pytest.raises(InvalidArgument):
        facts_command([1, "2; reboot"])  # type: ignore[list-item]
