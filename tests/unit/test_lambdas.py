"""The rules of :mod:`jdwp.debugger.classes.lambdas` without a JVM: which code index is a lambda's, the ordinals, the
``lambda`` choice, names out of scope, linked locations and passes (docs/design.md §3.10).

The tables are what kotlinc 1.3.31 wrote for ``fixtures/kotlin/com/example/ktlambdas/Lambdas.kt`` (read with
``javap -l``): line 13 ``val s = xs.sumBy { it.a * it.b }`` is at code indexes 65, 117 and 142 of ``work``;
line 14 ``xs.map { it.a }.filter { it > 1 }.size`` at 143, 220, 253, 316 and 353.
"""

from __future__ import annotations

import pytest

from jdwp.debugger.classes.lambdas import (
    Candidate,
    Passes,
    classify,
    link,
    method_lambda,
    order_key,
    out_of_scope,
    parse_choice,
    scopes_of,
    select,
)
from jdwp.debugger.errors import InvalidArgument
from jdwp.protocol.commands.reftypes import VariableSlot

APP = "com.example.ktlambdas.LambdasKt"


def slot(start: int, length: int, name: str) -> VariableSlot:
    return VariableSlot(start, name, "I", length, 0)


WORK_VARIABLES = [
    slot(28, 19, "$i$a$-require-LambdasKt$work$1"),
    slot(114, 14, "it"), slot(117, 11, "$i$a$-sumBy-LambdasKt$work$s$1"), slot(103, 34, "element$iv"),
    slot(76, 66, "sum$iv"), slot(70, 72, "$this$sumBy$iv"), slot(73, 69, "$i$f$sumBy"),
    slot(217, 8, "it"), slot(220, 5, "$i$a$-map-LambdasKt$work$t$1"), slot(152, 96, "$i$f$map"),
    slot(313, 14, "it"), slot(316, 11, "$i$a$-filter-LambdasKt$work$t$2"), slot(256, 92, "$i$f$filter"),
    slot(143, 237, "s"), slot(0, 380, "xs"), slot(0, 380, "x"),
]
#: Line-table entries of ``work`` from 65 to 353: code index, and whether it is another line of Lambdas.kt
#: (29–40 are the inlined stdlib's lines, mapped to _Collections.kt by the SMAP).
WORK_ENTRIES = [(65, False), (73, False), (76, False), (103, False), (117, False), (137, False), (140, False),
                (142, False), (143, True), (152, False), (178, False), (206, False), (220, False), (240, False),
                (243, False), (253, False), (256, False), (275, False), (316, False), (343, False), (353, False),
                (354, True)]


def candidates(*indexes: int, class_name: str = APP, method: str = "work", method_id: int = 1,
               variables: list[VariableSlot] | None = WORK_VARIABLES) -> list[Candidate]:
    return [Candidate(index, 7, method_id, class_name, method, index, variables) for index in indexes]


def test_inline_lambda_is_the_innermost_marker_scope() -> None:
    assert [s.name for s in scopes_of(APP, "work", 117, WORK_VARIABLES)] == ["LambdasKt$work$s$1"]
    assert scopes_of(APP, "work", 65, WORK_VARIABLES) == ()
    assert scopes_of(APP, "work", 142, WORK_VARIABLES) == ()  # the marker's scope ended at 128
    old = [slot(10, 5, "$i$a$1$sumBy")]  # kotlinc before 1.3
    assert len(scopes_of(APP, "work", 12, old)) == 1


@pytest.mark.parametrize("class_name, method, expected", [
    (f"{APP}$work$u$1", "invoke", "LambdasKt$work$u$1"),
    (f"{APP}$work$u$1", "invokeSuspend", "LambdasKt$work$u$1"),
    ("com.x.Main", "lambda$main$0", "Main.lambda$main$0"),
    ("com.x.AppKt", "main$lambda-0", "AppKt.main$lambda-0"),
    ("com.x.AppKt", "main$lambda$0", "AppKt.main$lambda$0"),
    ("com.x.Main$$ExternalSyntheticLambda0", "run", "Main$$ExternalSyntheticLambda0"),
    ("com.x.AppKt$main$lambda$0", "invoke", "AppKt$main$lambda$0"),
    ("com.x.Main$1", "run", None),  # an anonymous class is no lambda
    ("com.x.Main$1", "invoke", None),  # nested in no method: javac's anonymous class
    (APP, "work", None),
])
def test_non_inline_lambdas_by_their_names(class_name: str, method: str, expected: str | None) -> None:
    assert method_lambda(class_name, method) == expected


