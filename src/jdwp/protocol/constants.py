"""JDWP constant sets (the specification's "Constants" section), as IntEnums.

Layer: ``jdwp.protocol`` (sans-IO). Imports nothing outside the standard library.
Member names are the specification's names verbatim, so a value prints the way the spec spells it.
"""

from __future__ import annotations

from enum import IntEnum, IntFlag


class ErrorCode(IntEnum):
    """The ``Error`` constant set: the error code of a reply packet."""

    NONE = 0
    INVALID_THREAD = 10
    INVALID_THREAD_GROUP = 11
    INVALID_PRIORITY = 12
    THREAD_NOT_SUSPENDED = 13
    THREAD_SUSPENDED = 14
    THREAD_NOT_ALIVE = 15
    INVALID_OBJECT = 20
    INVALID_CLASS = 21
    CLASS_NOT_PREPARED = 22
    INVALID_METHODID = 23
    INVALID_LOCATION = 24
    INVALID_FIELDID = 25
    INVALID_FRAMEID = 30
    NO_MORE_FRAMES = 31
    OPAQUE_FRAME = 32
    NOT_CURRENT_FRAME = 33
    TYPE_MISMATCH = 34
    INVALID_SLOT = 35
    DUPLICATE = 40
    NOT_FOUND = 41
    INVALID_MODULE = 42
    INVALID_MONITOR = 50
    NOT_MONITOR_OWNER = 51
    INTERRUPT = 52
    INVALID_CLASS_FORMAT = 60
    CIRCULAR_CLASS_DEFINITION = 61
    FAILS_VERIFICATION = 62
    ADD_METHOD_NOT_IMPLEMENTED = 63
    SCHEMA_CHANGE_NOT_IMPLEMENTED = 64
    INVALID_TYPESTATE = 65
    HIERARCHY_CHANGE_NOT_IMPLEMENTED = 66
    DELETE_METHOD_NOT_IMPLEMENTED = 67
    UNSUPPORTED_VERSION = 68
    NAMES_DONT_MATCH = 69
    CLASS_MODIFIERS_CHANGE_NOT_IMPLEMENTED = 70
    METHOD_MODIFIERS_CHANGE_NOT_IMPLEMENTED = 71
    CLASS_ATTRIBUTE_CHANGE_NOT_IMPLEMENTED = 72
    NOT_IMPLEMENTED = 99
    NULL_POINTER = 100
    ABSENT_INFORMATION = 101
    INVALID_EVENT_TYPE = 102
    ILLEGAL_ARGUMENT = 103
    OUT_OF_MEMORY = 110
    ACCESS_DENIED = 111
    VM_DEAD = 112
    INTERNAL = 113
    UNATTACHED_THREAD = 115
    INVALID_TAG = 500
    ALREADY_INVOKING = 502
    INVALID_INDEX = 503
    INVALID_LENGTH = 504
    INVALID_STRING = 506
    INVALID_CLASS_LOADER = 507
    INVALID_ARRAY = 508
    TRANSPORT_LOAD = 509
    TRANSPORT_INIT = 510
    NATIVE_METHOD = 511
    INVALID_COUNT = 512


def error_name(code: int) -> str:
    """The spec's name for an error code, or ``UNKNOWN_ERROR`` for a code the spec does not define."""
    try:
        return ErrorCode(code).name
    except ValueError:
        return "UNKNOWN_ERROR"


class EventKind(IntEnum):
    """The ``EventKind`` constant set (``THREAD_END`` and ``VM_INIT`` are the spec's aliases)."""

    SINGLE_STEP = 1
    BREAKPOINT = 2
    FRAME_POP = 3
    EXCEPTION = 4
    USER_DEFINED = 5
    THREAD_START = 6
    THREAD_DEATH = 7
    THREAD_END = 7
    CLASS_PREPARE = 8
    CLASS_UNLOAD = 9
    CLASS_LOAD = 10
    FIELD_ACCESS = 20
    FIELD_MODIFICATION = 21
    EXCEPTION_CATCH = 30
    METHOD_ENTRY = 40
    METHOD_EXIT = 41
    METHOD_EXIT_WITH_RETURN_VALUE = 42
    MONITOR_CONTENDED_ENTER = 43
    MONITOR_CONTENDED_ENTERED = 44
    MONITOR_WAIT = 45
    MONITOR_WAITED = 46
    VM_START = 90
    VM_INIT = 90
    VM_DEATH = 99
    VM_DISCONNECTED = 100


class ThreadStatus(IntEnum):
    ZOMBIE = 0
    RUNNING = 1
    SLEEPING = 2
    MONITOR = 3
    WAIT = 4


class SuspendStatus(IntEnum):
    NOT_SUSPENDED = 0
    SUSPEND_STATUS_SUSPENDED = 1


class ClassStatus(IntFlag):
    """Bit flags: a prepared class reports ``VERIFIED | PREPARED`` (3)."""

    VERIFIED = 1
    PREPARED = 2
    INITIALIZED = 4
    ERROR = 8


class TypeTag(IntEnum):
    CLASS = 1
    INTERFACE = 2
    ARRAY = 3


