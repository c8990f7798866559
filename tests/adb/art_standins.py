"""A stand-in ``dumpsys`` for the adb testbed, and the small Java apps the ART-fidelity tests run.

``dumpsys package NAME`` prints the package's flag lines as Android's package manager does
(``flags=[ DEBUGGABLE HAS_CODE … ]`` and ``pkgFlags=[ … ]``); a NAME listed in ``release-packages.txt``
beside it lacks DEBUGGABLE (a release build). The testbed's ``getprop`` says ``ro.debuggable=1``, so the
device stands for a userdebug build.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from adb.testbed import Testbed

_DUMPSYS = """#!/bin/sh
# Stand-in for Android's dumpsys (the package service only): prints a package's flag lines.
here="$(dirname "$0")"
if [ "$1" != package ]; then echo "Can't find service: $1"; exit 0; fi
flags="DEBUGGABLE HAS_CODE ALLOW_CLEAR_USER_DATA ALLOW_BACKUP"
if grep -qx "$2" "$here/release-packages.txt" 2>/dev/null; then flags="HAS_CODE ALLOW_CLEAR_USER_DATA ALLOW_BACKUP"; fi
echo "Packages:"
echo "  Package [$2] (5d3c1a2):"
echo "    userId=10123"
echo "    flags=[ $flags ]"
echo "    pkgFlags=[ $flags ]"
"""

# An app class in package PKG that keeps calling work(): the release-build sampling's subject.
_APP = """package {pkg};

public class Main {{
    static int work(int n) {{
        int next = n + 1;
        return next;
    }}

    public static void main(String[] args) throws Exception {{
        System.out.println("heartbeat ready");
        int n = 0;
        while (true) {{
            n = work(n);
            Thread.sleep(50);
        }}
    }}
}}
"""
WORK_LINE = 5  # `int next = n + 1;`

# The doctor's testbed app: its main thread loops over a JDK queue as an Android main thread loops over
# MessageQueue.next(); another thread posts the "messages".
_LOOP = """import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

public class MessageLoop {
    static long handled;

    static void handle(Integer message) {
        handled += message;
    }

    public static void main(String[] args) throws Exception {
        LinkedBlockingQueue<Integer> queue = new LinkedBlockingQueue<>();
        Thread sender = new Thread(() -> {
            int n = 0;
            try {
                while (true) {
                    queue.put(n++);
                    Thread.sleep(50);
                }
            } catch (InterruptedException e) {
                return;
            }
        }, "sender");
        sender.setDaemon(true);
        sender.start();
        System.out.println("heartbeat ready");
        while (true) {
            Integer message = queue.poll(1, TimeUnit.SECONDS);
            if (message != null) {
                handle(message);
            }
        }
    }
}
"""


def install_dumpsys(bed: Testbed, release_packages: tuple[str, ...] = ()) -> None:
    (bed.standins / "dumpsys").write_text(_DUMPSYS)
    (bed.standins / "dumpsys").chmod(0o755)
    existing = (bed.standins / "release-packages.txt")
    names = set(existing.read_text().split()) if existing.exists() else set()
    existing.write_text("".join(f"{n}\n" for n in sorted(names | set(release_packages))))


def compile_app(javac: str, out: Path, pkg: str, *, debug_info: bool) -> Path:
    """``pkg.Main`` compiled with ``-g`` (a debug build) or ``-g:none`` (what a release build keeps)."""
    source = out / "src" / pkg.replace(".", "/") / "Main.java"
    source.parent.mkdir(parents=True, exist_ok=True)
    source.write_text(_APP.format(pkg=pkg))
    classes = out / "classes"
    subprocess.run([javac, "-g" if debug_info else "-g:none", "-d", str(classes), str(source)], check=True,
                   timeout=120)
    return classes


def compile_message_loop(javac: str, out: Path) -> Path:
    source = out / "src" / "MessageLoop.java"
    source.parent.mkdir(parents=True, exist_ok=True)
    source.write_text(_LOOP)
    classes = out / "classes"
    subprocess.run([javac, "-g", "-d", str(classes), str(source)], check=True, timeout=120)
    return classes
