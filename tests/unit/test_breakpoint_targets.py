"""What a breakpoint covers, from the compilers' naming rules: nested classes (javac, kotlinc, D8), Kotlin's
file classes and local-variable names, captured variables, file paths, and the hints for near misses.

The newer compilers' names (D8's ``$$ExternalSyntheticLambda0``, Kotlin 1.5+'s ``$lambda$0`` and
``$$inlined$…``) are checked here from their documented rules; Debian's kotlinc 1.3 does not write them.
"""

from __future__ import annotations

import pytest

from jdwp.debugger.classes.symbols import CodeLine
from jdwp.debugger.classes.synthetic import (
    captured_name,
    is_inline_marker,
    is_nested_in,
    kotlin_facade,
    named_after,
    outermost,
    source_name,
)
from jdwp.debugger.errors import InvalidArgument
from jdwp.debugger.names import signature_of
from jdwp.debugger.requests.targets import (
    ClassTarget,
    FileTarget,
    Listing,
    class_target,
    covers,
    directories_match,
    file_target,
    listed_candidates,
    near_miss,
    of_target,
    suffix_packages,
    watches,
)
from jdwp.protocol.commands.events import ClassMatch, SourceNameMatch

FOO = "com.x.Foo"


@pytest.mark.parametrize("name", [
    FOO, "com.x.Foo$Inner", "com.x.Foo$1", "com.x.Foo$1Local", "com.x.Foo$Inner$2", "com.x.Foo$Companion",
    "com.x.Foo$main$1", "com.x.Foo$main$lambda$0", "com.x.Foo$main$$inlined$map$1",
    "com.x.Foo$$ExternalSyntheticLambda0", "com.x.Foo$$Lambda$14",
])
def test_classes_nested_in_foo_by_every_compilers_rule(name: str) -> None:
    assert is_nested_in(name, FOO)
    assert outermost(name) == FOO


@pytest.mark.parametrize("name", ["com.x.Foobar", "com.x.FooKt", "com.y.Foo$1", "com.x.Fo", "com.x"])
def test_other_classes_are_not_nested_in_foo(name: str) -> None:
    assert not is_nested_in(name, FOO)


@pytest.mark.parametrize("name, stem, expected", [
    ("com.x.Main", "Main", True), ("com.x.Main$1", "Main", True), ("com.x.MainKt", "Main", True),
    ("com.x.MainKt$main$1", "Main", True), ("com.x.Utils__StringsKt", "Strings", True),
    ("com.x.Mainly", "Main", False), ("com.x.Helper", "Main", False), ("Main", "Main", True),
    # Kotlin capitalises the file's name for its facade: jvmArguments.kt is JvmArgumentsKt (kotlinc's own)
    ("org.jetbrains.kotlin.cli.jvm.JvmArgumentsKt", "jvmArguments", True), ("com.x.UtilKt$a$1", "util", True),
    ("com.x.Utils__StringsKt", "strings", True), ("com.x.My_fileKt", "my-file", True),
    ("com.x.jvmArgumentsKt", "jvmArguments", False), ("com.x.Util", "util", False),
])
def test_classes_named_after_a_source_file(name: str, stem: str, expected: bool) -> None:
    assert named_after(name, stem) is expected


@pytest.mark.parametrize("stem, facade", [
    ("jvmArguments", "JvmArgumentsKt"), ("App", "AppKt"), ("util", "UtilKt"), ("_Collections", "_CollectionsKt"),
    ("my-file", "My_fileKt"), ("a b+c", "A_b_cKt"), ("1st", "_1stKt"), ("2-do", "_2_doKt"), ("", "_Kt"),
    ("été", "ÉtéKt"), ("x٣", "X_Kt"),  # only ASCII digits are kept (Java's \p{Digit}); letters of any script are
    ("a.b", "A_bKt"),  # the name without its last extension: a dot inside is not an identifier character
])
def test_kotlin_names_a_files_facade_by_its_rule(stem: str, facade: str) -> None:
    assert kotlin_facade(stem) == facade


@pytest.mark.parametrize("name, shown", [
    ("value$iv", "value"), ("item$iv$iv", "item"), ("$this$map", "this@map"), ("$this$mapTo$iv$iv", "this@mapTo"),
    ("result", "result"), ("$iv", "$iv"), ("$this$", "$this$"), ("a$b", "a$b"), ("$dstr$a$b", "$dstr$a$b"),
])
def test_kotlin_locals_under_their_source_names(name: str, shown: str) -> None:
    assert source_name(name) == shown


def test_kotlin_inline_markers_are_recognised() -> None:
    assert is_inline_marker("$i$f$map") and is_inline_marker("$i$a$-map-AppKt$main$lens$1")
    assert not is_inline_marker("i") and not is_inline_marker("$this$map")


