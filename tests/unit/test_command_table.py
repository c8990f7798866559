"""The command table and the constant sets against the JDWP specification's own numbers.

The expected data below is copied by hand from the JDWP specification (OpenJDK's
``src/java.se/share/data/jdwp/jdwp.spec``, the source of ``jdwp-protocol.html``; JDWP 21: command sets
1-18 and 64, ``ThreadReference.IsVirtual`` and the ``PlatformThreadsOnly`` modifier included). Set 199
is Android's DDM channel (ART's ``kJDWPDdmCmdSet``/``kJDWPDdmCmd``). Nothing here is read from the
implementation or parsed from a spec file at run time.
"""

from __future__ import annotations

import dataclasses

import pytest

from jdwp.protocol import constants
from jdwp.protocol.commands import ALL_COMMANDS, BY_ID, BY_NAME, COMMAND_SETS, Command
from jdwp.protocol.commands.events import EVENT_CLASSES, ModifierSpec
from jdwp.protocol.constants import (
    ClassStatus,
    ErrorCode,
    EventKind,
    InvokeOptions,
    ModKind,
    StepDepth,
    StepSize,
    SuspendPolicy,
    Tag,
    ThreadStatus,
    TypeTag,
)
from jdwp.protocol.errors import (
    AbsentInformation,
    CommandError,
    InvalidThread,
    ThreadNotSuspended,
    VmDead,
)

