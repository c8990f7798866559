"""Stand-ins for Android's ``am``, ``cmd package``, ``pm clear`` and ``dumpsys`` (``activity processes``,
``package NAME``).

Test helper for tests/adb, run by the small scripts :mod:`adb.launch_bed` puts on adbd's PATH:
``python android_shims.py TOOL ARGS…``. Each prints what Android prints (frameworks/base
``ActivityManagerShellCommand``, ``PackageManagerShellCommand``, ``ProcessRecord.dump``), from the tables in
the stand-ins' directory: ``apps.txt`` (``package activity launcher mode`` per line) and ``run/`` (the app
processes started, one ``<pid>.pid`` file each). ``am start -W`` blocks until the app runs (its log says
``app created``), as Android's waits for a launch a waiting app cannot finish.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _table(bin_dir: Path) -> list[tuple[str, str, bool, str]]:
    rows = []
    for line in (bin_dir / "apps.txt").read_text().splitlines():
        parts = line.split()
        if len(parts) == 4:
            rows.append((parts[0], parts[1], parts[2] == "1", parts[3]))
    return rows


def _config(bin_dir: Path) -> dict[str, str]:
    pairs = (line.split("=", 1) for line in (bin_dir / "launch.conf").read_text().splitlines() if "=" in line)
    return dict(pairs)


def _full(pkg: str, activity: str) -> str:
    return pkg + activity if activity.startswith(".") else activity


def _processes(run: Path) -> list[tuple[int, str, int, bool]]:
    """(app pid, package, stand-in pid, started as the debug app) of every started app process alive."""
    out = []
    for path in run.glob("*.pid"):
        pid = int(path.stem)
        pkg, helper, debugging = path.read_text().split()
        if Path(f"/proc/{pid}").exists():
            out.append((pid, pkg, int(helper), debugging == "1"))
        else:
            path.unlink(missing_ok=True)
    return out


def _other_apps(bin_dir: Path, known: set[int]) -> list[tuple[int, str]]:
    """Processes of installed packages that the stand-in am did not start (argv[0] is the package)."""
    listed = bin_dir / "packages.txt"
    lines = listed.read_text().splitlines() if listed.exists() else []
    installed = {line.split()[0] for line in lines if line.strip()}
    out = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit() or int(proc.name) in known:
            continue
        try:
            name = (proc / "cmdline").read_bytes().split(b"\0")[0].decode(errors="replace")
        except OSError:
            continue
        if name in installed:
            out.append((int(proc.name), name))
    return out


def _force_stop(run: Path, pkg: str) -> None:
    for pid, name, helper, _ in _processes(run):
        if name == pkg:
            for p in (helper, pid):
                try:
                    os.kill(p, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            (run / f"{pid}.pid").unlink(missing_ok=True)


def am(bin_dir: Path, args: list[str]) -> int:
    if not args or args[0] != "start":
        print(f"Unknown command: {' '.join(args)}", file=sys.stderr)
        return 1
    flags, comp = set(), ""
    rest = iter(args[1:])
    for arg in rest:
        if arg == "-n":
            comp = next(rest, "")
        else:
            flags.add(arg)
    pkg, _, activity = comp.partition("/")
    print(f"Starting: Intent {{ cmp={comp} }}")
    sys.stdout.flush()
    rows = [r for r in _table(bin_dir) if r[0] == pkg and _full(pkg, r[1]) == _full(pkg, activity)]
    if not rows:
        print("Error type 3", file=sys.stderr)
        print(f"Error: Activity class {{{pkg}/{_full(pkg, activity)}}} does not exist.", file=sys.stderr)
        return 1
    run = bin_dir / "run"
    if "-S" in flags:
        _force_stop(run, pkg)
    mode = rows[0][3]
    if mode in ("settle", "suspended"):
        mode = "suspended" if "--suspend" in flags else "settle"
    if "-D" not in flags and mode in ("settle", "suspended"):
        mode = "free"  # not started for debugging: it runs at once
    conf = _config(bin_dir)
    log = run / f"{pkg}.log"
    log.write_text("")
    subprocess.Popen([sys.executable, str(HERE / "launch_app.py"), pkg, mode, conf["CLASSES"], conf["JAVA"], str(run)],
                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                     start_new_session=True)
    if "-W" in flags:
        while "app created" not in log.read_text(errors="replace"):
            time.sleep(0.1)
        print("Status: ok")
    return 0


def cmd(bin_dir: Path, args: list[str]) -> int:
    if args[:3] != ["package", "resolve-activity", "--brief"] or len(args) != 4:
        print(f"Unknown command: {' '.join(args)}", file=sys.stderr)
        return 1
    for pkg, activity, launcher, _ in _table(bin_dir):
        if pkg == args[3] and launcher:
            print("priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=true")
            print(f"{pkg}/{activity}")
            return 0
    print("No activity found")
    return 0


def pm_clear(bin_dir: Path, args: list[str]) -> int:
    pkg = args[0] if args else ""
    if not any(row[0] == pkg for row in _table(bin_dir)):
        print("Failed")
        return 1
    _force_stop(bin_dir / "run", pkg)
    data = bin_dir / "data" / pkg
    for path in data.glob("*"):
        path.unlink()
    print("Success")
    return 0


def dumpsys(bin_dir: Path, args: list[str]) -> int:
    """One stand-in for every service the tests ask (two would overwrite each other on adbd's PATH)."""
    if args[:1] == ["package"] and len(args) == 2:
        return _dumpsys_package(bin_dir, args[1])
    if args[:2] != ["activity", "processes"]:
        print(f"Can't find service: {args[0] if args else ''}")
        return 0
    print("ACTIVITY MANAGER RUNNING PROCESSES (dumpsys activity processes)")
    started = _processes(bin_dir / "run") if (bin_dir / "run").is_dir() else []
    records = [(pid, pkg, debugging) for pid, pkg, _, debugging in started]
    records += [(pid, pkg, False) for pid, pkg in _other_apps(bin_dir, {r[0] for r in records})]
    for pid, pkg, debugging in records:
        print(f"  *APP* UID 10123 ProcessRecord{{{pid:x} {pid}:{pkg}/u0a123}}")
        print(f"    user #0 uid=10123 gids={{50123}}\n    pid={pid}")
        if debugging:
            print("    mDebugging=true")
    return 0


def _dumpsys_package(bin_dir: Path, pkg: str) -> int:
    """A package's flag lines, as the package manager prints them: DEBUGGABLE unless the package is listed in
    ``release-packages.txt`` (a release build)."""
    listed = bin_dir / "release-packages.txt"
    release = pkg in (listed.read_text().split() if listed.exists() else [])
    flags = ("" if release else "DEBUGGABLE ") + "HAS_CODE ALLOW_CLEAR_USER_DATA ALLOW_BACKUP"
    print("Packages:")
    print(f"  Package [{pkg}] (5d3c1a2):")
    print("    userId=10123")
    print(f"    flags=[ {flags} ]")
    print(f"    pkgFlags=[ {flags} ]")
    return 0


def main() -> int:
    bin_dir = Path(os.environ.get("PYJDWP_STANDINS", "")) or HERE
    tool, args = sys.argv[1], sys.argv[2:]
    return {"am": am, "cmd": cmd, "pm-clear": pm_clear, "dumpsys": dumpsys}[tool](bin_dir, args)


if __name__ == "__main__":
    sys.exit(main())
