"""Choosing among overloads by the arguments' runtime types (``jdwp.debugger.reading.invoke``), as Java chooses:
the most specific applicable method, primitives widened, nothing boxed; two equally specific ones refused."""

from __future__ import annotations

import pytest

from jdwp.debugger.errors import EvaluationFailed
from jdwp.debugger.reading.invoke import Argument, choose, converted, parameter_types
from jdwp.protocol.commands.reftypes import MethodInfo
from jdwp.protocol.constants import Tag
from jdwp.protocol.values import Value

HIERARCHY = {"java.lang.String": frozenset({"java.lang.String", "java.lang.Object", "java.lang.CharSequence"}),
             "java.lang.Object": frozenset({"java.lang.Object"}),
             "java.lang.CharSequence": frozenset({"java.lang.CharSequence", "java.lang.Object"})}


def method(signature: str) -> MethodInfo:
    return MethodInfo(1, "m", signature, 0)


def primitive(tag: Tag, value: object) -> Argument:
    return Argument(Value(tag, value), None, frozenset())  # type: ignore[arg-type]


STRING = Argument(Value(Tag.STRING, 5), "java.lang.String", HIERARCHY["java.lang.String"])


def pick(arguments: list[Argument], *signatures: str) -> str:
    return choose([method(s) for s in signatures], arguments, "m", lambda n: HIERARCHY.get(n, frozenset({n}))
                  ).signature


def test_parameter_types_read_every_kind() -> None:
    assert parameter_types("(I[JLjava/lang/String;[[Ljava/util/List;Z)V") == [
        "int", "long[]", "java.lang.String", "java.util.List[][]", "boolean"]


def test_the_most_specific_overload_wins() -> None:
    assert pick([primitive(Tag.INT, 1)], "(J)I", "(I)I", "(D)I") == "(I)I"
    assert pick([primitive(Tag.CHAR, "a")], "(J)I", "(I)I") == "(I)I"  # char widens to int first
    assert pick([primitive(Tag.LONG, 1)], "(F)I", "(D)I") == "(F)I"
    assert pick([STRING], "(Ljava/lang/Object;)V", "(Ljava/lang/String;)V", "(Ljava/lang/CharSequence;)V") == \
        "(Ljava/lang/String;)V"
    null = Argument(Value.null(), None, frozenset())
    assert pick([null], "(Ljava/lang/Object;)V", "(Ljava/lang/String;)V") == "(Ljava/lang/String;)V"


def test_no_applicable_or_an_ambiguous_call_is_refused() -> None:
    with pytest.raises(EvaluationFailed, match="accepts these arguments"):
        pick([primitive(Tag.BOOLEAN, True)], "(I)I")
    with pytest.raises(EvaluationFailed, match="not boxed"):
        pick([primitive(Tag.INT, 1)], "(Ljava/lang/Integer;)I")
    with pytest.raises(EvaluationFailed, match="ambiguous"):
        pick([STRING, STRING], "(Ljava/lang/Object;Ljava/lang/String;)V", "(Ljava/lang/String;Ljava/lang/Object;)V")


def test_arguments_are_widened_to_the_parameters() -> None:
    widened = converted([Value(Tag.INT, 3), Value(Tag.CHAR, "a"), Value(Tag.STRING, 9)], method(
        "(DILjava/lang/String;)V"))
    assert widened == [Value(Tag.DOUBLE, 3.0), Value(Tag.INT, 97), Value(Tag.STRING, 9)]