def test_ordinals_follow_kotlincs_counter_in_source_order() -> None:
    names = ["LambdasKt$work$v$2", "LambdasKt$work$v$10", "LambdasKt$work$v$1$1", "LambdasKt$work$v$1"]
    assert sorted(names, key=order_key) == ["LambdasKt$work$v$1", "LambdasKt$work$v$1$1", "LambdasKt$work$v$2",
                                            "LambdasKt$work$v$10"]


def test_line_with_two_inline_lambdas_choices() -> None:
    found = candidates(143, 220, 253, 316, 353)
    classify(found)
    assert [(c.index, c.ordinal) for c in found] == [(143, None), (220, 0), (253, None), (316, 1), (353, None)]
    assert [c.index for c in select(found, "all")] == [143, 220, 253, 316, 353]
    assert [c.index for c in select(found, "line")] == [143, 253, 353]
    assert [c.index for c in select(found, 1)] == [316]
    assert select(found, 2) == []


def test_non_inline_lambda_before_an_inline_one() -> None:
    outer = candidates(373, 443, 468, variables=[slot(443, 5, "$i$a$-sumBy-LambdasKt$work$v$2")])
    own = candidates(0, class_name=f"{APP}$work$v$1", method="invoke", method_id=9, variables=[])
    found = outer + own
    classify(found)
    assert [(c.index, c.ordinal) for c in found] == [(373, None), (443, 1), (468, None), (0, 0)]


def test_a_line_inside_a_lambda_body_is_the_lines_own_code() -> None:
    """All of the line's code in one lambda: no lambda of the line (IntelliJ offers none there)."""
    found = candidates(117)
    classify(found)
    assert found[0].lambda_name is None and select(found, "line") == found


def test_it_out_of_scope_outside_the_lambda() -> None:
    found = candidates(65, 117, 142)
    classify(found)
    skipped = out_of_scope(found, {"it"})
    assert [c.index for c, _ in skipped] == [65, 142]
    assert "'it' not in scope" in skipped[0][1]
    assert out_of_scope(found, {"xs", "count"}) == []  # a local everywhere; a name no variable has (a field?)
    captured = Candidate(0, 8, 9, f"{APP}$work$u$1", "invoke", 0, [slot(0, 10, "this")], fields=["$s", "$x"])
    # `s` is assigned by line 13 (in scope from 143); the lambda class captured it (field `$s`): not skipped there.
    assert [c for c, _ in out_of_scope([*found, captured], {"s"})] == found
    assert out_of_scope(candidates(65, 117, variables=None), {"it"}) == []  # no table: never skipped


def test_linked_locations_and_passes() -> None:
    found = candidates(65, 117, 142)
    classify(found)
    spots = link(found, {(7, 1): WORK_ENTRIES})
    assert spots[65].chain == spots[142].chain is not None  # only inlined code between them
    assert spots[117].chain is None  # alone in its lambda: every call stops
    passes = Passes()
    passes.stopped("bp", 1, 3, spots[65])
    assert passes.same_pass("bp", 1, 3, spots[142])
    assert not passes.same_pass("bp", 1, 3, spots[65])  # a new call: back to a lower code index
    passes.stopped("bp", 1, 3, spots[65])
    assert not passes.same_pass("bp", 1, 4, spots[142])  # another frame (deeper)
    assert not passes.same_pass("bp", 2, 3, spots[142])  # another thread
    passes.thread_stopped(1, ["other"])  # the thread stopped elsewhere: the pass ended
    assert not passes.same_pass("bp", 1, 3, spots[142])


def test_require_message_lambda_between_the_lines_code_indexes() -> None:
    """``require(x >= 0) { "bad $x" }``: 6 and 47 are the line's own code, linked across the lambda's copy at 28
    (line 12 too); the lambda is a run of its own."""
    found = candidates(6, 28, 47)
    classify(found)
    assert [(c.index, c.ordinal) for c in found] == [(6, None), (28, 0), (47, None)]
    spots = link(found, {(7, 1): [(6, False), (28, False), (47, False), (65, True)]})
    assert spots[6].chain == spots[47].chain is not None and spots[28].chain is None


def test_another_line_between_breaks_the_link() -> None:
    found = candidates(143, 253, variables=[])
    classify(found)
    spots = link(found, {(7, 1): [(143, False), (200, True), (253, False)]})  # a `for` body in between
    assert spots[143].chain is None and spots[253].chain is None


@pytest.mark.parametrize("value", ["all", "line", 0, 3])
def test_choices_accepted(value: object) -> None:
    assert parse_choice(value) == value


@pytest.mark.parametrize("value", ["lambda", -1, True, 1.0, None])
def test_choices_refused(value: object) -> None:
    with pytest.raises(InvalidArgument):
        parse_choice(value)
