"""The library refuses exactly the null IDs the JDWP specification does not allow (``jdwp.protocol.nulls``).

The table below is the specification's, written as plain data: every object and reference-type ID a debugger
sends, none of which may be null, but for the two modifiers whose text allows it. What a real VM does with
each null is ``tests/live/test_null_ids_live.py``'s business (HotSpot dies on many of them).
"""

from __future__ import annotations

import dataclasses
import pickle
from typing import Any

import pytest

import jdwp
from jdwp.protocol.commands import ALL_COMMANDS, EventRequest, StringReference, VirtualMachine
from jdwp.protocol.commands.events import (
    ClassOnly,
    Count,
    ExceptionOnly,
    FieldOnly,
    InstanceOnly,
    LocationOnly,
    SetOut,
    Step,
    ThreadOnly,
)
from jdwp.protocol.commands.vm import ClassDef, DisposeObjectsOut, ObjectRefCount
from jdwp.protocol.constants import Tag
from jdwp.protocol.errors import JdwpError, NullIdError, UsageError
from jdwp.protocol.nulls import null_field
from jdwp.protocol.types import HOTSPOT_64, Location
from jdwp.protocol.values import Value

_REFERENCE_TYPE = ("Signature", "ClassLoader", "Modifiers", "Fields", "Methods", "GetValues", "SourceFile",
                   "NestedTypes", "Status", "Interfaces", "ClassObject", "SourceDebugExtension",
                   "SignatureWithGeneric", "FieldsWithGeneric", "MethodsWithGeneric", "Instances",
                   "ClassFileVersion", "ConstantPool", "Module")
_THREAD = ("Name", "Suspend", "Resume", "Status", "ThreadGroup", "Frames", "FrameCount", "OwnedMonitors",
           "CurrentContendedMonitor", "Interrupt", "SuspendCount", "OwnedMonitorsStackDepthInfo",
           "ForceEarlyReturn", "IsVirtual")
_OBJECT = ("ReferenceType", "GetValues", "SetValues", "MonitorInfo", "DisableCollection", "EnableCollection",
           "IsCollected", "ReferringObjects")

#: Per command, the top-level out-data fields that must not be null (the JDWP specification's text).
NOT_NULL: dict[str, set[str]] = {
    **{f"ReferenceType.{name}": {"ref_type"} for name in _REFERENCE_TYPE},
    "ClassType.Superclass": {"clazz"},
    "ClassType.SetValues": {"clazz"},
    "ClassType.InvokeMethod": {"clazz", "thread"},
    "ClassType.NewInstance": {"clazz", "thread"},
    "ArrayType.NewInstance": {"arr_type"},
    "InterfaceType.InvokeMethod": {"clazz", "thread"},
    **{f"Method.{name}": {"ref_type"} for name in ("LineTable", "VariableTable", "Bytecodes", "IsObsolete",
                                                   "VariableTableWithGeneric")},
    **{f"ObjectReference.{name}": {"object"} for name in _OBJECT},
    "ObjectReference.InvokeMethod": {"object", "thread", "clazz"},
    "StringReference.Value": {"string_object"},
    **{f"ThreadReference.{name}": {"thread"} for name in _THREAD},
    "ThreadReference.Stop": {"thread", "throwable"},
    **{f"ThreadGroupReference.{name}": {"group"} for name in ("Name", "Parent", "Children")},
    **{f"ArrayReference.{name}": {"array_object"} for name in ("Length", "GetValues", "SetValues")},
    "ClassLoaderReference.VisibleClasses": {"class_loader_object"},
    **{f"StackFrame.{name}": {"thread"} for name in ("GetValues", "SetValues", "ThisObject", "PopFrames")},
    "ClassObjectReference.ReflectedType": {"class_object"},
    "ModuleReference.Name": {"module"},
    "ModuleReference.ClassLoader": {"module"},
}


def _filled(cls: type) -> Any:
    """An out-data record of ``cls`` with every field set to something that is not null."""
    values: dict[str, Any] = {}
    for field in dataclasses.fields(cls):
        kind = str(field.type)
        if kind.startswith("list["):
            values[field.name] = []
        elif kind == "str":
            values[field.name] = "x"
        elif kind == "bool":
            values[field.name] = True
        elif kind == "Value":
            values[field.name] = Value(Tag.INT, 1)
        elif kind == "Location":
            values[field.name] = Location(1, 7, 7, 0)
        else:  # every ID, and every int
            values[field.name] = 7
    return cls(**values)


