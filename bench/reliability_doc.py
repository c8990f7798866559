"""docs/reliability.md, written by the scripts that measure it: each owns one section between markers.

    bench/fault_matrix.py -> section "faults" ("hostile_strings" with --hostile strings, "hostile_containers" with
    --hostile-containers);  bench/fuzz.py -> "fuzz";  bench/soak.py -> "soak";  bench/jdb_diff.py -> "jdb_diff"

Rerunning a script replaces its own section and keeps the others, the hand-written ones ("event_requests", "null_ids",
"art_devices": ART as devices show it) included.
"""

from __future__ import annotations

import os
import platform
import re
import subprocess
import sys
from pathlib import Path

DOC = Path(__file__).resolve().parents[1] / "docs" / "reliability.md"
ORDER = ("faults", "faults_condition", "faults_logpoint", "faults_watch", "hostile_strings", "hostile_containers",
         "fuzz", "soak", "jdb_diff", "event_requests", "null_ids", "art_devices")
HEAD = """# Reliability: fault injection, fuzzing, soak

Every number below was written by a script in `bench/`; rerun the command in a section to regenerate it
(each script replaces only its own section). The CI-sized versions are the tests in `tests/faults/`.
"""


def machine() -> str:
    """The machine and runtimes a section was measured on, as one line."""
    cpu = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        java = subprocess.run(["java", "-version"], capture_output=True, text=True, timeout=30).stderr.splitlines()
        jvm = java[1].strip() if len(java) > 1 else (java[0] if java else "")
    except (OSError, subprocess.SubprocessError):
        jvm = "no java"
    import trio

    try:
        commit = subprocess.run(["git", "-C", str(DOC.parent), "log", "-1", "--format=%h"], capture_output=True,
                                text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        commit = ""
    return (f"commit {commit or '?'}; {platform.system()} {platform.release()}, {cpu or platform.machine()}, "
            f"{os.cpu_count()} CPUs; "
            f"Python {sys.version.split()[0]}, trio {trio.__version__}; JVM: {jvm}")


def write_section(name: str, body: str) -> Path:
    if name not in ORDER:
        raise ValueError(name)
    text = DOC.read_text(encoding="utf-8") if DOC.exists() else HEAD
    sections = dict(re.findall(r"<!-- BEGIN (\w+) -->\n(.*?)<!-- END \1 -->\n", text, re.S))
    sections[name] = body.rstrip("\n") + "\n"
    out = HEAD + "".join(f"\n<!-- BEGIN {key} -->\n{sections[key]}<!-- END {key} -->\n"
                         for key in ORDER if key in sections)
    DOC.parent.mkdir(parents=True, exist_ok=True)
    DOC.write_text(out, encoding="utf-8")
    return DOC
