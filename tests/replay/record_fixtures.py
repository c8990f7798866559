"""Re-record the OpenJDK recordings in ``fixtures/recordings/openjdk-17/`` from a real JVM.

    python tests/replay/record_fixtures.py            # every scenario
    python tests/replay/record_fixtures.py basics     # one
    python tests/replay/record_fixtures.py engine_journey engine_two_loaders engine_kotlin   # the engine's

Each scenario in ``scenarios.py`` runs against the fixture debuggee through the recording proxy
(``jdwp.recording_proxy``); its summary goes into the recording's header as ``expected``, which the replay tests
compare against. Needs ``javac`` and ``java`` (OpenJDK 17); the Kotlin scenario needs ``kotlinc``.
"""

from __future__ import annotations

import io
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import trio

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from debugger_scenarios import DEBUGGEES, MARKS
from scenarios import SCENARIOS

import jdwp
from jdwp import recording
from jdwp.recording_proxy import serve_recording_proxy
from support.jvm import Debuggee, compile_fixtures, compile_kotlin, find_mark, kotlin_classpath

OUT_DIR = Path(__file__).resolve().parents[2] / "fixtures" / "recordings" / "openjdk-17"


def java_version() -> str:
    text = subprocess.run(["java", "-version"], capture_output=True, text=True).stderr
    return text.splitlines()[0] if text else "java"


async def record(name: str, classes: Path, kotlin_classes: Path | None = None) -> Path:
    language, main_class = DEBUGGEES.get(name, ("java", "com.example.debuggee.Main"))
    if language == "kotlin":
        assert kotlin_classes is not None
        debuggee = Debuggee(kotlin_classpath(kotlin_classes), main_class)
    else:
        debuggee = Debuggee(classes, main_class)
    try:
        debuggee.wait_for_line("^ready$", timeout=30)
        buffer = io.StringIO()

        async def control(command: str) -> None:
            # No waiting for the program's acknowledgement: the event this causes may suspend every
            # thread, the control thread included, before it prints one.
            debuggee.send(command)

        scenario = SCENARIOS[name]
        options: dict[str, Any] = {}
        if name == "breakpoint_journey":
            options["lazy_line"] = find_mark("lazy")[1]
        for option, mark in MARKS.get(name, {}).items():
            options[option] = find_mark(mark)[1]
        async with trio.open_nursery() as nursery:
            port = await nursery.start(serve_recording_proxy, "127.0.0.1", 0, "127.0.0.1", debuggee.port,
                                       buffer, {})
            with trio.fail_after(60):
                async with jdwp.open_jdwp_tcp("127.0.0.1", port) as vm:
                    summary = await scenario(vm, control, **options)
    finally:
        debuggee.stop()
    buffer.seek(0)
    rec = recording.load_text(buffer.getvalue())
    rec.header = {"vm": java_version(), "synthetic": False, "scenario": name, "options": options,
                  "note": f"recorded from the fixture debuggee by tests/replay/record_fixtures.py ({name})",
                  "expected": summary}
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    path = OUT_DIR / f"{name}.jsonl"
    with open(path, "w", encoding="utf-8") as out:
        recording.dump(rec, out)
    return path


def main(names: list[str]) -> None:
    names = names or [name for name in SCENARIOS if name != "art_session"]  # ART's is synthetic
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "java").mkdir()
        classes = compile_fixtures(Path(tmp) / "java")
        kotlin_classes = None
        if any(DEBUGGEES.get(name, ("java",))[0] == "kotlin" for name in names):
            kotlin_classes = compile_kotlin(Path(tmp) / "kotlin")
        for name in names:
            print(trio.run(record, name, classes, kotlin_classes))


if __name__ == "__main__":
    main(sys.argv[1:])