# (command set, command, "Set.Command") for every command of the specification.
SPEC_COMMANDS: list[tuple[int, int, str]] = [
    (1, 1, "VirtualMachine.Version"),
    (1, 2, "VirtualMachine.ClassesBySignature"),
    (1, 3, "VirtualMachine.AllClasses"),
    (1, 4, "VirtualMachine.AllThreads"),
    (1, 5, "VirtualMachine.TopLevelThreadGroups"),
    (1, 6, "VirtualMachine.Dispose"),
    (1, 7, "VirtualMachine.IDSizes"),
    (1, 8, "VirtualMachine.Suspend"),
    (1, 9, "VirtualMachine.Resume"),
    (1, 10, "VirtualMachine.Exit"),
    (1, 11, "VirtualMachine.CreateString"),
    (1, 12, "VirtualMachine.Capabilities"),
    (1, 13, "VirtualMachine.ClassPaths"),
    (1, 14, "VirtualMachine.DisposeObjects"),
    (1, 15, "VirtualMachine.HoldEvents"),
    (1, 16, "VirtualMachine.ReleaseEvents"),
    (1, 17, "VirtualMachine.CapabilitiesNew"),
    (1, 18, "VirtualMachine.RedefineClasses"),
    (1, 19, "VirtualMachine.SetDefaultStratum"),
    (1, 20, "VirtualMachine.AllClassesWithGeneric"),
    (1, 21, "VirtualMachine.InstanceCounts"),
    (1, 22, "VirtualMachine.AllModules"),
    (2, 1, "ReferenceType.Signature"),
    (2, 2, "ReferenceType.ClassLoader"),
    (2, 3, "ReferenceType.Modifiers"),
    (2, 4, "ReferenceType.Fields"),
    (2, 5, "ReferenceType.Methods"),
    (2, 6, "ReferenceType.GetValues"),
    (2, 7, "ReferenceType.SourceFile"),
    (2, 8, "ReferenceType.NestedTypes"),
    (2, 9, "ReferenceType.Status"),
    (2, 10, "ReferenceType.Interfaces"),
    (2, 11, "ReferenceType.ClassObject"),
    (2, 12, "ReferenceType.SourceDebugExtension"),
    (2, 13, "ReferenceType.SignatureWithGeneric"),
    (2, 14, "ReferenceType.FieldsWithGeneric"),
    (2, 15, "ReferenceType.MethodsWithGeneric"),
    (2, 16, "ReferenceType.Instances"),
    (2, 17, "ReferenceType.ClassFileVersion"),
    (2, 18, "ReferenceType.ConstantPool"),
    (2, 19, "ReferenceType.Module"),
    (3, 1, "ClassType.Superclass"),
    (3, 2, "ClassType.SetValues"),
    (3, 3, "ClassType.InvokeMethod"),
    (3, 4, "ClassType.NewInstance"),
    (4, 1, "ArrayType.NewInstance"),
    (5, 1, "InterfaceType.InvokeMethod"),
    (6, 1, "Method.LineTable"),
    (6, 2, "Method.VariableTable"),
    (6, 3, "Method.Bytecodes"),
    (6, 4, "Method.IsObsolete"),
    (6, 5, "Method.VariableTableWithGeneric"),
    # Field (8) is a command set with no commands.
    (9, 1, "ObjectReference.ReferenceType"),
    (9, 2, "ObjectReference.GetValues"),
    (9, 3, "ObjectReference.SetValues"),
    # ObjectReference has no command 4.
    (9, 5, "ObjectReference.MonitorInfo"),
    (9, 6, "ObjectReference.InvokeMethod"),
    (9, 7, "ObjectReference.DisableCollection"),
    (9, 8, "ObjectReference.EnableCollection"),
    (9, 9, "ObjectReference.IsCollected"),
    (9, 10, "ObjectReference.ReferringObjects"),
    (10, 1, "StringReference.Value"),
    (11, 1, "ThreadReference.Name"),
    (11, 2, "ThreadReference.Suspend"),
    (11, 3, "ThreadReference.Resume"),
    (11, 4, "ThreadReference.Status"),
    (11, 5, "ThreadReference.ThreadGroup"),
    (11, 6, "ThreadReference.Frames"),
    (11, 7, "ThreadReference.FrameCount"),
    (11, 8, "ThreadReference.OwnedMonitors"),
    (11, 9, "ThreadReference.CurrentContendedMonitor"),
    (11, 10, "ThreadReference.Stop"),
    (11, 11, "ThreadReference.Interrupt"),
    (11, 12, "ThreadReference.SuspendCount"),
    (11, 13, "ThreadReference.OwnedMonitorsStackDepthInfo"),
    (11, 14, "ThreadReference.ForceEarlyReturn"),
    (11, 15, "ThreadReference.IsVirtual"),
    (12, 1, "ThreadGroupReference.Name"),
    (12, 2, "ThreadGroupReference.Parent"),
    (12, 3, "ThreadGroupReference.Children"),
    (13, 1, "ArrayReference.Length"),
    (13, 2, "ArrayReference.GetValues"),
    (13, 3, "ArrayReference.SetValues"),
    (14, 1, "ClassLoaderReference.VisibleClasses"),
    (15, 1, "EventRequest.Set"),
    (15, 2, "EventRequest.Clear"),
    (15, 3, "EventRequest.ClearAllBreakpoints"),
    (16, 1, "StackFrame.GetValues"),
    (16, 2, "StackFrame.SetValues"),
    (16, 3, "StackFrame.ThisObject"),
    (16, 4, "StackFrame.PopFrames"),
    (17, 1, "ClassObjectReference.ReflectedType"),
    (18, 1, "ModuleReference.Name"),
    (18, 2, "ModuleReference.ClassLoader"),
    (64, 100, "Event.Composite"),
    (199, 1, "DDM.Chunk"),
]

# The spec's command set names and numbers ("(CommandSet VirtualMachine=1" …); Field=8 is empty.
SPEC_SETS: dict[int, str] = {
    1: "VirtualMachine", 2: "ReferenceType", 3: "ClassType", 4: "ArrayType", 5: "InterfaceType", 6: "Method",
    8: "Field", 9: "ObjectReference", 10: "StringReference", 11: "ThreadReference", 12: "ThreadGroupReference",
    13: "ArrayReference", 14: "ClassLoaderReference", 15: "EventRequest", 16: "StackFrame",
    17: "ClassObjectReference", 18: "ModuleReference", 64: "Event", 199: "DDM",
}

