"""A real web app under load for the live tests and the benchmark: ``fixtures/jetty`` (our handler on Debian's
Jetty 9 and servlet API, about 200 pool threads) started under the JDWP agent on 127.0.0.1, and a bounded load
generator of Python client threads.

The load is bounded three ways: at most :data:`MAX_CLIENTS` client threads, a total request count and a
deadline; each request has its own socket timeout, so a frozen app shows as failed requests, never a hang.
Synchronisation is by what the app prints ("listening PORT", "ready") and by completed requests, never by
sleeping.
"""

from __future__ import annotations

import http.client
import os
import re
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from support.jvm import REPO, Debuggee
from support.live import require_tool, unavailable

JETTY_SOURCES = REPO / "fixtures" / "jetty"
JETTY_MAIN = "com.example.jetty.JettyApp"
JETTY_HANDLER = JETTY_MAIN
JAVA_SHARE = Path("/usr/share/java")
# Debian's libjetty9-java (the server and the jars it needs) and libservlet-api-java.
JETTY_JARS = tuple(JAVA_SHARE / f"{name}.jar"
                   for name in ("jetty9-server", "jetty9-http", "jetty9-io", "jetty9-util", "servlet-api"))
MAX_CLIENTS = 50
LISTENING_APP = re.compile(r"^listening (\d+)$")


def jetty_jars() -> tuple[Path, ...]:
    """Debian's Jetty 9 and servlet API jars, or a skip (a failure in CI) naming the packages."""
    missing = [str(jar) for jar in JETTY_JARS if not jar.is_file()]
    if missing:
        unavailable(f"{', '.join(missing)} missing (libjetty9-java and libservlet-api-java; scripts/test "
                    "installs them)")
    return JETTY_JARS


def compile_jetty(out_dir: Path) -> Path:
    """Compile ``fixtures/jetty`` with ``javac -g`` against Debian's Jetty jars into ``out_dir``."""
    sources = sorted(str(p) for p in JETTY_SOURCES.rglob("*.java"))
    subprocess.run([require_tool("javac"), "-g", "-encoding", "UTF-8", "-cp", jetty_classpath(),
                    "-d", str(out_dir), *sources], check=True, capture_output=True, text=True)
    return out_dir


def jetty_classpath(classes: Path | None = None) -> str:
    """The Jetty jars, after ``classes`` when given."""
    entries = [str(jar) for jar in jetty_jars()]
    return os.pathsep.join(([str(classes)] if classes is not None else []) + entries)


def find_jetty_mark(name: str) -> tuple[str, int]:
    """The source file name and 1-based line of the Jetty fixture's line marked ``// MARK: name``."""
    pattern = re.compile(rf"//\s*MARK:\s*{re.escape(name)}\s*$")
    for path in sorted(JETTY_SOURCES.rglob("*.java")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if pattern.search(line):
                return path.name, number
    raise LookupError(f"no line marked {name!r} in {JETTY_SOURCES}")


class JettyApp:
    """The Jetty fixture running under the JDWP agent: ``debuggee`` (its JDWP port) and ``http_port``."""

    def __init__(self, classes: Path, *, suspend: bool = False, agent: bool = True) -> None:
        java = require_tool("java")
        if agent:
            self.debuggee = Debuggee(jetty_classpath(classes), JETTY_MAIN, suspend=suspend, java=java)
        else:
            self.debuggee = _PlainJava(jetty_classpath(classes), JETTY_MAIN, java=java)
        self.http_port = 0
        if not suspend:
            self.wait_serving()

    @property
    def jdwp_port(self) -> int:
        return self.debuggee.port

    def wait_serving(self, timeout: float = 60.0) -> int:
        """Wait until the app serves (it printed its HTTP port and "ready"); return the HTTP port."""
        match = self.debuggee.wait_for_line(LISTENING_APP, timeout=timeout)
        self.debuggee.wait_for_line("^ready$", timeout=timeout)
        self.http_port = int(match.group(1))
        return self.http_port

    def stop(self) -> None:
        self.debuggee.stop()


class _PlainJava(Debuggee):
    """The same program without the JDWP agent (the benchmark's baseline): no "Listening" line to wait for."""

    def __init__(self, classpath: str, main_class: str, *, java: str) -> None:
        # Debuggee's reader and waits, without its agent (so no Listening line and no JDWP port).
        self.argv = [java, "-Xss4m", "-cp", classpath, main_class]
        self.lines: list[str] = []
        self._cond = threading.Condition()
        self.process = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT, text=True, encoding="utf-8",
                                        errors="replace",
                                        env={k: v for k, v in os.environ.items() if k != "JAVA_TOOL_OPTIONS"})
        self._reader = threading.Thread(target=self._read, name="jetty-stdout", daemon=True)
        self._reader.start()
        self.port = 0


