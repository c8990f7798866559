"""The pieces issue 27 made one of: an object value's ID, the ID shapes, exception-group unwrapping."""

from __future__ import annotations

import pytest

from jdwp._groups import unwrap
from jdwp.debugger.ids import split_id
from jdwp.protocol.constants import Tag
from jdwp.protocol.values import Value


def test_an_object_values_id_is_typed_and_a_primitive_has_none() -> None:
    assert Value(Tag.OBJECT, 0x1F).object_id == 0x1F and Value.null().object_id == 0
    assert Value(Tag.STRING, 7).object_id == 7
    for primitive in (Value(Tag.INT, 3), Value(Tag.BOOLEAN, True), Value(Tag.DOUBLE, 1.0)):
        with pytest.raises(TypeError, match="no object ID"):
            primitive.object_id  # noqa: B018 - the property raises


def test_every_id_shape_reads_the_same_way() -> None:
    assert split_id("s3-obj-12", "obj") == ("s3-", 12)
    assert split_id("stop-4.t1f.f0", "stop") == ("", 4)
    assert split_id("bp-9", "obj") is None and split_id("obj-0", "obj") is None


def test_unwrap_hands_back_the_one_failure() -> None:
    mine = ValueError("the caller's")
    assert unwrap(BaseExceptionGroup("", [mine])) is mine
    several = BaseExceptionGroup("", [ValueError(), KeyError()])
    assert unwrap(several) is several
    own_group = ExceptionGroup("the caller's own", [ValueError()])
    assert unwrap(BaseExceptionGroup("", [own_group])) is own_group  # handed back as it was
    first = KeyError("first")
    nested = BaseExceptionGroup("", [KeyboardInterrupt(), BaseExceptionGroup("", [first, ValueError()])])
    assert unwrap(nested, ignore=(KeyboardInterrupt,), first=True) is first
    cancelled = BaseExceptionGroup("", [KeyboardInterrupt()])
    assert unwrap(cancelled, ignore=(KeyboardInterrupt,), first=True) is cancelled
