"""Names compilers make up, and the source names behind them: nested classes, Kotlin's local variables,
captured variables.

Layer: ``jdwp.debugger`` (pure functions; no I/O). The rules are the compilers' documented naming schemes:

- Nested classes are ``Outer$…``: javac's ``Outer$Inner``, ``Outer$1`` (anonymous), ``Outer$1Local``;
  Kotlin's ``Outer$Companion``, ``Outer$main$1`` and ``Outer$main$lambda$0`` (lambdas compiled to classes),
  ``Outer$main$$inlined$map$1`` (an inline function's object copied into the caller); D8's lambda holders
  (:func:`lambda_holder_host`).
- Kotlin top-level code of ``foo.kt`` is its file facade ``FooKt`` (:func:`kotlin_facade`: the file's name
  capitalised, made an identifier); a multi-file facade's part is ``Facade__FooKt``. ``@file:JvmName("X")``
  names it ``X`` instead: then only the class's source file (``ReferenceType.SourceFile``) tells.
- Kotlin local variables: ``$i$f$name`` and ``$i$a$-…`` mark where an inline function or lambda was
  inlined (no value a user wrote); ``x$iv`` is ``x`` of an inlined body (one ``$iv`` per level);
  ``$this$map`` is the receiver of ``map`` (``this@map`` in Kotlin).
- Captured variables are fields of the class of a lambda or local object: javac's ``val$x``, Kotlin's
  ``$x``, and ``$x$inlined`` where kotlinc copied an inline function's object into the caller (a lambda
  passed to the inline function captured ``x``); ``this$0`` is the outer instance (reached through ``this``,
  not a captured local).
"""

from __future__ import annotations

import re

_INLINE_MARKERS = ("$i$f$", "$i$a$")
_IDENTIFIER = re.compile(r"[A-Za-z_\u00c0-\uffff][A-Za-z0-9_\u00c0-\uffff]*")
_INLINED_COPY = "$iv"
_RECEIVER = "$this$"
_CAPTURED_INLINED = "$inlined"


_D8_HOLDER = "$$ExternalSyntheticLambda"
_OLD_D8_HOLDER = "-$$Lambda$"


def lambda_holder_host(class_name: str) -> str | None:
    """The class whose lambda a D8 lambda holder forwards to, or ``None`` for any other class.

    D8 desugars a lambda into a synthetic holder class that only forwards to the host's ``lambda$…`` method
    (its captured values in fields ``f$0``, ``f$1``…): ``Host$$ExternalSyntheticLambda0`` (source file
    ``D8$$SyntheticClass``) since AGP 7, and ``-$$Lambda$Host$<hash>`` (source file ``lambda``) before, in the
    host's package; the host may itself be nested (``-$$Lambda$Outer$Inner$<hash>``). Both as apps' dex files
    show them (their smali, ``.class public final synthetic``).
    """
    package, dot, simple = class_name.rpartition(".")
    if simple.startswith(_OLD_D8_HOLDER):
        host = simple[len(_OLD_D8_HOLDER):].rpartition("$")[0]
        return f"{package}{dot}{host}" if host else None
    at = simple.find(_D8_HOLDER)
    return f"{package}{dot}{simple[:at]}" if at > 0 else None


def is_nested_in(class_name: str, outer: str) -> bool:
    """Whether a binary class name is ``outer`` itself or a class nested in it (``outer$…``), a D8 lambda
    holder of either counting as nested in its host (:func:`lambda_holder_host`)."""
    name = lambda_holder_host(class_name) or class_name
    return name == outer or name.startswith(outer + "$")


def outermost(class_name: str) -> str:
    """The top-level class of a binary name: ``com.x.Foo$Inner$1`` → ``com.x.Foo``; a D8 lambda holder's is
    its host's.

    A name that starts with ``$`` after the package (``com.x.$Proxy``) is its own top level.
    """
    package, _, simple = (lambda_holder_host(class_name) or class_name).rpartition(".")
    head = simple.split("$", 1)[0] or simple
    return f"{package}.{head}" if package else head


def package_of(class_name: str) -> str:
    """``com.x.Foo$Inner`` → ``com.x``; the default package is ``""``."""
    return class_name.rpartition(".")[0]


def kotlin_facade(stem: str) -> str:
    """The simple name kotlinc gives the facade class of a file's top-level code, from the file's name without
    its extension: ``jvmArguments`` → ``JvmArgumentsKt``, ``my-file`` → ``My_fileKt``, ``1st`` → ``_1stKt``.

    Kotlin's rule (JetBrains/kotlin, ``PackagePartClassUtils.getFilePartShortName`` and
    ``NameUtils.getPackagePartClassNamePrefix``, core/compiler.common/src/org/jetbrains/kotlin/name/NameUtils.kt):
    every character that is not a letter (``\\p{L}``) or an ASCII digit (Java's ``\\p{Digit}``) becomes ``_``;
    then a first character that may start a Java identifier is upper-cased (a letter; ``_`` stays), any other
    (a digit) gets ``_`` in front; an empty name is ``_``; ``Kt`` is appended.
    """
    if not stem:
        return "_Kt"
    sanitized = "".join(c if c.isalpha() or c in _ASCII_DIGITS else "_" for c in stem)
    head = sanitized[0]
    prefix = head.upper() + sanitized[1:] if head.isalpha() or head == "_" else "_" + sanitized
    return prefix + "Kt"


_ASCII_DIGITS = frozenset("0123456789")


def named_after(class_name: str, stem: str) -> bool:
    """Whether a top-level class is named after a source file's stem the way javac and kotlinc name them:
    ``Foo`` (the public class of ``Foo.java``, a Kotlin class), the file's facade (``FooKt`` for ``Foo.kt``
    and ``foo.kt``, :func:`kotlin_facade`), ``Facade__FooKt`` (its part of a multi-file facade)."""
    simple = outermost(class_name).rpartition(".")[2]
    facade = kotlin_facade(stem)
    return simple in (stem, facade) or simple.endswith("__" + facade)


def is_inline_marker(name: str) -> bool:
    """Kotlin's ``$i$f$map`` / ``$i$a$-map-AppKt$main$1``: an int where inlined code begins, not a variable."""
    return name.startswith(_INLINE_MARKERS)


def source_name(name: str) -> str:
    """The name a Kotlin local was written as: ``value$iv`` → ``value``, ``$this$map$iv`` → ``this@map``.

    A name with nothing to recover is returned as it is.
    """
    base = name
    while base.endswith(_INLINED_COPY) and len(base) > len(_INLINED_COPY):
        base = base[: -len(_INLINED_COPY)]
    if base.startswith(_RECEIVER):
        label = base[len(_RECEIVER):]
        return f"this@{label}" if _IDENTIFIER.fullmatch(label) else name
    return base if _IDENTIFIER.fullmatch(base) else name


def captured_name(field: str) -> str | None:
    """The variable a field of a lambda or local class captured: ``val$x`` (javac), ``$x`` or ``$x$inlined``
    (Kotlin) → ``x``; ``None`` for a field that is not a captured variable."""
    if field.startswith("$") and field.endswith(_CAPTURED_INLINED) and len(field) > len(_CAPTURED_INLINED) + 1:
        field = field[: -len(_CAPTURED_INLINED)]
    if field.startswith("val$"):
        rest = field[4:]
    elif field.startswith("$") and not field.startswith(("$$", "$i$")):
        rest = field[1:]
    else:
        return None
    if rest.startswith("this$"):  # Kotlin's captured receiver: $this$apply
        return source_name("$" + rest)
    return rest if _IDENTIFIER.fullmatch(rest) else None