def _id_fields(cls: type) -> list[str]:
    return [field.name for field in dataclasses.fields(cls) if str(field.type).endswith("Id")]


SENT = [cmd for cmd in ALL_COMMANDS if cmd.command_set < 64]


@pytest.mark.parametrize("cmd", SENT, ids=lambda cmd: cmd.name)
def test_each_id_of_a_command_is_refused_null_exactly_where_the_spec_says_so(cmd: Any) -> None:
    assert null_field(cmd, _filled(cmd.out)) is None
    refused = set()
    for name in _id_fields(cmd.out):  # object and reference-type IDs; method, field and frame IDs are not nulls
        out = dataclasses.replace(_filled(cmd.out), **{name: 0})
        if null_field(cmd, out) is not None:
            assert null_field(cmd, out) == name
            with pytest.raises(NullIdError) as refusal:
                cmd.encode_out(out, HOTSPOT_64)
            assert (refusal.value.command, refusal.value.field) == (cmd.name, name)
            refused.add(name)
        else:
            cmd.encode_out(out, HOTSPOT_64)
    assert refused == NOT_NULL.get(cmd.name, set())


def test_every_command_of_the_table_is_one_the_library_sends() -> None:
    assert set(NOT_NULL) <= {cmd.name for cmd in SENT}


@pytest.mark.parametrize("modifier, path", [
    (ThreadOnly(0), "modifiers[1] ThreadOnly.thread"),
    (ClassOnly(0), "modifiers[1] ClassOnly.clazz"),
    (LocationOnly(Location(1, 0, 7, 0)), "modifiers[1] LocationOnly.loc.class_id"),
    (FieldOnly(0, 7), "modifiers[1] FieldOnly.declaring"),
    (Step(0, 1, 1), "modifiers[1] Step.thread"),
])
def test_a_modifier_with_a_null_the_spec_does_not_allow_is_refused(modifier: Any, path: str) -> None:
    out = SetOut(2, 2, [Count(1), modifier])
    assert null_field(EventRequest.Set, out) == path
    with pytest.raises(NullIdError, match=r"EventRequest\.Set: modifiers"):
        EventRequest.Set.encode_out(out, HOTSPOT_64)


def test_the_two_nulls_the_spec_allows_are_sent() -> None:
    # "Null (0) means report exceptions of all types"; "the null object for static methods".
    out = SetOut(4, 2, [ExceptionOnly(0, True, True), InstanceOnly(0)])
    assert null_field(EventRequest.Set, out) is None
    assert EventRequest.Set.encode_out(out, HOTSPOT_64)


def test_a_null_in_a_list_and_in_a_mapping_is_refused() -> None:
    counts = VirtualMachine.InstanceCounts.out([3, 0])
    assert null_field(VirtualMachine.InstanceCounts, counts) == "ref_types[1]"
    redefine = VirtualMachine.RedefineClasses.out([ClassDef(0, b"")])
    assert null_field(VirtualMachine.RedefineClasses, redefine) == "classes[0].ref_type"
    dispose = DisposeObjectsOut([ObjectRefCount(5, 1), ObjectRefCount(0, 1)])
    assert null_field(VirtualMachine.DisposeObjects, dispose) == "requests[1].object"
    with pytest.raises(NullIdError):
        VirtualMachine.DisposeObjects.encode_out(dispose, HOTSPOT_64)
    with pytest.raises(NullIdError):
        StringReference.Value.encode_out({"string_object": 0}, HOTSPOT_64)  # type: ignore[arg-type]


def test_the_error_is_a_usage_error_that_reads_well_and_pickles() -> None:
    with pytest.raises(NullIdError) as refusal:
        StringReference.Value.encode_out(StringReference.Value.out(0), HOTSPOT_64)
    error = refusal.value
    assert isinstance(error, UsageError) and isinstance(error, JdwpError) and jdwp.NullIdError is NullIdError
    assert str(error) == ("StringReference.Value: string_object is a null ID (0), which the JDWP specification "
                          "does not allow here; nothing was sent")
    again = pickle.loads(pickle.dumps(error))
    assert type(again) is NullIdError and str(again) == str(error)
