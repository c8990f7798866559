"""Real debuggee JVMs for the live tests: compile ``fixtures/java`` with ``javac -g`` (and ``fixtures/kotlin``
with ``kotlinc``), start ``java`` with the JDWP agent on a loopback port, and watch what the program prints.

Synchronisation is by what the JVM prints (the agent's "Listening for transport" line, the program's
"ready" and "heartbeat N" lines), read by a thread and waited for with a deadline — never by sleeping.
"""

from __future__ import annotations

import os
import re
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
JAVA_SOURCES = REPO / "fixtures" / "java"
KOTLIN_SOURCES = REPO / "fixtures" / "kotlin"
KOTLIN_STDLIB = Path("/usr/share/java/kotlin-stdlib.jar")  # Debian's kotlin package
# Debian's libkotlinx-coroutines-java (1.0.1) and the libkotlinx-atomicfu-java it needs at run time.
COROUTINE_JARS = (Path("/usr/share/java/kotlinx-coroutines-core.jar"), Path("/usr/share/java/atomicfu.jar"))
LISTENING = re.compile(r"Listening for transport dt_socket at address: (\d+)")


def compile_fixtures(out_dir: Path, *, debug_info: bool = True, javac: str = "javac",
                     sources_dir: Path = JAVA_SOURCES) -> Path:
    """Compile every fixture source (of ``sources_dir``) into ``out_dir``; ``debug_info`` False omits ``-g``
    (no local tables)."""
    sources = sorted(str(p) for p in sources_dir.rglob("*.java"))
    flags = ["-g"] if debug_info else ["-g:none"]
    subprocess.run([javac, *flags, "-encoding", "UTF-8", "-d", str(out_dir), *sources], check=True,
                   capture_output=True, text=True)
    return out_dir


def compile_kotlin(out_dir: Path, *, kotlinc: str = "kotlinc", sources_dir: Path = KOTLIN_SOURCES) -> Path:
    """Compile every Kotlin fixture (of ``sources_dir``) into ``out_dir`` with kotlinc (which writes the SMAPs
    of inlined code).

    Debian's kotlinc 1.3 runs on JDK 17 but warns about options of its launcher; only a failure matters.
    The coroutine fixtures compile against :data:`COROUTINE_JARS`; without them they are left out.
    """
    sources = sorted(str(p) for p in sources_dir.rglob("*.kt"))
    classpath: list[str] = []
    if all(jar.is_file() for jar in COROUTINE_JARS):
        classpath = ["-cp", os.pathsep.join(str(jar) for jar in COROUTINE_JARS)]
    else:
        sources = [s for s in sources if "import kotlinx.coroutines" not in Path(s).read_text(encoding="utf-8")]
    done = subprocess.run([kotlinc, *sources, *classpath, "-d", str(out_dir)], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"kotlinc failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return out_dir


def kotlin_classpath(classes: Path) -> str:
    """The compiled Kotlin fixtures and the Kotlin runtime they need."""
    return f"{classes}{os.pathsep}{KOTLIN_STDLIB}"


def coroutine_classpath(classes: Path) -> str:
    """The compiled Kotlin fixtures, the Kotlin runtime and kotlinx-coroutines (with atomicfu)."""
    return os.pathsep.join([kotlin_classpath(classes), *(str(jar) for jar in COROUTINE_JARS)])


def find_mark(name: str) -> tuple[str, int]:
    """The source file name and 1-based line of the line that carries ``// MARK: name`` (Java or Kotlin)."""
    pattern = re.compile(rf"//\s*MARK:\s*{re.escape(name)}\s*$")
    paths = sorted(JAVA_SOURCES.rglob("*.java")) + sorted(KOTLIN_SOURCES.rglob("*.kt"))
    for path in paths:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if pattern.search(line):
                return path.name, number
    raise LookupError(f"no line marked {name!r} in {JAVA_SOURCES} or {KOTLIN_SOURCES}")


class Debuggee:
    """A running ``java -agentlib:jdwp=…`` process and the lines it has printed so far."""

    def __init__(self, classpath: Path | str, main_class: str, *, suspend: bool = False, port: int = 0,
                 java: str = "java", extra_args: tuple[str, ...] = (), args: tuple[str, ...] = (),
                 cwd: Path | None = None) -> None:
        agent = (f"-agentlib:jdwp=transport=dt_socket,server=y,suspend={'y' if suspend else 'n'},"
                 f"address=127.0.0.1:{port}")
        self.argv = [java, agent, "-Xss4m", "-cp", str(classpath), *extra_args, main_class, *args]
        self.lines: list[str] = []
        self._cond = threading.Condition()
        self.process = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT,
                                        text=True, encoding="utf-8", errors="replace", cwd=cwd,
                                        env={k: v for k, v in os.environ.items() if k != "JAVA_TOOL_OPTIONS"})
        self._reader = threading.Thread(target=self._read, name="debuggee-stdout", daemon=True)
        self._reader.start()
        match = self.wait_for_line(LISTENING, timeout=30)
        self.port = int(match.group(1))

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            with self._cond:
                self.lines.append(line.rstrip("\n"))
                self._cond.notify_all()
        with self._cond:
            self._cond.notify_all()

    def wait_for_line(self, pattern: re.Pattern[str] | str, *, after: int = 0,
                      timeout: float = 10.0) -> re.Match[str]:
        """Wait for a printed line (from index ``after`` on) that matches; return the match.

        Raises:
            TimeoutError: no such line in time, or the process ended first (with its output).
        """
        regex = re.compile(pattern) if isinstance(pattern, str) else pattern
        deadline = time.monotonic() + timeout
        checked = after
        with self._cond:
            while True:
                for line in self.lines[checked:]:
                    match = regex.search(line)
                    if match:
                        return match
                checked = max(checked, len(self.lines))
                remaining = deadline - time.monotonic()
                if remaining <= 0 or (self.process.poll() is not None and not self._reader.is_alive()):
                    tail = "\n".join(self.lines[-20:])
                    raise TimeoutError(f"no line matching {regex.pattern!r} (exit {self.process.poll()}):\n{tail}")
                self._cond.wait(remaining)

    def send(self, command: str) -> None:
        """Send a command to the program's control thread (``load NAME``, ``isolated NAME``, ``quit``)."""
        assert self.process.stdin is not None
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()

    def heartbeats(self) -> int:
        """How many heartbeat lines the program has printed."""
        with self._cond:
            return sum(1 for line in self.lines if line.startswith("heartbeat "))

    def wait_for_more_heartbeats(self, count: int = 3, timeout: float = 10.0) -> None:
        """Wait until ``count`` heartbeats are printed after this call: proof the program runs."""
        with self._cond:
            start = len(self.lines)
        for _ in range(count):
            match = self.wait_for_line(r"^heartbeat \d+$", after=start, timeout=timeout)
            with self._cond:
                start = self.lines.index(match.string, start) + 1

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(timeout=30)
        self._reader.join(timeout=5)
        for pipe in (self.process.stdin, self.process.stdout):
            if pipe is not None:
                try:
                    pipe.close()
                except OSError:
                    pass


def debuggees(classpath: Path | str, main_class: str, *, ready: bool = True, **options: Any) -> Iterator[Debuggee]:
    """Yield a started debuggee — once it printed ``ready``, unless ``ready`` is False (``suspend=y``
    programs print it only after a debugger resumes them) — and stop it afterwards (for fixtures)."""
    debuggee = Debuggee(classpath, main_class, **options)
    try:
        if ready:
            debuggee.wait_for_line("^ready$", timeout=30)
        yield debuggee
    finally:
        debuggee.stop()
