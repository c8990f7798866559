"""Which classes count as coroutine machinery, and which throwables are cancellations (docs/design.md §3.11)."""

from __future__ import annotations

import pytest

from jdwp.debugger.classes.coroutine_machinery import BASE_CONTINUATION, is_machinery
from jdwp.debugger.reading.objects import ClassInfo
from jdwp.debugger.requests.exceptions import is_cancellation
from jdwp.debugger.requests.steps import STEP_EXCLUDES
from jdwp.protocol.types import ReferenceTypeId


@pytest.mark.parametrize("name", [BASE_CONTINUATION, "kotlinx.coroutines.DispatchedTask",
                                  "kotlinx.coroutines.intrinsics.UndispatchedKt", "kotlinx.coroutines.JobSupport",
                                  "kotlin.coroutines.experimental.jvm.internal.CoroutineImpl"])
def test_the_runtime_that_catches_a_coroutines_throwables_is_machinery(name: str) -> None:
    assert is_machinery(name)


@pytest.mark.parametrize("name", [None, "kotlin.ResultKt", "com.example.ktcrash.CrashKt$launchCrash$job$1",
                                  "kotlinx.coroutinesque.Mine", "java.lang.Thread", "com.example.kotlinx.coroutines.X"])
def test_app_code_and_other_runtimes_are_not(name: str | None) -> None:
    assert not is_machinery(name)


def _chain(*names: str) -> tuple[ClassInfo, ...]:
    return tuple(ClassInfo(ReferenceTypeId(i + 1), name, ()) for i, name in enumerate(names))


def test_a_cancellation_is_told_by_its_class_chain() -> None:
    assert is_cancellation(_chain("kotlinx.coroutines.JobCancellationException",
                                  "java.util.concurrent.CancellationException", "java.lang.IllegalStateException",
                                  "java.lang.RuntimeException", "java.lang.Exception", "java.lang.Throwable"))
    assert not is_cancellation(_chain("java.lang.IllegalStateException", "java.lang.RuntimeException",
                                      "java.lang.Exception", "java.lang.Throwable"))


def test_step_filters_cover_the_coroutine_runtime() -> None:
    assert {"kotlin.coroutines.*", "kotlinx.coroutines.*", "kotlinx.atomicfu.*"} <= set(STEP_EXCLUDES)