SPEC_ERRORS: dict[str, int] = {
    "NONE": 0, "INVALID_THREAD": 10, "INVALID_THREAD_GROUP": 11, "INVALID_PRIORITY": 12,
    "THREAD_NOT_SUSPENDED": 13, "THREAD_SUSPENDED": 14, "THREAD_NOT_ALIVE": 15, "INVALID_OBJECT": 20,
    "INVALID_CLASS": 21, "CLASS_NOT_PREPARED": 22, "INVALID_METHODID": 23, "INVALID_LOCATION": 24,
    "INVALID_FIELDID": 25, "INVALID_FRAMEID": 30, "NO_MORE_FRAMES": 31, "OPAQUE_FRAME": 32,
    "NOT_CURRENT_FRAME": 33, "TYPE_MISMATCH": 34, "INVALID_SLOT": 35, "DUPLICATE": 40, "NOT_FOUND": 41,
    "INVALID_MODULE": 42, "INVALID_MONITOR": 50, "NOT_MONITOR_OWNER": 51, "INTERRUPT": 52,
    "INVALID_CLASS_FORMAT": 60, "CIRCULAR_CLASS_DEFINITION": 61, "FAILS_VERIFICATION": 62,
    "ADD_METHOD_NOT_IMPLEMENTED": 63, "SCHEMA_CHANGE_NOT_IMPLEMENTED": 64, "INVALID_TYPESTATE": 65,
    "HIERARCHY_CHANGE_NOT_IMPLEMENTED": 66, "DELETE_METHOD_NOT_IMPLEMENTED": 67, "UNSUPPORTED_VERSION": 68,
    "NAMES_DONT_MATCH": 69, "CLASS_MODIFIERS_CHANGE_NOT_IMPLEMENTED": 70,
    "METHOD_MODIFIERS_CHANGE_NOT_IMPLEMENTED": 71, "CLASS_ATTRIBUTE_CHANGE_NOT_IMPLEMENTED": 72,
    "NOT_IMPLEMENTED": 99, "NULL_POINTER": 100, "ABSENT_INFORMATION": 101, "INVALID_EVENT_TYPE": 102,
    "ILLEGAL_ARGUMENT": 103, "OUT_OF_MEMORY": 110, "ACCESS_DENIED": 111, "VM_DEAD": 112, "INTERNAL": 113,
    "UNATTACHED_THREAD": 115, "INVALID_TAG": 500, "ALREADY_INVOKING": 502, "INVALID_INDEX": 503,
    "INVALID_LENGTH": 504, "INVALID_STRING": 506, "INVALID_CLASS_LOADER": 507, "INVALID_ARRAY": 508,
    "TRANSPORT_LOAD": 509, "TRANSPORT_INIT": 510, "NATIVE_METHOD": 511, "INVALID_COUNT": 512,
}

SPEC_EVENT_KINDS: dict[str, int] = {
    "SINGLE_STEP": 1, "BREAKPOINT": 2, "FRAME_POP": 3, "EXCEPTION": 4, "USER_DEFINED": 5, "THREAD_START": 6,
    "THREAD_DEATH": 7, "THREAD_END": 7, "CLASS_PREPARE": 8, "CLASS_UNLOAD": 9, "CLASS_LOAD": 10,
    "FIELD_ACCESS": 20, "FIELD_MODIFICATION": 21, "EXCEPTION_CATCH": 30, "METHOD_ENTRY": 40, "METHOD_EXIT": 41,
    "METHOD_EXIT_WITH_RETURN_VALUE": 42, "MONITOR_CONTENDED_ENTER": 43, "MONITOR_CONTENDED_ENTERED": 44,
    "MONITOR_WAIT": 45, "MONITOR_WAITED": 46, "VM_START": 90, "VM_INIT": 90, "VM_DEATH": 99,
    "VM_DISCONNECTED": 100,
}

SPEC_TAGS: dict[str, str] = {
    "ARRAY": "[", "BYTE": "B", "CHAR": "C", "OBJECT": "L", "FLOAT": "F", "DOUBLE": "D", "INT": "I", "LONG": "J",
    "SHORT": "S", "VOID": "V", "BOOLEAN": "Z", "STRING": "s", "THREAD": "t", "THREAD_GROUP": "g",
    "CLASS_LOADER": "l", "CLASS_OBJECT": "c",
}

