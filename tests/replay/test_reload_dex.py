"""The reload's dex path on the wire: dex built here by Debian's smali, sent to a scripted VM that stands in for
ART's ``RedefineClasses``.

No ART runs here. The stand-in answers ``VirtualMachine.Version`` as an app process does (``vm_name``
``Dalvik``) and takes ``VirtualMachine.RedefineClasses`` (1,18) with ART's rules for the bytes, from
art/openjdkjvmti/ti_redefine.cc: each class's bytes are a dex file (ART opens them with its dex loader, checksum
verified: else ``INVALID_CLASS_FORMAT``) that defines exactly one class (``Redefiner::ClassRedefinition::
CheckClass``: "Expected 1 class def in dex file but found %d", ``ILLEGAL_ARGUMENT``), the class being redefined
(else ``NAMES_DONT_MATCH``). It refuses any other bytes as ART would, so a class file, or a whole APK's dex, sent
as it is fails here as on a device. What a device adds (its dex verifier, the bytecode's) is not covered: see
docs/tools.md.
"""

from __future__ import annotations

import hashlib
import struct
import subprocess
import zipfile
import zlib
from pathlib import Path

import pytest
import trio
import trio.testing

import jdwp
from jdwp.debugger import Reload
from jdwp.debugger.changes.reload import BY_LISTING, reload_classes
from jdwp.debugger.classes.class_members import Member
from jdwp.debugger.classes.classfile import ClassFormatError
from jdwp.debugger.classes.dex import read_dex
from jdwp.debugger.classes.dex_members import read_dex_shape
from jdwp.debugger.classes.dex_split import one_class_dexes
from jdwp.debugger.classes.symbols import Symbols
from jdwp.debugger.requests.manager import Requests
from jdwp.debugger.requests.steps import Steps
from jdwp.protocol.commands import Empty
from jdwp.protocol.commands.vm import (
    AllClassesReply,
    CapabilitiesNewReply,
    ClassesBySignatureReply,
    ClassInfo,
    ClassRef,
    RedefineClassesOut,
    ThreadsReply,
    VersionReply,
)
from jdwp.protocol.constants import ErrorCode
from support.fakevm import ScriptedVm
from support.live import require_tool

ART_VERSION = VersionReply("Android Runtime 2.1.0", 1, 8, "2.1.0", "Dalvik")
LOADED = {"Lcom/example/reload/Hello;": 0x51, "Lcom/example/reload/Again;": 0x52}

_HELLO = """.class public Lcom/example/reload/{name};
.super Ljava/lang/Object;
.source "{name}.java"

.method public static greet()I
    .registers 1
    const/4 v0, {value}
    return v0
.end method
"""


def _assemble(out: Path, *classes: tuple[str, int]) -> Path:
    sources = []
    for name, value in classes:
        source = out.parent / f"{out.stem}-{name}.smali"
        source.write_text(_HELLO.format(name=name, value=value), encoding="utf-8")
        sources.append(str(source))
    subprocess.run([require_tool("smali"), "a", "-o", str(out), *sources], check=True, capture_output=True, text=True)
    return out


def _art_redefine(out: RedefineClassesOut, received: list[tuple[int, str]]) -> object:
    """ART's checks on each class's bytes, in order; the first refusal fails the whole command."""
    for definition in out.classes:
        data = definition.classfile
        if data[:4] != b"dex\n":
            return ErrorCode.INVALID_CLASS_FORMAT
        checksum = struct.unpack_from("<I", data, 8)[0]
        if checksum != zlib.adler32(data[12:]) or data[12:32] != hashlib.sha1(data[32:]).digest():
            return ErrorCode.INVALID_CLASS_FORMAT
        classes = read_dex(data)
        if len(classes) != 1:
            return ErrorCode.ILLEGAL_ARGUMENT
        if LOADED.get(classes[0].signature) != definition.ref_type:
            return ErrorCode.NAMES_DONT_MATCH
        received.append((definition.ref_type, classes[0].signature))
    return Empty()