@pytest.mark.parametrize("field, name", [
    ("val$arg", "arg"), ("val$x1", "x1"), ("$base", "base"), ("$counter", "counter"),
    ("$this$apply", "this@apply"), ("this$0", None), ("$$delegatedProperties", None), ("count", None),
    ("$i$a$x", None), ("val$", None), ("$", None), ("$prices$inlined", "prices"), ("$inlined", "inlined"),
    ("$this$apply$inlined", "this@apply"),
])
def test_captured_variables_from_field_names(field: str, name: str | None) -> None:
    assert captured_name(field) == name


# --- inputs -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("text, name, directories", [
    ("Main.kt", "Main.kt", ()),
    ("app/src/main/java/com/x/Main.kt", "Main.kt", ("app", "src", "main", "java", "com", "x")),
    ("app\\src\\main\\java\\com\\x\\Main.java", "Main.java", ("app", "src", "main", "java", "com", "x")),
    ("C:\\work\\app\\Main.kt", "Main.kt", ("work", "app")),
    ("/abs/./com/x/Main.kt", "Main.kt", ("abs", "com", "x")),
])
def test_file_targets_accept_names_and_paths_with_either_separator(text: str, name: str,
                                                                   directories: tuple[str, ...]) -> None:
    target = file_target(text)
    assert (target.text, target.name, target.directories) == (text, name, directories)


@pytest.mark.parametrize("text", ["", "  ", "a/../Main.kt", "..\\Main.kt", "Main\x00.kt", "com/x/", "x" * 513])
def test_bad_files_are_invalid_arguments(text: str) -> None:
    with pytest.raises(InvalidArgument):
        file_target(text)


@pytest.mark.parametrize("text", ["", "com.x.", "com..x", "1com.x", "com/x/Foo"])
def test_bad_class_names_are_invalid_arguments(text: str) -> None:
    with pytest.raises(InvalidArgument):
        class_target(text)


# --- which code -----------------------------------------------------------------------------------------


def line(source: str | None, number: int, owner: str | None, directories: str | None = "com/x",
         inlined: bool = False) -> CodeLine:
    return CodeLine(source, number, directories, owner, inlined)


def test_a_class_target_covers_its_nested_classes_from_its_own_file_only() -> None:
    target = ClassTarget(FOO)
    assert covers(target, line("Foo.java", 7, "com.x.Foo$1"), 7, "Foo.java")
    assert not covers(target, line("Foo.java", 8, "com.x.Foo$1"), 7, "Foo.java")
    assert not covers(target, line("Other.java", 7, "com.x.Foo$1"), 7, "Foo.java")  # named alike, other file
    assert covers(target, line("Other.java", 7, "com.x.Foo$1"), 7, None)  # the outer class not seen yet
    assert not covers(target, line("Foo.java", 7, "com.x.Bar"), 7, "Foo.java")
    # Kotlin: a companion's inline function copied into another class names its holder in the map.
    assert covers(target, line("Foo.kt", 12, "com.x.Foo$Companion", inlined=True), 12, "Foo.kt")


def test_a_file_target_covers_its_file_in_a_package_the_path_ends_with() -> None:
    bare = FileTarget("Main.kt", "Main.kt")
    path = file_target("app/src/main/java/com/x/Main.kt")
    code = line("Main.kt", 3, "com.x.MainKt")
    assert of_target(bare, code) and of_target(path, code)
    assert of_target(bare, line("Main.kt", 3, "com.y.MainKt", "com/y"))
    assert not of_target(path, line("Main.kt", 3, "com.y.MainKt", "com/y"))
    assert of_target(path, line("Main.kt", 3, "MainKt", ""))  # the default package
    assert not of_target(path, line("Main.java", 3, "com.x.Main"))
    assert of_target(path, line("Main.kt", 3, None, None))  # a map without paths: the name decides


@pytest.mark.parametrize("package, expected", [
    ("com/x", True), ("x", True), ("", True), ("java/com/x", True), ("com/y", False), ("a/com/x", False),
    ("y/app/src/main/java/com/x", False),
])
def test_package_directories_must_end_the_path(package: str, expected: bool) -> None:
    assert directories_match(package, ("app", "src", "main", "java", "com", "x")) is expected


def test_candidates_from_a_listing_never_every_class() -> None:
    names = [(1, "com.x.Foo"), (2, "com.x.Foo$1"), (3, "com.x.FooKt"), (4, "com.x.Bar"), (5, "com.y.Foo"),
             (6, "gen.p1.C1"), (7, "com.x.sub.Baz"), (8, "Top"), (9, "com.x.Foo2")]
    listing = Listing((ref, signature_of(name)) for ref, name in names)
    assert listed_candidates(ClassTarget(FOO), listing) == [1, 2]
    assert listed_candidates(file_target("src/com/x/Foo.kt"), listing) == [1, 2, 3, 4, 8, 9]  # "" too
    # a bare name: the packages of the classes named after it (a file's classes share its package)
    assert listed_candidates(file_target("Foo.kt"), listing) == [1, 2, 3, 4, 5, 9]
    assert listed_candidates(file_target("Baz.kt"), listing) == [7]
    assert listed_candidates(file_target("Top.java"), listing) == [8]
    assert listed_candidates(file_target("Nothing.kt"), listing) == []
    assert suffix_packages(("a", "com", "x")) == {"", "x", "com.x", "a.com.x"}
    assert listing.under(["com.x."]) == [1, 2, 3, 4, 7, 9] and listing.outside(["com.", "gen."]) == [8]
    assert listing.has("com.x.Foo") and not listing.has("com.x.Fo") and listing.name(2) == "com.x.Foo$1"


