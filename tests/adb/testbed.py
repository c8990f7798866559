"""The adb testbed: a real adb server + a real adbd + JVMs registered as Android app processes.

Its fixtures are registered once, in tests/conftest.py, for every tier that needs them (tests/adb and
tests/server): the adbd they start binds the machine-wide abstract socket @jdwp-control, so a second
testbed in the same run would see no app process at all.

What runs:
- Debian's ``adb`` on a free port (``adb -P <port> start-server``), killed at session end;
- one ``adbd`` built from Debian's android-platform-tools source (``.ci/build-adbd``) on a free port,
  connected with ``adb connect``; its PATH starts with stand-in ``pm``/``getprop`` that print what
  Android prints; stopped by pid with SIGTERM at session end;
- per test, "app processes": JVMs whose argv[0] is the package name, registered on @jdwp-control by
  ``jdwp_registrar.py``, which proxies adbd's fds to the JVM's JDWP agent.
- for launch tests, :mod:`adb.launch_bed` adds stand-in ``am``, ``cmd package``, ``pm clear`` and ``dumpsys``
  to the same directory, and apps that wait for their debugger behind a played adbconnection.

Missing tools skip these tests with a message saying how to run them; with PYJDWP_REQUIRE_LIVE=1
(CI) they fail instead.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import trio

from pyjdwp_android.client import AdbClient, ServerAddress
from support.net import free_port

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
REQUIRE_LIVE = os.environ.get("PYJDWP_REQUIRE_LIVE") == "1"
HOW_TO_RUN = (
    "to run tests/adb: `apt-get install -y adb default-jdk-headless`, build adbd with "
    "`export PYJDWP_ADBD=$(.ci/build-adbd)`, then rerun pytest"
)
DEFAULT_UID = 10123


def _unavailable(what: str) -> None:
    message = f"{what}; {HOW_TO_RUN}"
    if REQUIRE_LIVE:
        pytest.fail(f"PYJDWP_REQUIRE_LIVE=1 but {message}", pytrace=False)
    pytest.skip(message)


def _adbd_candidates() -> list[Path]:
    paths = []
    if os.environ.get("PYJDWP_ADBD"):
        paths.append(Path(os.environ["PYJDWP_ADBD"]))
    if os.environ.get("PYJDWP_ADBD_CACHE"):
        paths.append(Path(os.environ["PYJDWP_ADBD_CACHE"]) / "adbd")
    if os.environ.get("XDG_CACHE_HOME"):
        paths.append(Path(os.environ["XDG_CACHE_HOME"]) / "pyjdwp-adbd" / "adbd")
    paths += [Path("/var/cache/pyjdwp-adbd/adbd"), Path.home() / ".cache" / "pyjdwp-adbd" / "adbd"]
    return paths


@pytest.fixture(scope="session")
def adb_path() -> str:
    path = os.environ.get("ADB_PATH") or shutil.which("adb")
    if not path:
        _unavailable("the `adb` binary is not installed")
    return str(path)


@pytest.fixture(scope="session")
def adbd_path() -> str:
    for candidate in _adbd_candidates():
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    _unavailable("no adbd binary was found (PYJDWP_ADBD unset and no cached build)")
    raise AssertionError("unreachable")


@pytest.fixture(scope="session")
def java_tools() -> tuple[str, str]:
    java, javac = shutil.which("java"), shutil.which("javac")
    if not java or not javac:
        _unavailable("a JDK (java and javac) is not installed")
    return str(java), str(javac)


@pytest.fixture(scope="session")
def debuggee_classes(java_tools: tuple[str, str], tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("classes")
    subprocess.run(
        [java_tools[1], "-g", "-d", str(out), str(HERE / "java" / "Heartbeat.java")], check=True, timeout=120
    )
    return out


_PM = """#!/bin/sh
# Stand-in for Android's pm: `pm list packages [-U] [FILTER]` printed as Android prints it
# ("package:<name> uid:<uid>"); FILTER is a substring match, as on Android.
table="$(dirname "$0")/packages.txt"
if [ "$1" = clear ] && [ -x "$(dirname "$0")/pm-clear" ]; then shift; exec "$(dirname "$0")/pm-clear" "$@"; fi
if [ "$1" != list ] || [ "$2" != packages ]; then echo "Unknown command: $*" >&2; exit 1; fi
shift 2
showuid=0
filter=
for a in "$@"; do case "$a" in -U) showuid=1 ;; -*) ;; *) filter=$a ;; esac; done
while read -r name uid; do
  case "$name" in
    *"$filter"*) if [ $showuid = 1 ]; then echo "package:$name uid:$uid"; else echo "package:$name"; fi ;;
  esac
