"""Which classes are coroutine machinery: the runtime that runs a coroutine's code, not the app's code.

Layer: ``jdwp.debugger`` ground knowledge (no VM access). docs/design.md §3.11 (exceptions and steps).

A Kotlin coroutine's code runs under a few runtime frames, and a throwable that escapes it is caught there,
not by any catch clause of the app; the VM then reports the throw as *caught* (JDWP ``Event.Exception``,
64,100 kind 4: its ``catchLocation`` is the handler's), and an exception breakpoint for uncaught throwables
never hears of it, though the coroutine dies of it. The catches, as the sources have them:

- ``kotlin.coroutines.jvm.internal.BaseContinuationImpl.resumeWith`` (the Kotlin stdlib,
  ``libraries/stdlib/jvm/src/kotlin/coroutines/jvm/internal/ContinuationImpl.kt``): every compiled suspend
  function and suspend lambda is resumed by it; it calls ``invokeSuspend`` inside a ``try`` that turns any
  ``Throwable`` into ``Result.failure`` and resumes the completion with it (and, for a suspend function's
  caller, ``kotlin.ResultKt.throwOnFailure`` throws the same object again in the caller's state machine,
  caught by the same ``resumeWith`` loop). The experimental coroutines of Kotlin 1.2
  (``kotlin.coroutines.experimental.jvm.internal.CoroutineImpl``) catch the same way.
- ``kotlinx.coroutines.DispatchedTask.run`` (kotlinx.coroutines ``common/src/Dispatched.kt``, 1.0.1):
  catches what escapes a dispatched resumption and hands it to ``handleFatalException``.
- ``kotlinx.coroutines.intrinsics.UndispatchedKt`` (``common/src/intrinsics/Undispatched.kt``:
  ``startCoroutineUndispatched``, ``startUndispatchedOrReturn``, ``startDirect``): a coroutine started
  undispatched (``coroutineScope``, ``withContext`` on the same dispatcher, ``CoroutineStart.UNDISPATCHED``)
  runs its block inside a ``try`` that resumes the coroutine with the failure.
- ``kotlinx.coroutines.JobSupport`` (``notifyHandlers``, ``completeStateFinalization``) and
  ``CoroutineExceptionHandlerKt.handleExceptionViaHandler`` catch what completion handlers and exception
  handlers throw.

Every class of ``kotlin.coroutines.*`` and ``kotlinx.coroutines.*`` counts (checked on Debian's
kotlin-stdlib 1.3.31 and kotlinx-coroutines-core 1.0.1 jars: no other class of those packages has a handler
that app code's throwables reach). A ``CancellationException`` (kotlinx's ``JobCancellationException``,
``TimeoutCancellationException`` extend it) caught there is a coroutine being cancelled, the normal way one
ends, not a crash (``JobSupport`` treats it so and never reports it to an exception handler).
"""

from __future__ import annotations

__all__ = ["BASE_CONTINUATION", "CANCELLATION", "MACHINERY_PACKAGES", "SUSPENDED_MARKER", "is_machinery"]

#: Every compiled suspend function's continuation and suspend lambda extends it (Kotlin 1.3 and later).
BASE_CONTINUATION = "kotlin.coroutines.jvm.internal.BaseContinuationImpl"
CANCELLATION = "java.util.concurrent.CancellationException"
#: What a state machine returns when it suspends: ``COROUTINE_SUSPENDED`` is the enum constant of this name
#: (the stdlib's ``kotlin/coroutines/intrinsics/Intrinsics.kt``; ``IntrinsicsKt.getCOROUTINE_SUSPENDED`` reads
#: ``CoroutineSingletons.COROUTINE_SUSPENDED`` in Debian's 1.3.31 jar). Its other constants (``UNDECIDED``,
#: ``RESUMED``) never leave ``SafeContinuation``: a suspend function returns an instance of it only to suspend.
SUSPENDED_MARKER = "kotlin.coroutines.intrinsics.CoroutineSingletons"
MACHINERY_PACKAGES = ("kotlin.coroutines.", "kotlinx.coroutines.")


def is_machinery(class_name: str | None) -> bool:
    """Whether a class (binary name) is coroutine machinery: the Kotlin stdlib's coroutine runtime or
    kotlinx.coroutines (a handler there is no catch of the app's)."""
    return class_name is not None and class_name.startswith(MACHINERY_PACKAGES)
