"""Changing the running program on a real OpenJDK 17: reload classes, restart a frame, force a return.

``support.reloads``' app is compiled here by javac in versions (the JDK is for the tests only): ``v2`` changes
method bodies, ``v3`` adds a field and a method. A reload while the app runs changes what ``main`` prints next,
lists the worker's frame that still runs the old ``work()``, keeps line breakpoints (re-bound; a line without
code now is ``rejected``) and leaves no thread suspended. A schema change is refused with the class and the
change named, and the app runs its old code. A restart pops ``work()`` and stops at the first line of its new
code; a forced return makes ``answer()`` return 42. Nothing of it works without ``allow_mutation``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from functools import partial
from pathlib import Path

import pytest
import trio

import jdwp
from jdwp.debugger import Debugger, InvalidArgument, Unsupported, open_debugger, suspended_threads
from support.jvm import Debuggee, debuggees
from support.live import require_tool
from support.reloads import INFLATION, MAIN, compile_version, line_of
from support.stops import next_stop

pytestmark = pytest.mark.live

WORK = line_of("static void work() throws InterruptedException {")
WORK_FIRST, WORK_LOOP = WORK + 1, WORK + 3
BASE, RET = line_of("int base = n * 2;"), line_of("return base / 2;")
ANSWER = line_of("return 1;")
REFLECTED = line_of("static void reflected() {") + 1
PRINT = line_of('if (n % 50 == 0) System.out.println("value " + v);')
OLD_VALUE, NEW_VALUE = r"^value \d*[05]0$", r"^value \d*[05]7$"


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Debuggee]:
    classes = compile_version(tmp_path / "v1", "v1")
    yield from debuggees(classes, MAIN, java=require_tool("java"), extra_args=(INFLATION,))


@asynccontextmanager
async def session(app: Debuggee, *, allow: bool = True) -> AsyncIterator[Debugger]:
    async with jdwp.open_jdwp_tcp("127.0.0.1", app.port) as vm, open_debugger(vm) as debugger:
        debugger.allow_mutation = allow
        yield debugger


async def printed(app: Debuggee, pattern: str, after: int) -> None:
    await trio.to_thread.run_sync(partial(app.wait_for_line, pattern, after=after, timeout=20))


async def test_a_reload_while_running_changes_bodies_keeps_breakpoints_and_suspends_nothing(
        app: Debuggee, tmp_path: Path) -> None:
    with trio.fail_after(90):
        v2 = compile_version(tmp_path / "v2", "v2")
        async with session(app) as debugger:
            await printed(app, OLD_VALUE, 0)
            kept = await debugger.set_breakpoint(MAIN, RET)
            gone = await debugger.set_breakpoint(MAIN, BASE)
            assert kept.status == gone.status == "verified"
            # Disabled while the app runs on (each would stop main); re-bound all the same when enabled.
            await debugger.update_breakpoint(kept.breakpoint_id, enabled=False)
            await debugger.update_breakpoint(gone.breakpoint_id, enabled=False)
            await debugger.update_breakpoint(kept.breakpoint_id, enabled=True)
            await debugger.update_breakpoint(gone.breakpoint_id, enabled=True)
            await next_stop(debugger)  # main at one of them: reload while it is stopped there
            stop = debugger.current_stop
            assert stop is not None
            await debugger.remove_breakpoint(gone.breakpoint_id)
            gone = await debugger.set_breakpoint(MAIN, BASE)
            reload = await debugger.redefine_classes([str(v2)])
            assert reload.redefined == (MAIN,)
            assert not reload.skipped
            old = {(frame.thread, frame.method) for frame in reload.old_frames}
            assert ("worker", "reload.App.work") in old  # work() never returns: its frame runs the old body
            assert reload.note is not None and "restart" in reload.note
            states = {bp.breakpoint_id: bp for bp in reload.breakpoints}
            assert states[kept.breakpoint_id].status == "verified"
            assert states[gone.breakpoint_id].status == "rejected"
            assert f"no code at line {BASE}" in (states[gone.breakpoint_id].reason.message or "")
            await debugger.remove_breakpoint(gone.breakpoint_id)
            await debugger.resume(stop.stop_id)
            hit = await next_stop(debugger)  # the kept breakpoint, in the new code
            assert hit.location is not None and hit.location.line == RET and hit.reasons == ("breakpoint",)
            await debugger.remove_breakpoint(kept.breakpoint_id)
            since = len(app.lines)
            await debugger.resume(hit.stop_id)
            await printed(app, NEW_VALUE, since)
            # Running, no stop: a reload holds the VM only while it reads stacks, and lets it go.
            again = await debugger.redefine_classes([str(v2 / "reload" / "App.class")])
            assert again.redefined == (MAIN,)
            assert await suspended_threads(debugger.vm) == 0
            since = len(app.lines)
            await printed(app, NEW_VALUE, since)


async def test_a_schema_change_is_refused_naming_the_change_and_the_app_runs_its_old_code(
        app: Debuggee, tmp_path: Path) -> None:
    with trio.fail_after(90):
        v3 = compile_version(tmp_path / "v3", "v3")
        async with session(app) as debugger:
            with pytest.raises(Unsupported) as refused:
                await debugger.redefine_classes([str(v3)])
            message = str(refused.value)
            assert "reload.App" in message and "adds field `int extra`" in message
            assert "adds method `int more()`" in message and "nothing was redefined" in message
            assert "_NOT_IMPLEMENTED" in message
            assert await suspended_threads(debugger.vm) == 0
            await printed(app, OLD_VALUE, len(app.lines))


async def test_bad_input_is_a_clear_error_or_a_listed_skip(app: Debuggee, tmp_path: Path) -> None:
    with trio.fail_after(90):
        v2 = compile_version(tmp_path / "v2", "v2", unused=True)
        text = tmp_path / "notes.txt"
        text.write_text("not a class", encoding="utf-8")
        broken = tmp_path / "Broken.class"
        broken.write_bytes(b"\xca\xfe\xba\xbe\x00\x00")
        newer = tmp_path / "newer" / "App.class"
        newer.parent.mkdir()
        data = bytearray((v2 / "reload" / "App.class").read_bytes())
        data[6:8] = (65).to_bytes(2, "big")  # Java 21's class-file version
        newer.write_bytes(bytes(data))
        dex = tmp_path / "classes.dex"
        dex.write_bytes(b"dex\n035\x00" + bytes(0x70))
        async with session(app) as debugger:
            for paths, said in (([str(tmp_path / "missing.class")], "no such file"),
                                ([str(text)], "is not a class file, dex, jar or APK"),
                                ([str(broken)], "not a well-formed class file"), ([], "give paths")):
                with pytest.raises(InvalidArgument, match=said):
                    await debugger.redefine_classes(paths)
            reload = await debugger.redefine_classes([str(newer), str(v2 / "reload" / "Unused.class")])
            assert reload.redefined == ()
            reasons = {skip.name: skip.reason for skip in reload.skipped}
            assert "newer than this VM (Java 17) reads" in reasons[MAIN]
            assert "not loaded by the VM" in reasons["reload.Unused"]
            assert await suspended_threads(debugger.vm) == 0
            await printed(app, OLD_VALUE, len(app.lines))


async def test_nothing_changes_without_allow_mutation(app: Debuggee, tmp_path: Path) -> None:
    with trio.fail_after(60):
        v2 = compile_version(tmp_path / "v2", "v2")
        async with session(app, allow=False) as debugger:
            with pytest.raises(Unsupported, match="allow_mutation"):
                await debugger.redefine_classes([str(v2)])
            await debugger.set_breakpoint(MAIN, ANSWER)
            stop = await next_stop(debugger)
            assert stop.thread_id is not None
            with pytest.raises(Unsupported, match="allow_mutation"):
                await debugger.restart_frame(stop.stop_id, stop.thread_id)
            with pytest.raises(Unsupported, match="allow_mutation"):
                await debugger.force_return(stop.stop_id, stop.thread_id, "42")
            assert debugger.current_stop == stop  # still stopped where it was


async def test_restart_frame_runs_the_new_code_from_its_first_line(app: Debuggee, tmp_path: Path) -> None:
    with trio.fail_after(90):
        v2 = compile_version(tmp_path / "v2", "v2")
        async with session(app) as debugger:
            loop = await debugger.set_breakpoint(MAIN, WORK_LOOP)
            stop = await next_stop(debugger)
            assert stop.thread_name == "worker" and stop.thread_id is not None
            reload = await debugger.redefine_classes([str(v2)])
            assert ("worker", "reload.App.work") in {(f.thread, f.method) for f in reload.old_frames}
            assert [bp.status for bp in reload.breakpoints] == ["verified"]
            since = len(app.lines)
            await debugger.restart_frame(stop.stop_id, stop.thread_id)
            first = await next_stop(debugger)
            assert first.reasons == ("step",) and first.thread_name == "worker"
            assert first.location is not None and first.location.line == WORK_FIRST
            assert first.location.method == "work"
            await debugger.resume(first.stop_id)
            await printed(app, "^new work$", since)  # the new body's first line ran
            again = await next_stop(debugger)  # and the kept breakpoint stops in the new code
            assert again.reasons == ("breakpoint",) and again.location is not None
            assert again.location.line == WORK_LOOP
            await debugger.remove_breakpoint(loop.breakpoint_id)
            await debugger.resume(again.stop_id)
            assert await suspended_threads(debugger.vm) == 0


async def test_restart_is_refused_on_the_bottom_frame_and_under_a_native_caller(app: Debuggee) -> None:
    with trio.fail_after(90):
        async with session(app) as debugger:
            main = await debugger.set_breakpoint(MAIN, PRINT)
            stop = await next_stop(debugger)
            assert stop.thread_name == "main" and stop.thread_id is not None
            with pytest.raises(InvalidArgument, match="bottom frame"):
                await debugger.restart_frame(stop.stop_id, stop.thread_id)
            await debugger.remove_breakpoint(main.breakpoint_id)
            reflected = await debugger.set_breakpoint(MAIN, REFLECTED)
            await debugger.resume(stop.stop_id)
            stop = await next_stop(debugger)
            assert stop.thread_id is not None
            with pytest.raises(InvalidArgument, match="called from native code"):
                await debugger.restart_frame(stop.stop_id, stop.thread_id)
            assert debugger.current_stop == stop
            await debugger.remove_breakpoint(reflected.breakpoint_id)
            await debugger.resume(stop.stop_id)
            assert await suspended_threads(debugger.vm) == 0


async def test_force_return_checks_the_type_then_returns_the_value_and_steps_out(
        app: Debuggee, tmp_path: Path) -> None:
    with trio.fail_after(90):
        v2 = compile_version(tmp_path / "v2", "v2")
        async with session(app) as debugger:
            answer = await debugger.set_breakpoint(MAIN, method="answer")
            stop = await next_stop(debugger)
            # A method entry breakpoint is a breakpoint at the method's first code index: kept across a reload.
            reload = await debugger.redefine_classes([str(v2)])
            assert [(bp.breakpoint_id, bp.status) for bp in reload.breakpoints] == [(answer.breakpoint_id, "verified")]
            await debugger.resume(stop.stop_id)
            stop = await next_stop(debugger)
            assert stop.thread_id is not None and stop.location is not None and stop.location.method == "answer"
            assert stop.location.line == ANSWER
            for wrong, said in (("true", "boolean literal"), ('"x"', "string"), ("void", "returns int")):
                with pytest.raises(InvalidArgument, match=said):
                    await debugger.force_return(stop.stop_id, stop.thread_id, wrong)
            assert debugger.current_stop == stop  # nothing was changed
            await debugger.remove_breakpoint(answer.breakpoint_id)
            since = len(app.lines)
            returned, made = await debugger.force_return(stop.stop_id, stop.thread_id, "42")
            assert made == "out" and returned is not None and returned.value == "42"
            out = await next_stop(debugger)
            assert out.reasons == ("step",) and out.location is not None and out.location.method == "main"
            await debugger.resume(out.stop_id)
            await printed(app, "^forced 42$", since)