def jetty_apps(classes: Path, **options: bool) -> Iterator[JettyApp]:
    """Yield a started Jetty app and stop it afterwards (for pytest fixtures)."""
    app = JettyApp(classes, **options)
    try:
        yield app
    finally:
        app.stop()


@dataclass
class LoadReport:
    """What a bounded load run saw: completed and failed requests, each completed request's latency."""

    completed: int = 0
    failed: int = 0
    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    elapsed: float = 0.0

    @property
    def throughput(self) -> float:
        """Completed requests per second of the run."""
        return self.completed / self.elapsed if self.elapsed > 0 else 0.0

    def percentile(self, fraction: float) -> float:
        """The latency (seconds) under which ``fraction`` of the completed requests finished (0 when none)."""
        if not self.latencies:
            return 0.0
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


class Load:
    """Bounded HTTP load on the app: ``clients`` threads share ``requests`` GETs until ``duration`` ends.

    Each client keeps one connection (reopened after a failure); a request slower than ``request_timeout``
    fails. :meth:`wait_completed` waits for a number of completed requests; :meth:`wait` for the end.
    """

    def __init__(self, port: int, *, clients: int = 40, requests: int = 2000, duration: float = 60.0,
                 request_timeout: float = 30.0, path: str = "/hello") -> None:
        if not 1 <= clients <= MAX_CLIENTS:
            raise ValueError(f"clients must be 1..{MAX_CLIENTS}, not {clients}")
        self.port = port
        self.clients = clients
        self.requests = requests
        self.duration = duration
        self.request_timeout = request_timeout
        self.path = path
        self.report = LoadReport()
        self._issued = 0
        self._cond = threading.Condition()
        self._stopping = False
        self._threads: list[threading.Thread] = []
        self._started = 0.0

    def start(self) -> Load:
        self._started = time.monotonic()
        self._threads = [threading.Thread(target=self._client, name=f"load-{n}", daemon=True)
                         for n in range(self.clients)]
        for thread in self._threads:
            thread.start()
        return self

    def _take(self) -> bool:
        with self._cond:
            if self._stopping or self._issued >= self.requests:
                return False
            if time.monotonic() - self._started >= self.duration:
                return False
            self._issued += 1
            return True

    def _client(self) -> None:
        connection: http.client.HTTPConnection | None = None
        try:
            while self._take():
                if connection is None:
                    connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=self.request_timeout)
                began = time.monotonic()
                try:
                    connection.request("GET", self.path)
                    response = connection.getresponse()
                    response.read()
                    ok = response.status == 200
                    error = "" if ok else f"HTTP {response.status}"
                except (OSError, http.client.HTTPException) as exc:
                    ok, error = False, f"{type(exc).__name__}: {exc}"
                    connection.close()
                    connection = None
                self._record(ok, time.monotonic() - began, error)
        finally:
            if connection is not None:
                connection.close()

    def _record(self, ok: bool, latency: float, error: str) -> None:
        with self._cond:
            if ok:
                self.report.completed += 1
                self.report.latencies.append(latency)
            else:
                self.report.failed += 1
                if len(self.report.errors) < 10:
                    self.report.errors.append(error)
            self._cond.notify_all()

    def wait_completed(self, count: int, timeout: float = 60.0) -> int:
        """Wait until ``count`` requests have completed in all; return how many have.

        Raises:
            TimeoutError: fewer in time, or the load ended first.
        """
        deadline = time.monotonic() + timeout
        with self._cond:
            while self.report.completed < count:
                remaining = deadline - time.monotonic()
                finished = all(not t.is_alive() for t in self._threads)
                if remaining <= 0 or finished:
                    raise TimeoutError(f"{self.report.completed} of {count} requests completed "
                                       f"({self.report.failed} failed: {self.report.errors[:3]})")
                self._cond.wait(min(remaining, 0.5))
            return self.report.completed

    def wait(self, timeout: float | None = None) -> LoadReport:
        """Wait for every client to finish (the count or the duration is reached); return the report."""
        limit = self.duration + self.request_timeout + 10 if timeout is None else timeout
        deadline = time.monotonic() + limit
        for thread in self._threads:
            thread.join(max(0.0, deadline - time.monotonic()))
        if any(t.is_alive() for t in self._threads):
            raise TimeoutError(f"load clients still running after {limit:.0f} s")
        with self._cond:
            self.report.elapsed = time.monotonic() - self._started
            return self.report

    def stop(self) -> LoadReport:
        """Issue no more requests; wait for those in flight and return the report."""
        with self._cond:
            self._stopping = True
        return self.wait()


def run_load(port: int, *, clients: int = 40, requests: int = 2000, duration: float = 60.0,
             request_timeout: float = 30.0) -> LoadReport:
    """One bounded load run to its end (see :class:`Load`)."""
    return Load(port, clients=clients, requests=requests, duration=duration,
                request_timeout=request_timeout).start().wait()
