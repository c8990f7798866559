"""Null IDs on a real HotSpot: what each command does with an object or reference-type ID of 0 (issue 32).

HotSpot's back end (``libjdwp``) reads an object ID of 0 as a null reference and, for some commands, hands it
to JNI or JVMTI unchecked: ``StringReference.Value(0)`` kills the whole VM with SIGSEGV, and 19 more commands
kill it too (a SIGSEGV, or a JDWP "FATAL ERROR in native method"). The library refuses a null where the JDWP
specification does not allow one (:mod:`jdwp.protocol.nulls`, unit-tested against the spec's text in
``tests/unit/test_null_ids.py``); this test finds out what a throwaway VM does with each such null,
*bypassing* that check (the out-data is built by the codec and sent raw with ``request_raw``):

- the library refuses every probe but the two nulls the spec allows;
- every probe that kills or hangs the VM is one the library refuses (the point of the check);
- with ``PYJDWP_NULL_PROBES=all``, the outcomes are still those recorded in :data:`SEEN` (OpenJDK 17).

A VM that dies takes only its own probe down: each probe is followed by ``VirtualMachine.Version`` (1,1),
and a VM that does not answer is replaced by a fresh one for the next probe. By default the probes that
survived share one VM and two of the killers get one each: three VMs, not one per command.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
import trio

import jdwp
from jdwp.protocol.commands import (
    ArrayReference,
    ArrayType,
    ClassLoaderReference,
    ClassObjectReference,
    ClassType,
    Command,
    EventRequest,
    InterfaceType,
    Method,
    ModuleReference,
    ObjectReference,
    ReferenceType,
    StackFrame,
    StringReference,
    ThreadGroupReference,
    ThreadReference,
    VirtualMachine,
)
from jdwp.protocol.commands._base import encode
from jdwp.protocol.commands.events import (
    ClassOnly,
    ExceptionOnly,
    FieldOnly,
    InstanceOnly,
    LocationOnly,
    SetOut,
    Step,
    ThreadOnly,
)
from jdwp.protocol.commands.vm import DisposeObjectsOut, ObjectRefCount
from jdwp.protocol.constants import EventKind, StepDepth, StepSize, SuspendPolicy, Tag, TypeTag
from jdwp.protocol.nulls import null_field
from jdwp.protocol.records import spec_of
from jdwp.protocol.types import Location
from jdwp.protocol.values import Value
from support.jvm import Debuggee
from support.live import require_tool

pytestmark = pytest.mark.live

MAIN = "com.example.debuggee.Main"


@dataclasses.dataclass
class World:
    """Real IDs of one VM, to fill every field a probe does not set to null."""

    thread: int
    frame: int
    group: int
    string: int
    array: int
    loader: int
    class_object: int
    module: int
    clazz: int  # Main
    interface: int  # java.lang.Runnable
    array_type: int  # String[]
    method: int  # Main.main
    interface_method: int  # Runnable.run
    static_field: int  # Main.running
    string_field: int  # String.hash


@dataclasses.dataclass(frozen=True)
class Probe:
    """One command with one ID of its out-data null (``where`` names it), the rest real."""

    command: Command[Any, Any]
    where: str
    build: Callable[[World], Any]

    @property
    def name(self) -> str:
        return f"{self.command.name}:{self.where}"


def _location(world: World, class_id: int) -> Location:
    return Location(TypeTag.CLASS, class_id, world.method, 0)


def _request(kind: EventKind, modifier: Any) -> SetOut:
    return SetOut(int(kind), int(SuspendPolicy.NONE), [modifier])


PROBES: list[Probe] = [
    Probe(ReferenceType.Signature, "ref_type", lambda w: ReferenceType.Signature.out(0)),
    Probe(ReferenceType.ClassLoader, "ref_type", lambda w: ReferenceType.ClassLoader.out(0)),
    Probe(ReferenceType.Modifiers, "ref_type", lambda w: ReferenceType.Modifiers.out(0)),
    Probe(ReferenceType.Fields, "ref_type", lambda w: ReferenceType.Fields.out(0)),
    Probe(ReferenceType.Methods, "ref_type", lambda w: ReferenceType.Methods.out(0)),
    Probe(ReferenceType.GetValues, "ref_type", lambda w: ReferenceType.GetValues.out(0, [w.static_field])),
    Probe(ReferenceType.SourceFile, "ref_type", lambda w: ReferenceType.SourceFile.out(0)),
    Probe(ReferenceType.NestedTypes, "ref_type", lambda w: ReferenceType.NestedTypes.out(0)),
    Probe(ReferenceType.Status, "ref_type", lambda w: ReferenceType.Status.out(0)),
    Probe(ReferenceType.Interfaces, "ref_type", lambda w: ReferenceType.Interfaces.out(0)),
    Probe(ReferenceType.ClassObject, "ref_type", lambda w: ReferenceType.ClassObject.out(0)),
    Probe(ReferenceType.SourceDebugExtension, "ref_type", lambda w: ReferenceType.SourceDebugExtension.out(0)),
    Probe(ReferenceType.SignatureWithGeneric, "ref_type", lambda w: ReferenceType.SignatureWithGeneric.out(0)),
    Probe(ReferenceType.FieldsWithGeneric, "ref_type", lambda w: ReferenceType.FieldsWithGeneric.out(0)),
    Probe(ReferenceType.MethodsWithGeneric, "ref_type", lambda w: ReferenceType.MethodsWithGeneric.out(0)),
    Probe(ReferenceType.Instances, "ref_type", lambda w: ReferenceType.Instances.out(0, 1)),
    Probe(ReferenceType.ClassFileVersion, "ref_type", lambda w: ReferenceType.ClassFileVersion.out(0)),
    Probe(ReferenceType.ConstantPool, "ref_type", lambda w: ReferenceType.ConstantPool.out(0)),
    Probe(ReferenceType.Module, "ref_type", lambda w: ReferenceType.Module.out(0)),
    Probe(ClassType.Superclass, "clazz", lambda w: ClassType.Superclass.out(0)),
    Probe(ClassType.SetValues, "clazz", lambda w: ClassType.SetValues.out(0, [])),
    Probe(ClassType.InvokeMethod, "clazz", lambda w: ClassType.InvokeMethod.out(0, w.thread, w.method, [], 0)),
    Probe(ClassType.InvokeMethod, "thread", lambda w: ClassType.InvokeMethod.out(w.clazz, 0, w.method, [], 0)),
    Probe(ClassType.NewInstance, "clazz", lambda w: ClassType.NewInstance.out(0, w.thread, w.method, [], 0)),
    Probe(ClassType.NewInstance, "thread", lambda w: ClassType.NewInstance.out(w.clazz, 0, w.method, [], 0)),
    Probe(ArrayType.NewInstance, "arr_type", lambda w: ArrayType.NewInstance.out(0, 1)),
    Probe(InterfaceType.InvokeMethod, "clazz",
          lambda w: InterfaceType.InvokeMethod.out(0, w.thread, w.interface_method, [], 0)),
    Probe(InterfaceType.InvokeMethod, "thread",
          lambda w: InterfaceType.InvokeMethod.out(w.interface, 0, w.interface_method, [], 0)),
    Probe(Method.LineTable, "ref_type", lambda w: Method.LineTable.out(0, w.method)),
    Probe(Method.VariableTable, "ref_type", lambda w: Method.VariableTable.out(0, w.method)),
    Probe(Method.Bytecodes, "ref_type", lambda w: Method.Bytecodes.out(0, w.method)),
    Probe(Method.IsObsolete, "ref_type", lambda w: Method.IsObsolete.out(0, w.method)),
    Probe(Method.VariableTableWithGeneric, "ref_type", lambda w: Method.VariableTableWithGeneric.out(0, w.method)),
    Probe(ObjectReference.ReferenceType, "object", lambda w: ObjectReference.ReferenceType.out(0)),
    Probe(ObjectReference.GetValues, "object", lambda w: ObjectReference.GetValues.out(0, [w.string_field])),
    Probe(ObjectReference.SetValues, "object", lambda w: ObjectReference.SetValues.out(0, [])),
    Probe(ObjectReference.MonitorInfo, "object", lambda w: ObjectReference.MonitorInfo.out(0)),
    Probe(ObjectReference.InvokeMethod, "object",
          lambda w: ObjectReference.InvokeMethod.out(0, w.thread, w.clazz, w.method, [], 0)),
    Probe(ObjectReference.InvokeMethod, "thread",
          lambda w: ObjectReference.InvokeMethod.out(w.string, 0, w.clazz, w.method, [], 0)),
    Probe(ObjectReference.InvokeMethod, "clazz",
          lambda w: ObjectReference.InvokeMethod.out(w.string, w.thread, 0, w.method, [], 0)),
    Probe(ObjectReference.DisableCollection, "object", lambda w: ObjectReference.DisableCollection.out(0)),
    Probe(ObjectReference.EnableCollection, "object", lambda w: ObjectReference.EnableCollection.out(0)),
    Probe(ObjectReference.IsCollected, "object", lambda w: ObjectReference.IsCollected.out(0)),
    Probe(ObjectReference.ReferringObjects, "object", lambda w: ObjectReference.ReferringObjects.out(0, 1)),
    Probe(StringReference.Value, "string_object", lambda w: StringReference.Value.out(0)),
    *(Probe(command, "thread", lambda w, command=command: command.out(0)) for command in (
        ThreadReference.Name, ThreadReference.Suspend, ThreadReference.Resume, ThreadReference.Status,
        ThreadReference.ThreadGroup, ThreadReference.FrameCount, ThreadReference.OwnedMonitors,
        ThreadReference.CurrentContendedMonitor, ThreadReference.Interrupt, ThreadReference.SuspendCount,
        ThreadReference.OwnedMonitorsStackDepthInfo, ThreadReference.IsVirtual)),
    Probe(ThreadReference.Frames, "thread", lambda w: ThreadReference.Frames.out(0, 0, 1)),
    Probe(ThreadReference.Stop, "thread", lambda w: ThreadReference.Stop.out(0, w.string)),
    Probe(ThreadReference.Stop, "throwable", lambda w: ThreadReference.Stop.out(w.thread, 0)),
    Probe(ThreadReference.ForceEarlyReturn, "thread",
          lambda w: ThreadReference.ForceEarlyReturn.out(0, Value(Tag.VOID, None))),
    *(Probe(command, "group", lambda w, command=command: command.out(0)) for command in (
        ThreadGroupReference.Name, ThreadGroupReference.Parent, ThreadGroupReference.Children)),
    Probe(ArrayReference.Length, "array_object", lambda w: ArrayReference.Length.out(0)),
    Probe(ArrayReference.GetValues, "array_object", lambda w: ArrayReference.GetValues.out(0, 0, 1)),
    Probe(ArrayReference.SetValues, "array_object", lambda w: ArrayReference.SetValues.out(0, 0, [])),
    Probe(ClassLoaderReference.VisibleClasses, "class_loader_object",
          lambda w: ClassLoaderReference.VisibleClasses.out(0)),
    Probe(StackFrame.GetValues, "thread", lambda w: StackFrame.GetValues.out(0, w.frame, [])),
    Probe(StackFrame.SetValues, "thread", lambda w: StackFrame.SetValues.out(0, w.frame, [])),
    Probe(StackFrame.ThisObject, "thread", lambda w: StackFrame.ThisObject.out(0, w.frame)),
    Probe(StackFrame.PopFrames, "thread", lambda w: StackFrame.PopFrames.out(0, w.frame)),
    Probe(ClassObjectReference.ReflectedType, "class_object", lambda w: ClassObjectReference.ReflectedType.out(0)),
    Probe(ModuleReference.Name, "module", lambda w: ModuleReference.Name.out(0)),
    Probe(ModuleReference.ClassLoader, "module", lambda w: ModuleReference.ClassLoader.out(0)),
    Probe(VirtualMachine.InstanceCounts, "ref_types[]", lambda w: VirtualMachine.InstanceCounts.out([0])),
    Probe(VirtualMachine.DisposeObjects, "requests[].object",
          lambda w: DisposeObjectsOut([ObjectRefCount(0, 1)])),
    Probe(EventRequest.Set, "ThreadOnly.thread", lambda w: _request(EventKind.THREAD_START, ThreadOnly(0))),
    Probe(EventRequest.Set, "ClassOnly.clazz", lambda w: _request(EventKind.CLASS_PREPARE, ClassOnly(0))),
    Probe(EventRequest.Set, "LocationOnly.loc.class_id",
          lambda w: _request(EventKind.BREAKPOINT, LocationOnly(_location(w, 0)))),
    Probe(EventRequest.Set, "FieldOnly.declaring",
          lambda w: _request(EventKind.FIELD_ACCESS, FieldOnly(0, w.static_field))),
    Probe(EventRequest.Set, "Step.thread",
          lambda w: _request(EventKind.SINGLE_STEP, Step(0, int(StepSize.LINE), int(StepDepth.OVER)))),
    # The two the specification allows: "Null (0) means report exceptions of all types", and "the null
    # object for static methods".
    Probe(EventRequest.Set, "ExceptionOnly.exception_or_null",
          lambda w: _request(EventKind.EXCEPTION, ExceptionOnly(0, True, True))),
    Probe(EventRequest.Set, "InstanceOnly.instance", lambda w: _request(EventKind.METHOD_ENTRY, InstanceOnly(0))),
]

#: What OpenJDK 17's back end (Debian's 17.0 build) does with each null: ``ok`` (accepted), the error it
#: answers, ``crash`` (the VM dies: SIGSEGV in ``libjdwp``, or a JDWP "FATAL ERROR in native method") or
#: ``hang`` (no answer in 5 s). Found by this test with ``PYJDWP_NULL_PROBES=all``; a null-thread probe that is
#: "ok" acted on the agent's own thread (JVMTI reads a null thread as the current one). "ok" is not "safe":
#: an outcome depends on the nulls the VM took before (see :func:`test_what_the_vm_does_with_each_null`).
SEEN: dict[str, str] = {
    "ReferenceType.Signature:ref_type": "INVALID_CLASS",
    "ReferenceType.ClassLoader:ref_type": "INVALID_CLASS",
    "ReferenceType.Modifiers:ref_type": "INVALID_CLASS",
    "ReferenceType.Fields:ref_type": "INVALID_CLASS",
    "ReferenceType.Methods:ref_type": "INVALID_CLASS",
    "ReferenceType.GetValues:ref_type": "INVALID_CLASS",
    "ReferenceType.SourceFile:ref_type": "INVALID_CLASS",
    "ReferenceType.NestedTypes:ref_type": "INVALID_CLASS",
    "ReferenceType.Status:ref_type": "crash",
    "ReferenceType.Interfaces:ref_type": "INVALID_CLASS",
    "ReferenceType.ClassObject:ref_type": "ok",
    "ReferenceType.SourceDebugExtension:ref_type": "INVALID_CLASS",
    "ReferenceType.SignatureWithGeneric:ref_type": "INVALID_CLASS",
    "ReferenceType.FieldsWithGeneric:ref_type": "INVALID_CLASS",
    "ReferenceType.MethodsWithGeneric:ref_type": "INVALID_CLASS",
    "ReferenceType.Instances:ref_type": "INVALID_OBJECT",
    "ReferenceType.ClassFileVersion:ref_type": "INVALID_CLASS",
    "ReferenceType.ConstantPool:ref_type": "INVALID_CLASS",
    "ReferenceType.Module:ref_type": "ok",
    "ClassType.Superclass:clazz": "crash",
    "ClassType.SetValues:clazz": "ok",
    "ClassType.InvokeMethod:clazz": "crash",
    "ClassType.InvokeMethod:thread": "INVALID_THREAD",
    "ClassType.NewInstance:clazz": "INVALID_THREAD",
    "ClassType.NewInstance:thread": "INVALID_THREAD",
    "ArrayType.NewInstance:arr_type": "hang",
    "InterfaceType.InvokeMethod:clazz": "crash",
    "InterfaceType.InvokeMethod:thread": "INVALID_THREAD",
    "Method.LineTable:ref_type": "ok",
    "Method.VariableTable:ref_type": "ok",
    "Method.Bytecodes:ref_type": "ok",
    "Method.IsObsolete:ref_type": "ok",
    "Method.VariableTableWithGeneric:ref_type": "ok",
    "ObjectReference.ReferenceType:object": "crash",
    "ObjectReference.GetValues:object": "crash",
    "ObjectReference.SetValues:object": "crash",
    "ObjectReference.MonitorInfo:object": "INVALID_OBJECT",
    "ObjectReference.InvokeMethod:object": "INVALID_THREAD",
    "ObjectReference.InvokeMethod:thread": "INVALID_THREAD",
    "ObjectReference.InvokeMethod:clazz": "INVALID_THREAD",
    "ObjectReference.DisableCollection:object": "ok",
    "ObjectReference.EnableCollection:object": "ok",
    "ObjectReference.IsCollected:object": "INVALID_OBJECT",
    "ObjectReference.ReferringObjects:object": "INVALID_OBJECT",
    "StringReference.Value:string_object": "crash",
    "ThreadReference.Name:thread": "ok",
    "ThreadReference.Suspend:thread": "ok",
    "ThreadReference.Resume:thread": "ok",
    "ThreadReference.Status:thread": "ok",
    "ThreadReference.ThreadGroup:thread": "ok",
    "ThreadReference.FrameCount:thread": "THREAD_NOT_SUSPENDED",
    "ThreadReference.OwnedMonitors:thread": "THREAD_NOT_SUSPENDED",
    "ThreadReference.CurrentContendedMonitor:thread": "INVALID_THREAD",
    "ThreadReference.Interrupt:thread": "INVALID_THREAD",
    "ThreadReference.SuspendCount:thread": "ok",
    "ThreadReference.OwnedMonitorsStackDepthInfo:thread": "INVALID_THREAD",
    "ThreadReference.IsVirtual:thread": "NOT_IMPLEMENTED",
    "ThreadReference.Frames:thread": "THREAD_NOT_SUSPENDED",
    "ThreadReference.Stop:thread": "INVALID_THREAD",
    "ThreadReference.Stop:throwable": "NULL_POINTER",
    "ThreadReference.ForceEarlyReturn:thread": "NO_MORE_FRAMES",
    "ThreadGroupReference.Name:group": "crash",
    "ThreadGroupReference.Parent:group": "crash",
    "ThreadGroupReference.Children:group": "INVALID_THREAD_GROUP",
    "ArrayReference.Length:array_object": "crash",
    "ArrayReference.GetValues:array_object": "crash",
    "ArrayReference.SetValues:array_object": "crash",
    "ClassLoaderReference.VisibleClasses:class_loader_object": "ok",
    "StackFrame.GetValues:thread": "THREAD_NOT_SUSPENDED",
    "StackFrame.SetValues:thread": "THREAD_NOT_SUSPENDED",
    "StackFrame.ThisObject:thread": "THREAD_NOT_SUSPENDED",
    "StackFrame.PopFrames:thread": "THREAD_NOT_SUSPENDED",
    "ClassObjectReference.ReflectedType:class_object": "crash",
    "ModuleReference.Name:module": "ok",
    "ModuleReference.ClassLoader:module": "crash",
    "VirtualMachine.InstanceCounts:ref_types[]": "ok",
    "VirtualMachine.DisposeObjects:requests[].object": "ok",
    "EventRequest.Set:ThreadOnly.thread": "crash",
    "EventRequest.Set:ClassOnly.clazz": "crash",
    "EventRequest.Set:LocationOnly.loc.class_id": "crash",
    "EventRequest.Set:FieldOnly.declaring": "crash",
    "EventRequest.Set:Step.thread": "crash",
    "EventRequest.Set:ExceptionOnly.exception_or_null": "ok",
    "EventRequest.Set:InstanceOnly.instance": "ok",
}

#: The probes that kill the VM. By default only two of them run (each on a VM of its own): the SIGSEGV the
#: issue met and a JDWP fatal error; ``PYJDWP_NULL_PROBES=all`` runs every one (some 20 VMs).
KILLERS = {name for name, outcome in SEEN.items() if outcome in ("crash", "hang")}
SAMPLED_KILLERS = ("StringReference.Value:string_object", "ReferenceType.Status:ref_type")


class Vm:
    """A throwaway VM and a client on it, suspended, with real IDs for the fields a probe does not null."""

    def __init__(self, debuggee: Debuggee, client: jdwp.JdwpClient, world: World) -> None:
        self.debuggee, self.client, self.world = debuggee, client, world


@contextlib.asynccontextmanager
async def throwaway_vm(classes: Path, workdir: Path) -> AsyncIterator[Vm]:
    java = require_tool("java")
    # A crash writes hs_err into its own directory, and no core file.
    debuggee = await trio.to_thread.run_sync(lambda: Debuggee(
        classes, MAIN, java=java, cwd=workdir,
        extra_args=(f"-XX:ErrorFile={workdir}/hs_err_%p.log", "-XX:-CreateCoredumpOnCrash")))
    try:
        await trio.to_thread.run_sync(lambda: debuggee.wait_for_line("^ready$", timeout=30))
        async with jdwp.open_jdwp_tcp("127.0.0.1", debuggee.port, request_timeout=5) as client:
            await client.request(VirtualMachine.Suspend)
            yield Vm(debuggee, client, await _world(client))
    finally:
        await trio.to_thread.run_sync(debuggee.stop)


async def _class(client: jdwp.JdwpClient, signature: str) -> int:
    (found, *_) = (await client.request(VirtualMachine.ClassesBySignature, signature=signature)).classes
    return int(found.type_id)


async def _world(client: jdwp.JdwpClient) -> World:
    threads = (await client.request(VirtualMachine.AllThreads)).threads
    names = [(await client.request(ThreadReference.Name, thread=t)).thread_name for t in threads]
    main = threads[names.index("main")]
    (frame, *_) = (await client.request(ThreadReference.Frames, thread=main, start_frame=0, length=1)).frames
    clazz = await _class(client, "Lcom/example/debuggee/Main;")
    string_class = await _class(client, "Ljava/lang/String;")
    runnable = await _class(client, "Ljava/lang/Runnable;")
    array_type = await _class(client, "[Ljava/lang/String;")
    methods = (await client.request(ReferenceType.Methods, ref_type=clazz)).declared
    runnable_methods = (await client.request(ReferenceType.Methods, ref_type=runnable)).declared
    fields = (await client.request(ReferenceType.Fields, ref_type=clazz)).declared
    string_fields = (await client.request(ReferenceType.Fields, ref_type=string_class)).declared
    string = (await client.request(VirtualMachine.CreateString, utf="probe")).string_object
    array = (await client.request(ArrayType.NewInstance, arr_type=array_type, length=1)).new_array
    return World(
        thread=main, frame=frame.frame_id,
        group=(await client.request(ThreadReference.ThreadGroup, thread=main)).group,
        string=string, array=int(array.value),
        loader=(await client.request(ReferenceType.ClassLoader, ref_type=clazz)).class_loader,
        class_object=(await client.request(ReferenceType.ClassObject, ref_type=clazz)).class_object,
        module=(await client.request(ReferenceType.Module, ref_type=clazz)).module,
        clazz=clazz, interface=runnable, array_type=array_type,
        method=next(m.method_id for m in methods if m.name == "main"),
        interface_method=next(m.method_id for m in runnable_methods if m.name == "run"),
        static_field=next(f.field_id for f in fields if f.name == "running"),
        string_field=next(f.field_id for f in string_fields if f.name == "hash"))


async def _outcome(vm: Vm, probe: Probe) -> str:
    """What the VM does with the probe, sent raw (the library's own check is bypassed)."""
    command = probe.command
    body = encode(spec_of(command.out), probe.build(vm.world), vm.client.id_sizes, command.name)
    try:
        await vm.client.request_raw(command.command_set, command.command, body)
        outcome = "ok"
    except jdwp.CommandError as exc:
        outcome = exc.error
    except jdwp.CommandTimeout:
        return "hang"
    except jdwp.ConnectionClosed:
        return "crash"
    try:  # still alive? (a crash may close the connection only after the reply)
        await vm.client.request(VirtualMachine.Version, timeout=5)
    except jdwp.CommandTimeout:
        return "hang"
    except jdwp.ConnectionClosed:
        return "crash"
    return outcome


async def run_probes(classes: Path, workdir: Path, probes: list[Probe]) -> dict[str, str]:
    """Every probe's outcome; a VM that crashes or hangs is replaced for the next probe."""
    seen: dict[str, str] = {}
    remaining = list(probes)
    runs = 0
    while remaining:
        runs += 1
        run_dir = workdir / f"vm{runs}"
        run_dir.mkdir()
        async with throwaway_vm(classes, run_dir) as vm:
            while remaining:
                probe = remaining.pop(0)
                seen[probe.name] = await _outcome(vm, probe)
                if seen[probe.name] in ("crash", "hang"):
                    break
    return seen


ALLOWED = {"ExceptionOnly.exception_or_null", "InstanceOnly.instance"}  # the spec's two nulls


def test_the_library_refuses_every_probe_but_the_two_nulls_the_spec_allows() -> None:
    world = World(*range(1, 16))
    for probe in PROBES:
        refused = null_field(probe.command, probe.build(world))
        assert (refused is not None) == (probe.where not in ALLOWED), probe.name
    assert set(SEEN) == {probe.name for probe in PROBES}


async def test_what_the_vm_does_with_each_null(java_classes: Path, tmp_path: Path) -> None:
    """Every null that kills the VM is one the library refuses.

    By default the probes that survived share one VM and two killers get one each. A VM's answer to a null
    can depend on the nulls it took before (``ModuleReference.Name`` is "ok" on a fresh VM, and kills one
    that took the other nulls first), so only ``PYJDWP_NULL_PROBES=all``, which sends every probe in the
    order :data:`SEEN` was recorded in, compares each outcome with it.
    """
    everything = os.environ.get("PYJDWP_NULL_PROBES") == "all"
    if everything:
        chosen = PROBES
    else:
        chosen = [p for p in PROBES if p.name not in KILLERS] + [p for p in PROBES if p.name in SAMPLED_KILLERS]
    with trio.fail_after(600 if everything else 120):
        seen = await run_probes(java_classes, tmp_path, chosen)
    world = World(*range(1, 16))
    for probe in chosen:
        if seen[probe.name] in ("crash", "hang"):
            assert null_field(probe.command, probe.build(world)) is not None, probe.name
    if everything:
        assert seen == SEEN
    else:
        assert [seen[name] for name in SAMPLED_KILLERS] == ["crash", "crash"]