def _stand_in(end: trio.abc.Stream, received: list[tuple[int, str]]) -> ScriptedVm:
    capabilities = CapabilitiesNewReply(*([False] * 7), True, *([False] * 13), [False] * 11)
    return ScriptedVm(end, {
        "VirtualMachine.Version": lambda out: ART_VERSION,
        "VirtualMachine.CapabilitiesNew": lambda out: capabilities,
        "VirtualMachine.ClassesBySignature": lambda out: ClassesBySignatureReply(
            [ClassRef(1, LOADED[out.signature], 7)] if out.signature in LOADED else []),
        "VirtualMachine.AllClasses": lambda out: AllClassesReply(
            [ClassInfo(1, type_id, signature, 7) for signature, type_id in LOADED.items()]
            + [ClassInfo(1, 0x90, "Ljava/lang/Object;", 7)]),
        "VirtualMachine.AllThreads": lambda out: ThreadsReply([]),
        "VirtualMachine.Suspend": lambda out: Empty(),
        "VirtualMachine.Resume": lambda out: Empty(),
        "VirtualMachine.RedefineClasses": lambda out: _art_redefine(out, received),
    })


async def _reload(paths: list[str]) -> tuple[Reload, list[tuple[int, str]], ScriptedVm]:
    client_end, vm_end = trio.testing.memory_stream_pair()
    received: list[tuple[int, str]] = []
    fake = _stand_in(vm_end, received)
    with trio.fail_after(20):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(fake.serve)
            async with jdwp.open_jdwp(client_end) as vm:
                symbols = Symbols(vm)
                done = await reload_classes(vm, symbols, Requests(vm, symbols, Steps(vm, symbols)), paths)
            nursery.cancel_scope.cancel()
    return done, received, fake


@pytest.fixture(scope="module")
def dexes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("dex")
    merged = _assemble(out / "classes.dex", ("Hello", 7), ("Again", 5), ("NotLoaded", 3))
    apk = out / "app.apk"
    with zipfile.ZipFile(apk, "w") as archive:
        archive.write(merged, "classes.dex")
        archive.writestr("AndroidManifest.xml", b"\x03\x00\x08\x00")
    archive_dir = out / "project_dex_archive" / "com" / "example" / "reload"
    archive_dir.mkdir(parents=True)
    _assemble(archive_dir / "Hello.dex", ("Hello", 7))
    return {"merged": merged, "apk": apk, "archive": out / "project_dex_archive"}


async def test_a_merged_dex_is_sent_as_one_dex_per_loaded_class(dexes: dict[str, Path]) -> None:
    done, received, fake = await _reload([str(dexes["merged"])])
    assert sorted(received) == [(0x51, "Lcom/example/reload/Hello;"), (0x52, "Lcom/example/reload/Again;")]
    assert sorted(done.redefined) == ["com.example.reload.Again", "com.example.reload.Hello"]
    assert [(s.name, "not loaded" in s.reason) for s in done.skipped] == [
        ("com.example.reload.NotLoaded", True)]
    assert fake.count("VirtualMachine.RedefineClasses") == 1  # all or nothing: one command
    assert fake.count("VirtualMachine.Suspend") == fake.count("VirtualMachine.Resume") == 1


async def test_an_apk_and_a_gradle_dex_archive_directory(dexes: dict[str, Path]) -> None:
    done, received, _ = await _reload([str(dexes["apk"])])
    assert len(received) == 2 and len(done.redefined) == 2
    done, received, _ = await _reload([str(dexes["archive"])])
    assert received == [(0x51, "Lcom/example/reload/Hello;")]


async def test_an_apks_thousands_of_classes_are_found_in_one_listing(tmp_path: Path) -> None:
    many = _assemble(tmp_path / "many.dex", ("Hello", 7), ("Again", 5),
                     *((f"Filler{n}", n % 8) for n in range(BY_LISTING)))
    done, received, fake = await _reload([str(many)])
    assert sorted(received) == [(0x51, "Lcom/example/reload/Hello;"), (0x52, "Lcom/example/reload/Again;")]
    assert fake.count("VirtualMachine.AllClasses") == 1 and fake.count("VirtualMachine.ClassesBySignature") == 0
    assert len(done.skipped) == BY_LISTING


