"""Real programs nobody here wrote, to debug in the live tests (docs/design.md §8): kotlinc's own compiler, Guava,
commons-lang3, Ant and kotlinx-coroutines, all from Debian's packages (``scripts/test`` installs them).

A fixture of ours proves a rule; one of these proves we got the rule right on code compiled by somebody else.
Each ``*_debuggee`` starts the real program under the JDWP agent; with ``suspend=True`` (the default) it waits
for a debugger, so a test can set its breakpoints before the first line of the program runs.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Iterator, Sequence
from pathlib import Path

from support.jvm import REPO, Debuggee
from support.live import require_tool, unavailable

JAVA_SHARE = Path("/usr/share/java")
GUAVA = JAVA_SHARE / "guava.jar"
COMMONS_LANG3 = JAVA_SHARE / "commons-lang3.jar"
ANT = JAVA_SHARE / "ant.jar"
ANT_LAUNCHER = JAVA_SHARE / "ant-launcher.jar"
COROUTINES = JAVA_SHARE / "kotlinx-coroutines-core.jar"
ATOMICFU = JAVA_SHARE / "atomicfu.jar"
KOTLIN_STDLIB = JAVA_SHARE / "kotlin-stdlib.jar"
GSON = JAVA_SHARE / "gson.jar"
#: Our program calling Debian's Gson (and Guava): fixtures/gson, compiled apart from fixtures/java.
GSON_SOURCES = REPO / "fixtures" / "gson"
GSON_MAIN = "com.example.gson.GsonMain"
JACKSON = tuple(JAVA_SHARE / f"jackson-{part}.jar" for part in ("databind", "core", "annotations"))
#: Our program calling Debian's Jackson: fixtures/jackson, compiled apart from fixtures/java.
JACKSON_SOURCES = REPO / "fixtures" / "jackson"
JACKSON_MAIN = "com.example.jackson.JacksonMain"

# kotlinc's launcher (/usr/bin/kotlinc) runs the compiler through its preloader, which loads
# kotlin-compiler.jar in a class loader of its own: debugging it is debugging a real, big Kotlin program.
KOTLIN_PRELOADER_MAIN = "org.jetbrains.kotlin.preloading.Preloader"
KOTLIN_COMPILER_MAIN = "org.jetbrains.kotlin.cli.jvm.K2JVMCompiler"


def require_jar(path: Path) -> Path:
    """``path`` if it exists; otherwise skip (or fail in CI) naming the Debian package that ships it."""
    if not path.is_file():
        unavailable(f"{path} is missing (scripts/test installs it from Debian's packages)")
    return path


def kotlin_home() -> Path:
    """The directory whose ``lib/`` holds kotlinc's jars (Debian: /usr/share/kotlin/kotlinc)."""
    kotlinc = Path(os.path.realpath(require_tool("kotlinc")))
    home = kotlinc.parent.parent
    if not (home / "lib" / "kotlin-compiler.jar").exists():
        unavailable(f"kotlinc at {kotlinc} has no lib/kotlin-compiler.jar beside it")
    return home


def kotlinc_debuggee(sources: Sequence[Path], out_dir: Path, *, suspend: bool = True,
                     extra_args: tuple[str, ...] = ()) -> Debuggee:
    """kotlinc compiling ``sources`` into ``out_dir``, started under the JDWP agent as /usr/bin/kotlinc runs it."""
    home = kotlin_home()
    lib = home / "lib"
    return Debuggee(lib / "kotlin-preloader.jar", KOTLIN_PRELOADER_MAIN, suspend=suspend,
                    java=require_tool("java"),
                    extra_args=(f"-Dkotlin.home={home}", "-noverify", *extra_args),
                    args=("-cp", str(lib / "kotlin-compiler.jar"), KOTLIN_COMPILER_MAIN,
                          *map(str, sources), "-d", str(out_dir)))


def ant_debuggee(build_file: Path, *targets: str, suspend: bool = True) -> Debuggee:
    """Apache Ant running ``build_file`` under the JDWP agent (Ant's own launcher, as /usr/bin/ant starts it)."""
    require_jar(ANT)
    launcher = require_jar(ANT_LAUNCHER)
    return Debuggee(launcher, "org.apache.tools.ant.launch.Launcher", suspend=suspend,
                    java=require_tool("java"), extra_args=("-Dant.home=/usr/share/ant",),
                    args=("-f", str(build_file), *targets), cwd=build_file.parent)


def classpath(*entries: Path) -> str:
    """Entries joined as a ``-cp`` value, each required to exist."""
    return os.pathsep.join(str(require_jar(e)) if e.suffix == ".jar" else str(e) for e in entries)


def started(debuggee: Debuggee) -> Iterator[Debuggee]:
    """Yield a started real program and stop it afterwards (for pytest fixtures)."""
    try:
        yield debuggee
    finally:
        debuggee.stop()


def have_jdb() -> str:
    """jdb (the JDK's command-line debugger, our reference for lines and steps) or a skip."""
    jdb = shutil.which("jdb")
    if jdb is None:
        unavailable("`jdb` is not on PATH (it comes with openjdk-17-jdk-headless)")
    assert jdb is not None
    return jdb


def gson_classpath(work: Path) -> str:
    """fixtures/gson compiled (``javac -g``) against Debian's gson.jar and guava.jar into ``work``; the
    classpath that runs it."""
    return _compiled(GSON_SOURCES, work / "gson-classes", (require_jar(GSON), require_jar(GUAVA)))


def jackson_classpath(work: Path) -> str:
    """fixtures/jackson compiled (``javac -g``) against Debian's Jackson (databind, core, annotations) into
    ``work``; the classpath that runs it."""
    return _compiled(JACKSON_SOURCES, work / "jackson-classes", tuple(require_jar(jar) for jar in JACKSON))


def _compiled(sources_dir: Path, classes: Path, jars: tuple[Path, ...]) -> str:
    classes.mkdir(exist_ok=True)
    sources = sorted(str(p) for p in sources_dir.rglob("*.java"))
    subprocess.run([require_tool("javac"), "-g", "-cp", classpath(*jars), "-d", str(classes), *sources], check=True,
                   capture_output=True, text=True)
    return classpath(classes, *jars)


def gson_mark(name: str) -> int:
    """The line of fixtures/gson's GsonMain that carries ``// MARK: name``."""
    return _mark(GSON_SOURCES / "com" / "example" / "gson" / "GsonMain.java", name)


def jackson_mark(name: str) -> int:
    """The line of fixtures/jackson's JacksonMain that carries ``// MARK: name``."""
    return _mark(JACKSON_SOURCES / "com" / "example" / "jackson" / "JacksonMain.java", name)


def _mark(source: Path, name: str) -> int:
    pattern = re.compile(rf"//\s*MARK:\s*{re.escape(name)}\s*$")
    for number, line in enumerate(source.read_text(encoding="utf-8").splitlines(), start=1):
        if pattern.search(line):
            return number
    raise LookupError(f"no MARK: {name} in {source}")
