"""The release-build sample at attach: bounded and pipelined, whatever the app's size (docs/design.md §4.6).

A scripted VM (its answers held until every request of a round arrived) stands for an app with 300 loaded
classes of its own among framework classes; the variable tables it lacks stand for a release build (R8/D8
without debug info answers ``Method.VariableTable`` with ABSENT_INFORMATION).
"""

from __future__ import annotations

import trio
import trio.testing

import jdwp
from jdwp.debugger import sample_release_build
from jdwp.protocol.commands.reftypes import MethodInfo, MethodsReply, VariableTableReply
from jdwp.protocol.commands.vm import AllClassesReply, ClassInfo
from jdwp.protocol.constants import ErrorCode
from jdwp.protocol.types import HOTSPOT_64
from support.fakevm import FAKE_VERSION, WaveVm

PREPARED_INITIALIZED = 7
STATIC_PUBLIC, NATIVE = 0x0009, 0x0100


def _classes() -> AllClassesReply:
    app = [ClassInfo(1, 1000 + n, f"Lcom/example/app/C{n:03};", PREPARED_INITIALIZED) for n in range(300)]
    generated = [ClassInfo(1, 5000, "Lcom/example/app/R$string;", PREPARED_INITIALIZED)]
    framework = [ClassInfo(1, 9000 + n, f"Landroid/view/V{n};", PREPARED_INITIALIZED) for n in range(50)]
    return AllClassesReply(framework + app + generated)


async def _sample(stripped: set[int] | None) -> tuple[list[list[str]], jdwp.debugger.ReleaseSample]:
    client_end, vm_end = trio.testing.memory_stream_pair()

    def variable_table(out: object) -> object:
        ref = out.ref_type  # type: ignore[attr-defined]
        return ErrorCode.ABSENT_INFORMATION if stripped is None or ref in stripped else VariableTableReply(1, [])

    fake = WaveVm(vm_end, {
        "VirtualMachine.IDSizes": lambda out: HOTSPOT_64,
        "VirtualMachine.Version": lambda out: FAKE_VERSION,
        "VirtualMachine.AllClasses": lambda out: _classes(),
        "ReferenceType.Methods": lambda out: MethodsReply([MethodInfo(1, "nativeOne", "()V", NATIVE),
                                                           MethodInfo(2, "work", "(I)I", STATIC_PUBLIC)]),
        "Method.VariableTable": variable_table,
    })
    with trio.fail_after(20):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(fake.serve)
            async with jdwp.open_jdwp(client_end) as vm:
                fake.waves.clear()
                sample = await sample_release_build(vm, ("com.example.app",))
            nursery.cancel_scope.cancel()
    return fake.waves, sample


async def test_a_release_build_is_seen_in_three_round_trips() -> None:
    waves, sample = await _sample(None)
    assert [set(w) for w in waves] == [{"VirtualMachine.AllClasses"}, {"ReferenceType.Methods"},
                                       {"Method.VariableTable"}]
    assert len(waves[1]) == len(waves[2]) == 12  # at most 12 classes, one method with code each
    assert sample.sampled == 12 and sample.without_tables == 12 and sample.release_build_likely


async def test_a_debug_build_with_a_few_stripped_classes_is_not_a_release_build() -> None:
    _, sample = await _sample({1000, 1025})
    assert sample.sampled == 12 and sample.without_tables <= 2 and not sample.release_build_likely
