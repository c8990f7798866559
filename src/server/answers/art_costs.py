"""What a step costs an Android app: the warnings step results carry on ART.

Layer: ``server`` (data only). Issue 14 §3; the facts come from art/openjdkjvmti ``events.cc``
(``GetDeoptRequirement``) and external/oj-libjdwp ``stepControl.c``:

- libjdwp steps with JVMTI SingleStep on the stepping thread. A step into that reaches a method it must
  skip (a filtered class, a method without lines) waits for the next MethodEntry instead, and ART serves
  MethodEntry with *full* deoptimisation whatever the thread (every method of every thread drops to the
  interpreter). Before ART's per-thread deoptimisation (Android 11) SingleStep itself needed it too;
- a step over a call, or out of the method, waits for a FramePop of the frame it leaves (NotifyFramePop),
  which ART serves by deoptimising the stepping thread's frames, and on older releases the whole app.

The app keeps running interpreted until the step's events are cleared (the step ends): slower, and any
timing-sensitive behaviour (animations, ANR timers) shifts. A breakpoint alone costs only the methods it
is set in.

Watchpoints and method-exit breakpoints (docs/design.md §3.2) enable JVMTI FieldModification/FieldAccess and
MethodExit events, which the ART sources read here (openjdkjvmti ``events.cc``, ``EventNeedsFullDeopt``)
serve with full deoptimisation for as long as they are enabled: their answers on Android say so. (A method
*entry* breakpoint is a plain breakpoint: it costs what a line breakpoint does.)
"""

from __future__ import annotations

__all__ = ["ART_EVENT_COST", "art_step_warnings"]

_INTO = ("on ART a step into deoptimises the whole app (every method of every thread runs interpreted until "
         "the step ends): expect the app to slow down meanwhile; a breakpoint at the callee's line costs less "
         "when you know it")
_OVER_OUT = ("on ART a step over a call or out of a method deoptimises the stepping thread's frames (on Android "
             "10 and older the whole app) until the step ends: expect the app to slow down meanwhile")


ART_EVENT_COST = ("on ART this deoptimises the whole app (every method runs interpreted) for as long as it is set: "
                  "expect the app to slow down; remove it when done")


def art_step_warnings(kind: str) -> tuple[str, ...]:
    """The warnings a step of ``kind`` (into, over, out) gets on an Android session."""
    return (_INTO,) if kind == "into" else (_OVER_OUT,)
