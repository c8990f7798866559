"""A stand-in ``dumpsys`` for the adb testbed, and the small Java apps the ART-fidelity tests run.

``dumpsys package NAME`` prints the package's flag lines as Android's package manager does
(``flags=[ DEBUGGABLE HAS_CODE … ]`` and ``pkgFlags=[ … ]``); a NAME listed in ``release-packages.txt``
beside it lacks DEBUGGABLE (a release build). The testbed's ``getprop`` says ``ro.debuggable=1``, so the
device stands for a userdebug build.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import trio

from adb.launch_bed import install_shim
from adb.testbed import HERE, AppProcess, Apps, Testbed

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


async def start_behind(apps: Apps, bed: Testbed, app_id: str, shim: str, *args: str, uid: int = 10400,
                       **start: Any) -> AppProcess:
    """An installed app whose JVM is registered on @jdwp-control by ``shim`` (a script beside this module, run as
    ``shim PID JVM_PORT *args``, that prints ``registered``) rather than by jdwp_registrar.py. ``start`` goes to
    :meth:`Apps.start`; the shim is the app's last process, its stdout a pipe the test may read on."""
    bed.install_package(app_id, uid)
    app = await apps.start(app_id, debuggable=False, **start)
    assert app.jvm_port is not None
    proc = subprocess.Popen([sys.executable, str(HERE / shim), str(app.pid), str(app.jvm_port), *args],
                            stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
    app.procs.append(proc)
    assert proc.stdout is not None
    line = await trio.to_thread.run_sync(proc.stdout.readline, abandon_on_cancel=True)
    assert line.strip() == b"registered"
    await apps.wait_visible(app.pid, True)
    return app


def install_dumpsys(bed: Testbed, release_packages: tuple[str, ...] = ()) -> None:
    """The testbed's one ``dumpsys`` stand-in (:mod:`adb.android_shims`, shared with the launch tests), with
    ``release_packages`` added to those it reports as release builds (not DEBUGGABLE)."""
    install_shim(bed.standins, "dumpsys", "dumpsys")
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