done < "$table"
"""

_GETPROP = """#!/bin/sh
# Stand-in for Android's getprop: `getprop` lists "[key]: [value]", `getprop KEY [DEFAULT]` prints one.
table="$(dirname "$0")/props.txt"
if [ $# -eq 0 ]; then
  while IFS='=' read -r k v; do echo "[$k]: [$v]"; done < "$table"
  exit 0
fi
while IFS='=' read -r k v; do if [ "$k" = "$1" ]; then echo "$v"; exit 0; fi; done < "$table"
echo "${2:-}"
"""

_PROPS = "ro.build.version.sdk=29\nro.build.version.release=10\nro.product.model=pyjdwp_testbed\nro.debuggable=1\n"


@dataclass
class Testbed:
    """The running adb server + adbd pair."""

    __test__ = False  # not a test class, despite the name

    adb: str
    server_port: int
    adbd_port: int
    serial: str
    standins: Path
    packages: dict[str, int] = field(default_factory=dict)

    def client(self) -> AdbClient:
        return AdbClient(ServerAddress("127.0.0.1", self.server_port), adb_path=self.adb, start_server=False)

    def adb_cli(self, *args: str, timeout: float = 30) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [self.adb, "-P", str(self.server_port), *args], capture_output=True, text=True, timeout=timeout
        )

    def install_package(self, name: str, uid: int = DEFAULT_UID) -> None:
        """Make the stand-in ``pm`` list ``name`` (what installing the APK would do)."""
        self.packages[name] = uid
        lines = "".join(f"{n} {u}\n" for n, u in self.packages.items())
        (self.standins / "packages.txt").write_text(lines)


@pytest.fixture(scope="session")
def testbed(adb_path: str, adbd_path: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Testbed]:
    standins = tmp_path_factory.mktemp("android-bin")
    for name, text in (("pm", _PM), ("getprop", _GETPROP)):
        (standins / name).write_text(text)
        (standins / name).chmod(0o755)
    (standins / "props.txt").write_text(_PROPS)
    (standins / "packages.txt").write_text("")
    adbd_port, server_port = free_port(), free_port()
    env = dict(os.environ, ADBD_PORT=str(adbd_port), PATH=f"{standins}:{os.environ.get('PATH', '/usr/bin:/bin')}")
    adbd_log = (tmp_path_factory.getbasetemp() / "adbd.log").open("wb")
    adbd = subprocess.Popen([adbd_path], env=env, stdout=adbd_log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    bed = Testbed(adb_path, server_port, adbd_port, f"127.0.0.1:{adbd_port}", standins)
    try:
        started = bed.adb_cli("start-server")
        assert started.returncode == 0, started.stderr
        # `adb connect` retries until adbd listens; wait-for-device then blocks until it is online.
        connected = bed.adb_cli("connect", bed.serial)
        assert "connected" in connected.stdout, connected.stdout + connected.stderr
        waited = bed.adb_cli("-s", bed.serial, "wait-for-device", timeout=60)
        assert waited.returncode == 0, waited.stderr
        yield bed
    finally:
        bed.adb_cli("kill-server")
        adbd.send_signal(signal.SIGTERM)
        try:
            adbd.wait(timeout=10)
        except subprocess.TimeoutExpired:
            adbd.kill()
            adbd.wait()
        adbd_log.close()


@dataclass
class AppProcess:
    name: str
    pid: int
    jvm_port: int | None
    procs: list[subprocess.Popen[bytes]]


class Apps:
    """Starts "app processes" for one test and stops every one of them afterwards."""

    def __init__(self, bed: Testbed, classes: Path, java: str) -> None:
        self.bed = bed
        self.classes = classes
        self.java = java
        self.started: list[AppProcess] = []

    async def start(self, name: str, *, debuggable: bool = True, jvm: bool = True, classpath: str | None = None,
                    main_class: str = "Heartbeat", ready: bytes = b"heartbeat ready") -> AppProcess:
        """Start a process named ``name``; debuggable ones are registered on @jdwp-control.

        ``jvm=False`` starts a plain sleeper (registered but every debugger connection dropped when
        debuggable), enough for discovery and resolution tests. ``classpath``, ``main_class`` and ``ready``
        (the line its main prints once it runs) run another program than ``Heartbeat``; it must print
        little after that, as nothing reads its output.
        """
        procs: list[subprocess.Popen[bytes]] = []
        jvm_port = None
        if jvm:
            jvm_port = free_port()
            agent = f"-agentlib:jdwp=transport=dt_socket,server=y,suspend=n,address=127.0.0.1:{jvm_port}"
            proc = subprocess.Popen(
                [name, agent, "-cp", classpath or str(self.classes), main_class],
                executable=self.java,
                stdout=subprocess.PIPE,
                stdin=subprocess.DEVNULL,
            )
            procs.append(proc)
            assert proc.stdout is not None
            # The agent prints its listening line before main() runs, and main() prints ours.
            for _ in range(2):
                line = await trio.to_thread.run_sync(proc.stdout.readline, abandon_on_cancel=True)
                assert line, "the debuggee JVM exited before it was ready"
                if ready in line:
                    break
        else:
            proc = subprocess.Popen(
                [name, "-c", "import sys; sys.stdin.read()"], executable=sys.executable, stdin=subprocess.PIPE
            )
            procs.append(proc)
        app = AppProcess(name, procs[0].pid, jvm_port, procs)
        self.started.append(app)
        if debuggable:
            argv = [sys.executable, str(HERE / "jdwp_registrar.py"), str(app.pid)]
            if jvm_port is not None:
                argv.append(str(jvm_port))
            registrar = subprocess.Popen(argv, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
            procs.append(registrar)
            assert registrar.stdout is not None
            line = await trio.to_thread.run_sync(registrar.stdout.readline, abandon_on_cancel=True)
            assert line.strip() == b"registered", "the registrar could not reach @jdwp-control"
            await self.wait_visible(app.pid, True)
        return app

    async def wait_visible(self, pid: int, visible: bool) -> None:
        # adbd registers the pid asynchronously: follow track-jdwp until it shows the change.
        with trio.fail_after(20):
            tracker = await self.bed.client().open_track_jdwp(self.bed.serial)
            async with tracker:
                async for pids in tracker:
                    if (pid in pids) == visible:
                        return

    def stop(self, app: AppProcess) -> None:
        for proc in reversed(app.procs):
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
        if app in self.started:
            self.started.remove(app)

    def stop_all(self) -> None:
        for app in list(self.started):
            self.stop(app)


@pytest.fixture
def apps(testbed: Testbed, java_tools: tuple[str, str], debuggee_classes: Path) -> Iterator[Apps]:
    """Factory for app processes; every process it started is stopped after the test, pass or fail."""
    registry = Apps(testbed, debuggee_classes, java_tools[0])
    try:
        yield registry
    finally:
        registry.stop_all()
