"""The host-side readers of ``@DebugMetadata`` (docs/design.md §3.11): class files kotlinc wrote for the coroutine
fixture, and dex files Debian's smali assembled from ``fixtures/smali`` (the same class as d8 would put it
into an APK, Kotlin 2.2's v2 with ``nl``, and one R8 renamed).

Cut or corrupted bytes only ever raise ``ClassFormatError``.
"""

from __future__ import annotations

import subprocess
import zipfile
from pathlib import Path

import pytest

from jdwp.debugger.classes.class_path import ClassPath
from jdwp.debugger.classes.classfile import Annotation, ClassFormatError, read_class
from jdwp.debugger.classes.debug_metadata import DEBUG_METADATA, DebugMetadata, debug_metadata_of, masked_label
from jdwp.debugger.classes.dex import read_dex
from support.jvm import REPO, find_mark
from support.live import require_tool

PACKAGE = "com/example/ktcoroutines"
SMALI = REPO / "fixtures" / "smali"
LEAF = DebugMetadata(1, "Coroutines.kt", (find_mark("ktc-leaf")[1] - 2,), ("seed", "doubled", "secret"),
                     ("I$0", "I$1", "L$0"), (0, 0, 0), "leaf", "com.example.ktcoroutines.CoroutinesKt")


@pytest.fixture(scope="module")
def dex_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    smali = require_tool("smali")
    out = tmp_path_factory.mktemp("dex") / "classes.dex"
    subprocess.run([smali, "a", "-o", str(out), *sorted(str(p) for p in SMALI.glob("*.smali"))], check=True,
                   capture_output=True, text=True)
    return out


def _class_bytes(kotlin_classes: Path, name: str) -> bytes:
    return (kotlin_classes / PACKAGE / f"{name}.class").read_bytes()


def test_kotlinc_class_file(kotlin_classes: Path) -> None:
    info = read_class(_class_bytes(kotlin_classes, "CoroutinesKt$leaf$1"))
    assert info.signature == f"L{PACKAGE}/CoroutinesKt$leaf$1;"
    assert [a.type for a in info.annotations] == ["Lkotlin/Metadata;", DEBUG_METADATA]
    metadata = debug_metadata_of(info.annotations)
    assert metadata == LEAF  # kotlinc 1.3 leaves out v (its default, 1) and nl
    assert metadata.line(1) == LEAF.line_numbers[0] and metadata.line(0) is None and metadata.line(2) is None
    assert metadata.spilled_at(1) == [("I$0", "seed"), ("I$1", "doubled"), ("L$0", "secret")]
    assert metadata.spilled_at(0) == [] and metadata.next_line(1) is None


def test_suspend_lambda_spills_per_point(kotlin_classes: Path) -> None:
    loop = debug_metadata_of(read_class(_class_bytes(kotlin_classes, "CoroutinesKt$kotlinxLoop$1")).annotations)
    assert loop is not None and loop.method_name == "invokeSuspend" and len(loop.line_numbers) == 3
    for label in (1, 2, 3):
        assert [name for _, name in loop.spilled_at(label)] == ["round", "job", "deferred"]
    context = debug_metadata_of(read_class(_class_bytes(kotlin_classes, "CoroutinesKt$viaContext$inside$1"))
                                .annotations)
    assert context is not None and context.spilled_at(1) == []  # `before` is captured, not spilled


def test_class_without_metadata(kotlin_classes: Path) -> None:
    assert debug_metadata_of(read_class(_class_bytes(kotlin_classes, "Secret")).annotations) is None


def test_dex_matches_the_class_file(kotlin_classes: Path, dex_file: Path) -> None:
    classes = {info.name: info for info in read_dex(dex_file.read_bytes())}
    leaf = classes[f"{PACKAGE}/CoroutinesKt$leaf$1"]
    # only the runtime-visible annotation: the build and system ones are not what Class.getAnnotation sees
    assert [a.type for a in leaf.annotations] == [DEBUG_METADATA]
    from_class = debug_metadata_of(read_class(_class_bytes(kotlin_classes, "CoroutinesKt$leaf$1")).annotations)
    assert debug_metadata_of(leaf.annotations) == from_class == LEAF