SPEC_SMALL_SETS: list[tuple[type, dict[str, int]]] = [
    (TypeTag, {"CLASS": 1, "INTERFACE": 2, "ARRAY": 3}),
    (SuspendPolicy, {"NONE": 0, "EVENT_THREAD": 1, "ALL": 2}),
    (StepDepth, {"INTO": 0, "OVER": 1, "OUT": 2}),
    (StepSize, {"MIN": 0, "LINE": 1}),
    (ThreadStatus, {"ZOMBIE": 0, "RUNNING": 1, "SLEEPING": 2, "MONITOR": 3, "WAIT": 4}),
    (ClassStatus, {"VERIFIED": 1, "PREPARED": 2, "INITIALIZED": 4, "ERROR": 8}),
    (InvokeOptions, {"INVOKE_SINGLE_THREADED": 1, "INVOKE_NONVIRTUAL": 2}),
]

# EventRequest.Set "(Alt Count=1" … "(Alt PlatformThreadsOnly=13".
SPEC_MOD_KINDS: dict[str, int] = {
    "Count": 1, "Conditional": 2, "ThreadOnly": 3, "ClassOnly": 4, "ClassMatch": 5, "ClassExclude": 6,
    "LocationOnly": 7, "ExceptionOnly": 8, "FieldOnly": 9, "Step": 10, "InstanceOnly": 11,
    "SourceNameMatch": 12, "PlatformThreadsOnly": 13,
}

# Event.Composite "(Alt VMStart=JDWP.EventKind.VM_START" …: the event kinds a composite can carry.
SPEC_COMPOSITE_KINDS: dict[str, int] = {
    "VMStart": 90, "SingleStep": 1, "Breakpoint": 2, "MethodEntry": 40, "MethodExit": 41,
    "MethodExitWithReturnValue": 42, "MonitorContendedEnter": 43, "MonitorContendedEntered": 44,
    "MonitorWait": 45, "MonitorWaited": 46, "Exception": 4, "ThreadStart": 6, "ThreadDeath": 7,
    "ClassPrepare": 8, "ClassUnload": 9, "FieldAccess": 20, "FieldModification": 21, "VMDeath": 99,
}


def test_the_literal_table_has_no_duplicates() -> None:
    keys = [(s, c) for s, c, _ in SPEC_COMMANDS]
    names = [n for _, _, n in SPEC_COMMANDS]
    assert len(set(keys)) == len(keys) == len(set(names))


def test_by_id_matches_the_spec_both_ways() -> None:
    expected = {(s, c): name for s, c, name in SPEC_COMMANDS}
    actual = {key: cmd.name for key, cmd in BY_ID.items()}
    assert sorted(set(expected) - set(actual)) == [], "commands missing from BY_ID"
    assert sorted(set(actual) - set(expected)) == [], "commands in BY_ID that the spec does not have"
    assert actual == expected


def test_by_name_matches_the_spec_both_ways() -> None:
    expected = {name: (s, c) for s, c, name in SPEC_COMMANDS}
    actual = {name: cmd.key for name, cmd in BY_NAME.items()}
    assert sorted(set(expected) - set(actual)) == []
    assert sorted(set(actual) - set(expected)) == []
    assert actual == expected


def test_all_commands_is_the_same_set_sorted() -> None:
    assert [cmd.key for cmd in ALL_COMMANDS] == sorted((s, c) for s, c, _ in SPEC_COMMANDS)
    assert all(isinstance(cmd, Command) for cmd in ALL_COMMANDS)
    assert all(BY_ID[cmd.key] is cmd and BY_NAME[cmd.name] is cmd for cmd in ALL_COMMANDS)


def test_command_sets_are_named_and_numbered_as_in_the_spec() -> None:
    assert set(COMMAND_SETS) == set(SPEC_SETS)
    for number, name in SPEC_SETS.items():
        commands = [cmd for cmd in ALL_COMMANDS if cmd.command_set == number]
        assert all(cmd.name.split(".")[0] == name for cmd in commands), name
    assert [cmd for cmd in ALL_COMMANDS if cmd.command_set == 8] == []  # Field has no commands


