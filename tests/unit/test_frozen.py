"""``_frozen.maker``: the decoders' constructor makes objects no one can tell from ``cls(...)``.

It fills a twin class's slots and then assigns ``__class__``; these tests pin down that the result is a
normal instance in every way a caller can observe (type, equality, hash, repr, frozenness, ``replace``,
copy and pickle), and that it refuses classes it cannot make faithfully.
"""

from __future__ import annotations

import copy
import dataclasses
import pickle
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import HOTSPOT, for_record

from jdwp.protocol._frozen import fast_init, maker
from jdwp.protocol.commands.events import BreakpointEvent, ClassPrepareEvent, Composite
from jdwp.protocol.commands.threads import Frame
from jdwp.protocol.commands.vm import GenericClassInfo
from jdwp.protocol.types import Location
from jdwp.protocol.values import Value

FLAT = [Location, BreakpointEvent, ClassPrepareEvent, Composite, Frame, GenericClassInfo, Value]


def _same_in_every_way(made: Any, built: Any) -> None:
    assert type(made) is type(built)
    assert made == built and not made != built
    assert hash(made) == hash(built)
    assert repr(made) == repr(built)
    assert copy.copy(made) == built and copy.deepcopy(made) == built
    assert pickle.loads(pickle.dumps(made)) == built
    assert not hasattr(made, "__dict__")
    name = dataclasses.fields(made)[0].name
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(made, name, 0)
    assert dataclasses.replace(made) == built


def _hashable(obj: Any) -> Any:
    """Composite holds a list, which a frozen dataclass cannot hash; compare it with a tuple instead."""
    return dataclasses.replace(obj, events=tuple(obj.events)) if isinstance(obj, Composite) else obj


@pytest.mark.parametrize("cls", FLAT, ids=lambda cls: cls.__name__)
@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_a_made_record_is_the_record(cls: type, data: st.DataObject) -> None:
    built = data.draw(for_record(cls, HOTSPOT)) if cls is not Value else Value.null()
    made = maker(cls)(*[getattr(built, f.name) for f in dataclasses.fields(built)])
    _same_in_every_way(_hashable(made), _hashable(built))


def test_a_nested_maker_takes_the_inner_fields_flat() -> None:
    make = maker(Frame, location=Location)
    _same_in_every_way(make(7, 1, 2, 3, 4), Frame(7, Location(1, 2, 3, 4)))
    assert type(make(7, 1, 2, 3, 4).location) is Location
    with pytest.raises(TypeError, match="no fields"):
        maker(Frame, place=Location)


def test_classes_a_maker_cannot_make_faithfully_are_refused() -> None:
    @dataclasses.dataclass(frozen=True)
    class Unslotted:
        a: int

    @dataclasses.dataclass(frozen=True, slots=True)
    class Checked:
        a: int

        def __post_init__(self) -> None:
            if self.a < 0:
                raise ValueError("negative")

    @fast_init
    @dataclasses.dataclass(frozen=True, slots=True)
    class Base:
        a: int

    @dataclasses.dataclass(frozen=True, slots=True)
    class Derived(Base):
        b: int

    for cls in (Unslotted, Checked, Derived):
        with pytest.raises(TypeError):
            maker(cls)
    assert maker(Base)(1) == Base(1)
