"""Setting values (locals, fields, statics, array elements) against a real OpenJDK 17 debuggee
(``fixtures/java/.../Watched.java``, command ``mutate``, which prints its locals after the marked line)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
import trio

import jdwp
from jdwp.debugger import Debugger, InvalidArgument, Unsupported, open_debugger
from support.engines import printed
from support.jvm import Debuggee, find_mark
from support.stops import next_stop

WATCHED = "com.example.debuggee.Watched"


@asynccontextmanager
async def engine(debuggee: Debuggee, *, mutation: bool = True) -> AsyncIterator[Debugger]:
    async with jdwp.open_jdwp_tcp("127.0.0.1", debuggee.port) as vm, open_debugger(vm) as debugger:
        debugger.allow_mutation = mutation
        yield debugger


async def stopped_in_mutate(debugger: Debugger, watched: Debuggee) -> tuple[str, str, dict[str, str]]:
    await debugger.set_breakpoint(WATCHED, find_mark("mutate-here")[1])
    watched.send("mutate")
    stop = await next_stop(debugger)
    frame = (await debugger.stack(stop.stop_id, stop.thread_id)).frames[0].frame_id
    found = await debugger.locals(stop.stop_id, frame)
    return stop.stop_id, frame, {local.name: local.object_id for local in found.locals if local.object_id}


async def test_set_each_kind_of_value(watched: Debuggee) -> None:
    with trio.fail_after(60):
        async with engine(watched) as debugger:
            stop, frame, objects = await stopped_in_mutate(debugger, watched)
            for name, text, shown in [("count", "100", "100"), ("total", "-1L", "-1"), ("letter", "'z'", "z"),
                                      ("flag", "true", "true"), ("ratio", "2.5f", "2.5"), ("small", "-128", "-128"),
                                      ("total", "9007199254740993L", "9007199254740993"), ("text", '"after"', "after")]:
                summary = await debugger.set_value(stop, text, frame_id=frame, name=name)
                assert summary.value == shown, (name, summary)
            assert (await debugger.set_value(stop, "42", object_id=objects["box"], name="size")).value == "42"
            item = await debugger.set_value(stop, objects["text"], object_id=objects["box"], name="item")
            assert item.kind == "string" and item.value == "before"  # the string object the local held
            assert (await debugger.set_value(stop, "7", object_id=objects["numbers"], index=1)).value == "7"
            account = (await debugger.evaluate(stop, frame, "account")).object_id
            assert (await debugger.set_value(stop, "5", object_id=account, name="renames")).value == "5"  # a static
            assert (await debugger.set_value(stop, "null", frame_id=frame, name="any")).kind == "null"
            locals_now = {lv.name: lv.value for lv in (await debugger.locals(stop, frame)).locals}
            assert locals_now["count"] == "100" and locals_now["text"] == "after"
            await debugger.resume(stop)
            line = await printed(watched, "^mutated ")
            assert line == ("mutated count=100 total=9007199254740993 letter=z flag=true ratio=2.5 small=-128 "
                            "text=after numbers1=7 size=42 item=before any=false renames=5")


async def test_refusals_change_nothing(watched: Debuggee) -> None:
    with trio.fail_after(60):
        async with engine(watched) as debugger:
            stop, frame, objects = await stopped_in_mutate(debugger, watched)
            for name, text, why in [("small", "300", "out of range"), ("count", "2147483648L", "out of range"),
                                    ("count", "2.5", "not an integer"), ("flag", "1", "true or false"),
                                    ("count", "true", "cannot be stored"), ("text", "5", "no boxing"),
                                    ("count", objects["box"], "no unboxing"), ("count", "count + 1", "expression"),
                                    ("text", objects["box"], "cannot be stored"), ("nosuch", "1", "not a live local"),
                                    ("count", "9007199254740993", "int literal is out of range"),
                                    ("ratio", "1e39", None)]:
                if why is None:  # a double local takes what a float could not
                    await debugger.set_value(stop, text, frame_id=frame, name=name)
                    continue
                with pytest.raises(InvalidArgument, match=why):
                    await debugger.set_value(stop, text, frame_id=frame, name=name)
            with pytest.raises(InvalidArgument, match="out of range"):
                await debugger.set_value(stop, "1", object_id=objects["numbers"], index=3)
            with pytest.raises(InvalidArgument, match="is an array"):
                await debugger.set_value(stop, "1", object_id=objects["numbers"], name="length")
            locals_now = {lv.name: lv.value for lv in (await debugger.locals(stop, frame)).locals}
            assert (locals_now["small"], locals_now["count"], locals_now["text"]) == ("3", "1", "before")
            await debugger.resume(stop)
            assert (await printed(watched, "^mutated ")).startswith("mutated count=1 total=2 ")


async def test_without_mutation_nothing_is_set(watched: Debuggee) -> None:
    with trio.fail_after(60):
        async with engine(watched, mutation=False) as debugger:
            stop, frame, _ = await stopped_in_mutate(debugger, watched)
            with pytest.raises(Unsupported, match="allow_mutation"):
                await debugger.set_value(stop, "100", frame_id=frame, name="count")
            await debugger.resume(stop)
            assert (await printed(watched, "^mutated ")).startswith("mutated count=1 ")