class Tag(IntEnum):
    """Value tags: one ASCII byte in front of each tagged value."""

    ARRAY = 91  # '['
    BYTE = 66  # 'B'
    CHAR = 67  # 'C'
    OBJECT = 76  # 'L'
    FLOAT = 70  # 'F'
    DOUBLE = 68  # 'D'
    INT = 73  # 'I'
    LONG = 74  # 'J'
    SHORT = 83  # 'S'
    VOID = 86  # 'V'
    BOOLEAN = 90  # 'Z'
    STRING = 115  # 's'
    THREAD = 116  # 't'
    THREAD_GROUP = 103  # 'g'
    CLASS_LOADER = 108  # 'l'
    CLASS_OBJECT = 99  # 'c'

    @property
    def is_object(self) -> bool:
        """True for the tags whose value is an object ID."""
        return self in OBJECT_TAGS

    @classmethod
    def for_signature(cls, signature: str) -> Tag:
        """The tag for a JNI type signature (``"I"``, ``"Ljava/lang/String;"``, ``"[I"``).

        Object types map to ``OBJECT`` or ``ARRAY``; the VM refines them (``STRING``, ``THREAD``…) in replies.
        """
        if not signature:
            raise ValueError("empty type signature")
        return cls(ord(signature[0]))


OBJECT_TAGS = frozenset(
    {Tag.ARRAY, Tag.OBJECT, Tag.STRING, Tag.THREAD, Tag.THREAD_GROUP, Tag.CLASS_LOADER, Tag.CLASS_OBJECT}
)


class StepDepth(IntEnum):
    INTO = 0
    OVER = 1
    OUT = 2


class StepSize(IntEnum):
    MIN = 0
    LINE = 1


class SuspendPolicy(IntEnum):
    NONE = 0
    EVENT_THREAD = 1
    ALL = 2


class InvokeOptions(IntEnum):
    INVOKE_SINGLE_THREADED = 1
    INVOKE_NONVIRTUAL = 2


class ModKind(IntEnum):
    """``EventRequest.Set`` modifier kinds (not a named constant set in the spec; the numbers are)."""

    Count = 1
    Conditional = 2
    ThreadOnly = 3
    ClassOnly = 4
    ClassMatch = 5
    ClassExclude = 6
    LocationOnly = 7
    ExceptionOnly = 8
    FieldOnly = 9
    Step = 10
    InstanceOnly = 11
    SourceNameMatch = 12
    PlatformThreadsOnly = 13


# Modifier bits: the ``modBits`` of ``ReferenceType.Fields`` (2,4), ``Methods`` (2,5) and ``Modifiers`` (2,3),
# "as defined in Chapter 4 of The Java Virtual Machine Specification" (JVMS §4.1 classes, §4.5 fields, §4.6
# methods), plus JDWP's own synthetic bit for methods. Plain ints, the one home of these numbers: they are
# tested on every field of every class read. :class:`AccessFlags` names the same bits for people.
ACC_PUBLIC = 0x0001
ACC_PRIVATE = 0x0002
ACC_PROTECTED = 0x0004
ACC_STATIC = 0x0008
ACC_FINAL = 0x0010
ACC_SYNCHRONIZED = 0x0020  # ACC_SUPER on a class
ACC_VOLATILE = 0x0040  # ACC_BRIDGE on a method
ACC_BRIDGE = 0x0040
ACC_TRANSIENT = 0x0080  # ACC_VARARGS on a method
ACC_VARARGS = 0x0080
ACC_NATIVE = 0x0100
ACC_INTERFACE = 0x0200
ACC_ABSTRACT = 0x0400
ACC_STRICT = 0x0800
ACC_SYNTHETIC = 0x1000
ACC_ANNOTATION = 0x2000
ACC_ENUM = 0x4000
#: JDWP marks a synthetic method with this bit of its modBits where the class file has no ACC_SYNTHETIC
#: (ReferenceType.Methods 2,5: "if present, it is set in the JDWP modifier bits as 0xf0000000").
JDWP_SYNTHETIC = 0xF0000000


class AccessFlags(IntFlag):
    """The modifier bits of a class, field or method (``mod_bits``; see ``MethodInfo.modifiers``).

    One bit means different things on fields and methods (``VOLATILE``/``BRIDGE``, ``TRANSIENT``/``VARARGS``);
    both names are members of the same value. Bits no member names are kept.
    """

    PUBLIC = ACC_PUBLIC
    PRIVATE = ACC_PRIVATE
    PROTECTED = ACC_PROTECTED
    STATIC = ACC_STATIC
    FINAL = ACC_FINAL
    SYNCHRONIZED = ACC_SYNCHRONIZED
    VOLATILE = ACC_VOLATILE
    BRIDGE = ACC_BRIDGE
    TRANSIENT = ACC_TRANSIENT
    VARARGS = ACC_VARARGS
    NATIVE = ACC_NATIVE
    INTERFACE = ACC_INTERFACE
    ABSTRACT = ACC_ABSTRACT
    STRICT = ACC_STRICT
    SYNTHETIC = ACC_SYNTHETIC
    ANNOTATION = ACC_ANNOTATION
    ENUM = ACC_ENUM
    JDWP_SYNTHETIC = JDWP_SYNTHETIC