def test_dex_version_2(dex_file: Path) -> None:
    (newer,) = [i for i in read_dex(dex_file.read_bytes()) if i.name == "com/example/newer/AppKt$load$1"]
    metadata = debug_metadata_of(newer.annotations)
    assert metadata is not None and metadata.version == 2
    assert [metadata.line(1), metadata.next_line(1), metadata.line(2), metadata.next_line(2)] == [12, 13, 14, 15]
    assert metadata.spilled_at(1) == [("I$0", "id")] and metadata.spilled_at(2) == [("L$0", "user")]
    assert metadata.next_line(3) is None


def test_dex_renamed_by_r8_and_every_value_kind(dex_file: Path) -> None:
    (renamed,) = [i for i in read_dex(dex_file.read_bytes()) if i.name == "a/b/c"]
    metadata = debug_metadata_of(renamed.annotations)  # found by its shape, its type renamed La/b/e;
    assert metadata == DebugMetadata(1, "Cart.kt", (286, 290), method_name="invokeSuspend",
                                     class_name="com.example.shop.Cart$total$1")
    values = renamed.annotations[1].values
    assert values == {"b": 127, "ch": ord("x"), "d": -2.5, "e": ("Lcom/example/Kind;", "FAST"), "empty": [],
                      "f": 1.5, "inner": Annotation("Lcom/example/Inner;", {"name": "deep"}), "j": -2,
                      "n": -(2**31), "s": -2, "t": ("Ljava/lang/String;",), "z": 1}


def test_renamed_shape_is_strict() -> None:
    assert debug_metadata_of([Annotation("La/b;", {"c": "x", "m": "y", "l": [], "q": 1})]) is None
    assert debug_metadata_of([Annotation(DEBUG_METADATA, {"v": 0})]) is None  # the stdlib ignores v < 1


def test_masked_label() -> None:
    assert masked_label(-(2**31) + 3) == 3 and masked_label(2) == 2


def test_class_path_entries(kotlin_classes: Path, dex_file: Path, tmp_path: Path) -> None:
    jar = tmp_path / "app.jar"
    with zipfile.ZipFile(jar, "w") as archive:
        archive.write(kotlin_classes / PACKAGE / "CoroutinesKt$leaf$1.class", f"{PACKAGE}/CoroutinesKt$leaf$1.class")
    apk = tmp_path / "app.apk"
    with zipfile.ZipFile(apk, "w") as archive:
        archive.write(dex_file, "classes2.dex")
    broken = tmp_path / "broken.dex"
    broken.write_bytes(dex_file.read_bytes()[:200])
    leaf = f"L{PACKAGE}/CoroutinesKt$leaf$1;"
    for entries in [(kotlin_classes,), (jar,), (apk,), (dex_file,)]:
        path = ClassPath(entries)
        path.load()
        assert path.lookup(leaf) == LEAF and not path.problems, entries
    both = ClassPath((apk, broken, tmp_path / "missing.jar", tmp_path / "notes.txt"))
    both.load()
    assert both.lookup("La/b/c;") is not None and both.lookup("Lnothing;") is None
    assert len(both.problems) == 3 and "broken.dex" in both.problems[0]


def test_cut_bytes_raise_class_format_error(kotlin_classes: Path, dex_file: Path) -> None:
    samples = [(read_class, _class_bytes(kotlin_classes, "CoroutinesKt$kotlinxLoop$1")),
               (read_dex, dex_file.read_bytes())]
    for reader, data in samples:
        for cut in range(0, len(data), max(1, len(data) // 300)):
            try:
                reader(data[:cut])  # type: ignore[operator]
            except ClassFormatError:
                pass
        corrupted = bytearray(data)
        for at in range(8, len(corrupted), 97):
            corrupted[at] ^= 0xFF
            try:
                reader(bytes(corrupted))  # type: ignore[operator]
            except ClassFormatError:
                pass
    with pytest.raises(ClassFormatError):
        read_class(b"\xca\xfe\xba\xbe")
    with pytest.raises(ClassFormatError):
        read_dex(b"dex\n035\x00" + bytes(10))