def test_watches_for_classes_loaded_later() -> None:
    assert watches(ClassTarget(FOO), True) == [(ClassMatch(FOO),), (ClassMatch(FOO + "$*"),)]
    assert watches(file_target("src/main/java/com/x/Foo.kt"), True) == [(SourceNameMatch("Foo.kt"),)]
    patterns = [w[0].class_pattern for w in watches(file_target("src/main/java/com/x/Foo.kt"), False)]
    assert patterns == ["*.Foo", "*.FooKt", "Foo", "FooKt", "com.x.*"]
    patterns = [w[0].class_pattern for w in watches(file_target("jvmArguments.kt"), False)]
    assert patterns == ["*.jvmArguments", "*.JvmArgumentsKt", "jvmArguments", "JvmArgumentsKt"]


# --- hints ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("target, loaded, expected", [
    (ClassTarget("com.x.Main.Inner"), ["com.x.Main"], "com.x.Main$Inner"),
    (ClassTarget("com.x.Main.Inner"), [], "com.x.Main$Inner"),
    (ClassTarget("com.x.Main.java"), [], "file 'com/x/Main.java'"),
    (ClassTarget("com.x.Mian"), ["com.x.Main", "com.x.Worker"], "com.x.Main"),
    (ClassTarget("com.x.main"), ["com.y.Main"], "com.y.Main"),
    (ClassTarget("com.x.Lazy"), ["com.x.Main", "com.x.Worker"], None),
    (file_target("com.x.Main.java"), [], "com/x/Main.java"),
    (file_target("Main.class"), [], "Main.java"),
    (file_target("Main"), [], "Main.java or Main.kt"),
    (file_target("Main.kt"), ["com.x.MainKt"], None),
    (file_target("Late.kt"), ["com.x.MainKt"], None),
])
def test_near_misses_say_what_was_probably_meant(target: ClassTarget | FileTarget, loaded: list[str],
                                                 expected: str | None) -> None:
    hint = near_miss(target, loaded)
    if expected is None:
        assert hint is None
    else:
        assert hint is not None and expected in hint


@pytest.mark.parametrize("text, loaded, alike, expected", [
    # a correct spelling is never called wrong: Kotlin's facade of jvmArguments.kt is JvmArgumentsKt
    ("jvmArguments.kt", ["org.jetbrains.kotlin.cli.jvm.JvmArgumentsKt"], [], None),
    ("main.kt", ["com.x.MainKt"], [], None),
    ("jvmArguments.kt", [], ["jvmArguments.kt"], None),
    # a case-only near miss is named, from the source files of loaded code (own, or inlined through a map)
    ("Util.kt", ["com.x.AppKt"], ["util.kt"], "util.kt"),
    ("JvmArguments.kt", ["org.jetbrains.kotlin.cli.jvm.JvmArgumentsKt"], ["jvmArguments.kt"], "'jvmArguments.kt'"),
    ("util.kt", ["com.x.AppKt"], ["util.kt", "Util.kt"], None),  # both exist: the one asked for is right
    ("Late.kt", ["com.x.LateKt"], [], None),
])
def test_file_hints_name_case_only_near_misses_and_nothing_else(text: str, loaded: list[str], alike: list[str],
                                                                expected: str | None) -> None:
    hint = near_miss(file_target(text), loaded, alike)
    if expected is None:
        assert hint is None
    else:
        assert hint is not None and expected in hint and "case-sensitive" in hint


def test_a_sweep_asks_top_level_classes_their_file_and_skips_what_it_is_told() -> None:
    names = [(1, "Lcom/x/Foo;"), (2, "Lcom/x/Foo$1;"), (3, "Lcom/x/Bar$Inner;"), (4, "Ljava/lang/String;"),
             (5, "[Lcom/x/Foo;"), (6, "LTop$Companion;"), (7, "LTop;"), (8, "Lcom/x/$Proxy3;"),
             (9, "Lorg/jetbrains/kotlin/cli/jvm/JvmArgumentsKt;"), (10, "Lkotlinx/coroutines/JobKt;")]
    listing = Listing(names)
    sweep = listing.sweep(("java.",))
    assert sweep.refs == [1, 2, 3, 6, 7, 8, 9, 10]  # every package but the skipped (the platform's too); no arrays
    assert sweep.outer == {2: 1, 6: 7}  # Bar$Inner's top is not listed: it is asked itself
    assert sweep.top == [1, 3, 7, 8, 9, 10]
    assert listing.sweep().refs == [1, 2, 3, 4, 6, 7, 8, 9, 10]
