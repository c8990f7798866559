"""The coroutine fixtures (``fixtures/coroutines``): Kotlin compiled by kotlinc against Debian's
kotlinx-coroutines 1.0.1 (``libkotlinx-coroutines-java``, with ``libkotlinx-atomicfu-java``), and run on it.

They live apart from ``fixtures/kotlin`` so that :func:`support.jvm.compile_kotlin` keeps compiling those
against the stdlib alone.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from support.jvm import KOTLIN_STDLIB, REPO
from support.real_programs import ATOMICFU, COROUTINES, require_jar

COROUTINE_SOURCES = REPO / "fixtures" / "coroutines"


def coroutine_jars() -> list[Path]:
    """kotlinx-coroutines and atomicfu (skips, or fails in CI, when Debian's packages are missing)."""
    return [require_jar(COROUTINES), require_jar(ATOMICFU)]


def compile_coroutines(out_dir: Path, *, kotlinc: str = "kotlinc") -> Path:
    """Compile every coroutine fixture into ``out_dir`` (kotlinc warns about its launcher on JDK 17; only a
    failure matters)."""
    sources = sorted(str(p) for p in COROUTINE_SOURCES.rglob("*.kt"))
    classpath = os.pathsep.join(str(jar) for jar in coroutine_jars())
    done = subprocess.run([kotlinc, *sources, "-cp", classpath, "-d", str(out_dir)], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"kotlinc failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return out_dir


def coroutines_classpath(classes: Path) -> str:
    """The compiled coroutine fixtures, the Kotlin runtime and kotlinx-coroutines."""
    return os.pathsep.join([str(classes), str(KOTLIN_STDLIB), *map(str, coroutine_jars())])


def coroutine_mark(name: str) -> int:
    """The 1-based line of the coroutine fixture line that carries ``// MARK: name``."""
    pattern = re.compile(rf"//\s*MARK:\s*{re.escape(name)}\s*$")
    for path in sorted(COROUTINE_SOURCES.rglob("*.kt")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if pattern.search(line):
                return number
    raise LookupError(f"no line marked {name!r} in {COROUTINE_SOURCES}")