async def test_class_files_are_skipped_on_art_and_nothing_is_sent(tmp_path: Path) -> None:
    javac = require_tool("javac")
    (tmp_path / "Hello.java").write_text("package com.example.reload; public class Hello {}", encoding="utf-8")
    subprocess.run([javac, "-d", str(tmp_path / "out"), str(tmp_path / "Hello.java")], check=True)
    done, received, fake = await _reload([str(tmp_path / "out")])
    assert received == [] and fake.count("VirtualMachine.RedefineClasses") == 0
    assert "ART takes dex" in done.skipped[0].reason


def test_each_cut_dex_holds_one_class_and_keeps_its_code(dexes: dict[str, Path], tmp_path: Path) -> None:
    merged = dexes["merged"].read_bytes()
    cut = dict(one_class_dexes(merged))
    assert sorted(cut) == ["com/example/reload/Again", "com/example/reload/Hello", "com/example/reload/NotLoaded"]
    for name, data in cut.items():
        assert [info.name for info in read_dex(data)] == [name]
        assert len(data) == len(merged)  # nothing re-indexed: the same tables, one class_def
    # Another dex reader (Debian's baksmali, dexlib2) reads the cut dex: the one class, its method body intact.
    one = tmp_path / "Hello.dex"
    one.write_bytes(cut["com/example/reload/Hello"])
    subprocess.run([require_tool("baksmali"), "d", "-o", str(tmp_path / "out"), str(one)], check=True,
                   capture_output=True, text=True)
    found = sorted(p.relative_to(tmp_path / "out").as_posix() for p in (tmp_path / "out").rglob("*.smali"))
    assert found == ["com/example/reload/Hello.smali"]
    assert "const/4 v0, 0x7" in (tmp_path / "out" / found[0]).read_text(encoding="utf-8")


_SHAPED = """.class public abstract Lcom/example/reload/Shaped;
.super Ljava/lang/Thread;
.implements Ljava/lang/Runnable;
.implements Ljava/io/Serializable;

.field static count:I
.field private final name:Ljava/lang/String;

.method public constructor <init>()V
    .registers 1
    invoke-direct {p0}, Ljava/lang/Thread;-><init>()V
    return-void
.end method

.method static native now()J
.end method

.method declared-synchronized tick([ILjava/util/List;)V
    .registers 3
    return-void
.end method

.method public abstract shape()Ljava/lang/Object;
.end method
"""


def test_a_dex_class_s_declarations_read_for_a_refusal_s_message(tmp_path: Path) -> None:
    """What the message of a refused dex reload compares with the loaded class, in a class file's spelling and
    with the modifiers ART reports (``declared-synchronized`` is ``synchronized``; no dex-only bits)."""
    source = tmp_path / "Shaped.smali"
    source.write_text(_SHAPED, encoding="utf-8")
    subprocess.run([require_tool("smali"), "a", "-o", str(tmp_path / "shaped.dex"), str(source)], check=True,
                   capture_output=True, text=True)
    shape = read_dex_shape((tmp_path / "shaped.dex").read_bytes(), 0)
    assert (shape.name, shape.access, shape.superclass) == ("com/example/reload/Shaped", 0x0401, "java/lang/Thread")
    assert shape.interfaces == ("java/lang/Runnable", "java/io/Serializable")
    assert shape.fields == (Member("count", "I", 0x0008), Member("name", "Ljava/lang/String;", 0x0012))
    assert shape.methods == (Member("<init>", "()V", 0x0001), Member("now", "()J", 0x0108),  # direct, then virtual
                             Member("shape", "()Ljava/lang/Object;", 0x0401),
                             Member("tick", "([ILjava/util/List;)V", 0x0020))
    with pytest.raises(ClassFormatError):
        read_dex_shape((tmp_path / "shaped.dex").read_bytes(), 1)
