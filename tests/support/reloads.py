"""A small Java app compiled in the test, in versions, for the reload, restart-frame and force-return tests.

``App`` (package ``reload``): a daemon ``worker`` thread stays inside ``work()`` for good; ``main`` calls
``value(n)`` and prints it every 50th call, calls ``answer()`` (printing ``forced 42`` when it returns 42) and
``reflected()`` through reflection (its caller is then native: ``-Dsun.reflect.inflationThreshold`` keeps JDK
17's native accessor). Versions differ by line, so each line keeps its number: ``v2`` changes bodies only,
``v3`` adds a field and a method (a schema change). The JDK compiles them here; the server never needs it.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from support.live import require_tool

MAIN = "reload.App"
INFLATION = "-Dsun.reflect.inflationThreshold=1000000000"

_V1 = {
    "base": "        int base = n * 2;",
    "ret": "        return base / 2;",
    "work-first": "        tick++;",
    "extra": "",
}
_V2 = {
    "base": "        // no code on this line now",
    "ret": "        return n + 7;",
    "work-first": "        System.out.println(\"new work\");",
    "extra": "",
}
_V3 = {**_V1, "extra": "    static int extra; static int more() { return extra; }"}
VERSIONS = {"v1": _V1, "v2": _V2, "v3": _V3}

_SOURCE = """package reload;

import java.lang.reflect.Method;

public class App {{
    static volatile int tick;
{extra}
    static int value(int n) {{
{base}
{ret}
    }}

    static int answer() {{
        return 1;
    }}

    static void reflected() {{
        tick++;
    }}

    static void work() throws InterruptedException {{
{work-first}
        while (true) {{
            tick++;
            Thread.sleep(5);
        }}
    }}

    public static void main(String[] args) throws Exception {{
        Thread worker = new Thread(() -> {{
            try {{
                work();
            }} catch (InterruptedException e) {{
                return;
            }}
        }}, "worker");
        worker.setDaemon(true);
        worker.start();
        Method method = App.class.getDeclaredMethod("reflected");
        System.out.println("ready");
        int n = 0;
        while (true) {{
            n++;
            int v = value(n);
            if (n % 50 == 0) System.out.println("value " + v);
            if (answer() == 42) System.out.println("forced 42");
            method.invoke(null);
            Thread.sleep(2);
        }}
    }}
}}
"""
UNUSED = "package reload;\n\npublic class Unused {\n    static int unused() {\n        return 3;\n    }\n}\n"


def source(version: str) -> str:
    return _SOURCE.format_map(VERSIONS[version])


def line_of(text: str, version: str = "v1") -> int:
    """The 1-based line of ``text`` (stripped) in ``version``'s source."""
    for number, line in enumerate(source(version).splitlines(), 1):
        if line.strip() == text:
            return number
    raise AssertionError(f"no line {text!r} in {version}")


def compile_version(out: Path, version: str, *, unused: bool = False) -> Path:
    """``App`` of ``version`` compiled with ``javac -g`` into ``out`` (and ``Unused`` when asked); returns ``out``."""
    sources = out.with_name(out.name + "-src") / "reload"
    sources.mkdir(parents=True, exist_ok=True)
    (sources / "App.java").write_text(source(version), encoding="utf-8")
    files = [str(sources / "App.java")]
    if unused:
        (sources / "Unused.java").write_text(UNUSED, encoding="utf-8")
        files.append(str(sources / "Unused.java"))
    subprocess.run([require_tool("javac"), "-g", "-d", str(out), *files], check=True, capture_output=True, text=True)
    return out