@pytest.mark.parametrize(("number", "name"), sorted(SPEC_SETS.items()))
def test_namespace_attributes_are_the_command_names(number: int, name: str) -> None:
    namespace = COMMAND_SETS[number]
    for attr, value in vars(namespace).items():
        if isinstance(value, Command):
            assert value.name == f"{name}.{attr}"


def test_command_is_frozen_and_repr_names_it() -> None:
    cmd = BY_NAME["ThreadReference.Frames"]
    assert repr(cmd) == "<Command ThreadReference.Frames (11,6)>"
    with pytest.raises(dataclasses.FrozenInstanceError):
        cmd.command = 7  # type: ignore[misc]


def test_error_codes_match_the_spec() -> None:
    assert {e.name: e.value for e in ErrorCode} == SPEC_ERRORS


def test_error_names_and_command_error_text() -> None:
    assert constants.error_name(13) == "THREAD_NOT_SUSPENDED"
    assert constants.error_name(1) == "UNKNOWN_ERROR"
    err = CommandError.for_code("ThreadReference.Frames", 13)
    assert type(err) is ThreadNotSuspended
    assert str(err) == "ThreadReference.Frames failed: THREAD_NOT_SUSPENDED (13)"
    assert (err.command, err.code, err.error) == ("ThreadReference.Frames", 13, "THREAD_NOT_SUSPENDED")
    assert type(CommandError.for_code("x", 10)) is InvalidThread
    assert type(CommandError.for_code("x", 101)) is AbsentInformation
    assert type(CommandError.for_code("x", 112)) is VmDead
    assert type(CommandError.for_code("x", 34)) is CommandError
    assert str(CommandError.for_code("VirtualMachine.Version", 7)) == "VirtualMachine.Version failed: UNKNOWN_ERROR (7)"


def test_command_error_pickles_with_its_class() -> None:
    import pickle

    err = pickle.loads(pickle.dumps(CommandError.for_code("StackFrame.GetValues", 35)))
    assert (type(err), err.command, err.code, str(err)) == (
        CommandError, "StackFrame.GetValues", 35, "StackFrame.GetValues failed: INVALID_SLOT (35)")
    err = pickle.loads(pickle.dumps(CommandError.for_code("ThreadReference.Name", 10)))
    assert type(err) is InvalidThread


def test_event_kinds_match_the_spec() -> None:
    # IntEnum aliases (THREAD_END, VM_INIT) only show up in __members__.
    assert {name: member.value for name, member in EventKind.__members__.items()} == SPEC_EVENT_KINDS


def test_tags_match_the_spec() -> None:
    assert {t.name: chr(t.value) for t in Tag} == SPEC_TAGS
    assert {t for t in Tag if t.is_object} == {Tag.ARRAY, Tag.OBJECT, Tag.STRING, Tag.THREAD, Tag.THREAD_GROUP,
                                               Tag.CLASS_LOADER, Tag.CLASS_OBJECT}


@pytest.mark.parametrize(("enum", "expected"), SPEC_SMALL_SETS, ids=lambda x: getattr(x, "__name__", ""))
def test_small_constant_sets_match_the_spec(enum: type, expected: dict[str, int]) -> None:
    assert {name: member.value for name, member in enum.__members__.items()} == expected


def test_suspend_status_suspended_is_one() -> None:
    assert constants.SuspendStatus.SUSPEND_STATUS_SUSPENDED == 1


def test_modifier_kinds_match_the_spec() -> None:
    assert {m.name: m.value for m in ModKind} == SPEC_MOD_KINDS
    # …and the EventRequest.Set modifier union carries exactly those kinds, each on the class of that name.
    assert {cls.__name__: kind for kind, cls in ModifierSpec._variants.items()} == SPEC_MOD_KINDS


def test_composite_event_kinds_match_the_spec() -> None:
    by_kind = {cls.KIND: cls.__name__.removesuffix("Event") for cls in EVENT_CLASSES}
    assert by_kind == {kind: name for name, kind in SPEC_COMPOSITE_KINDS.items()}
