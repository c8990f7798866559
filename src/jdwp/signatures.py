"""JNI signatures, as JDWP sends them, parsed and named as Java source writes them.

Layer: ``jdwp`` (pure functions, no I/O). Spec: JDWP's ``signature`` strings are JNI type signatures
(JVMS §4.3: field and method descriptors), plus a hidden class's ``.`` suffix (JDK 15+, JEP 371).

    >>> parse_method_signature("(I[Ljava/lang/String;J)Z")
    MethodSignature(parameters=['I', '[Ljava/lang/String;', 'J'], return_type='Z')
    >>> method_text("main", "([Ljava/lang/String;)V")
    'void main(java.lang.String[])'
    >>> argument_slots("(IJLjava/lang/Object;)V", static=False)
    [1, 2, 4]
"""

from __future__ import annotations

import dataclasses

from .protocol.constants import Tag

__all__ = ["MethodSignature", "argument_slots", "binary_name_of", "method_text", "parse_method_signature",
           "parse_type_signatures", "signature_of", "tag_of_signature", "type_name"]

_PRIMITIVE_NAMES = {"Z": "boolean", "B": "byte", "C": "char", "S": "short", "I": "int", "J": "long",
                    "F": "float", "D": "double", "V": "void"}

# Hidden classes (JDK 15+, JEP 371: lambdas' proxies, ``Lookup.defineHiddenClass``) are named by the VM: the
# class file's name, then a suffix. In a JDWP signature a '.' separates the suffix (``Lcom/x/Foo$$Lambda$11.
# 0x0000000800c03000;``), since '/' separates packages there; ``Class.getName()``, JDI and jdb write the
# binary name with '/' before it (``com.x.Foo$$Lambda$11/0x0000000800c03000``), as OpenJDK's
# src/jdk.jdi/share/classes/com/sun/tools/jdi/JNITypeParser.java converts both ways (nextTypeName,
# typeNameToSignature). No other class's signature or binary name holds that character.


@dataclasses.dataclass(frozen=True, slots=True)
class MethodSignature:
    """A method descriptor's parts, each a JNI type signature."""

    parameters: list[str]
    return_type: str


def parse_type_signatures(text: str) -> list[str]:
    """Consecutive JNI type signatures: ``I[JLjava/lang/String;`` → ``["I", "[J", "Ljava/lang/String;"]``.

    Raises:
        ValueError: ``text`` is not a sequence of type signatures.
    """
    types: list[str] = []
    k = 0
    while k < len(text):
        start = k
        while k < len(text) and text[k] == "[":
            k += 1
        if k >= len(text):
            raise ValueError(f"not a type signature: {text!r} ends inside an array type")
        if text[k] == "L":
            end = text.find(";", k)
            if end < 0:
                raise ValueError(f"not a type signature: {text!r} has a class name without ';'")
            k = end + 1
        elif text[k] in _PRIMITIVE_NAMES and text[k] != "V":
            k += 1
        else:
            raise ValueError(f"not a type signature: {text[k]!r} at {k} of {text!r}")
        types.append(text[start:k])
    return types


def parse_method_signature(signature: str) -> MethodSignature:
    """``(I[Ljava/lang/String;)V`` → parameters ``["I", "[Ljava/lang/String;"]``, return ``"V"``.

    Raises:
        ValueError: not a method signature.
    """
    close = signature.find(")")
    if not signature.startswith("(") or close < 0:
        raise ValueError(f"not a method signature: {signature!r}")
    result = signature[close + 1:]
    if result != "V":
        (result,) = parse_type_signatures(result) or [""]
    return MethodSignature(parse_type_signatures(signature[1:close]), result)


def argument_slots(signature: str, *, static: bool) -> list[int]:
    """The local-variable slot of each parameter, as the JVM lays a frame out (JVMS §2.6.1): ``this`` in
    slot 0 of an instance method, then the parameters in order, ``long`` and ``double`` taking two slots.

    ART does not lay registers out this way (its parameters are the method's top registers): there, read
    the slots from the variable table.
    """
    slot = 0 if static else 1
    slots: list[int] = []
    for parameter in parse_method_signature(signature).parameters:
        slots.append(slot)
        slot += 2 if parameter in ("J", "D") else 1
    return slots


def tag_of_signature(signature: str) -> Tag:
    """The value tag a variable of this type is read with (``StackFrame.GetValues`` 16,1 takes it): the
    primitive's own tag, ``ARRAY`` for arrays, ``OBJECT`` for any class."""
    first = signature[:1]
    if first == "[":
        return Tag.ARRAY
    if first == "L":
        return Tag.OBJECT
    return Tag(ord(first))


def _class_name(internal: str) -> str:
    """A class's name inside ``L…;`` → its binary name, a hidden class's with ``/`` before its suffix."""
    name, hidden, suffix = internal.partition(".")
    return name.replace("/", ".") + (f"/{suffix}" if hidden else "")


def type_name(signature: str) -> str:
    """A type as Java source writes it: ``I`` → ``int``, ``[Ljava/lang/String;`` → ``java.lang.String[]``."""
    dims = len(signature) - len(signature.lstrip("["))
    element = signature[dims:]
    if element.startswith("L") and element.endswith(";"):
        base = _class_name(element[1:-1])
    else:
        base = _PRIMITIVE_NAMES.get(element, element)
    return base + "[]" * dims


def binary_name_of(signature: str) -> str:
    """``Lcom/example/Foo;`` → ``com.example.Foo``; array and primitive signatures → :func:`type_name`."""
    if signature.startswith("L") and signature.endswith(";"):
        return _class_name(signature[1:-1])
    return type_name(signature)


def signature_of(binary_name: str) -> str:
    """``com.example.Foo`` → ``Lcom/example/Foo;``; a hidden class's ``com.x.Foo$$Lambda$11/0x…`` →
    ``Lcom/x/Foo$$Lambda$11.0x…;``."""
    name, hidden, suffix = binary_name.partition("/")
    return "L" + name.replace(".", "/") + (f".{suffix}" if hidden else "") + ";"


def method_text(name: str, signature: str) -> str:
    """A method as Java declares it: ``method_text("put", "(ILjava/lang/Object;)Z")`` →
    ``boolean put(int, java.lang.Object)``."""
    parsed = parse_method_signature(signature)
    parameters = ", ".join(type_name(p) for p in parsed.parameters)
    return f"{type_name(parsed.return_type)} {name}({parameters})"
