"""fast_constructor builds the same frozen objects as the dataclass's own constructor."""

from __future__ import annotations

import dataclasses

import pytest

from tokenpilot.frozen import fast_constructor
from tokenpilot.policy.view import InstanceView, make_view


def test_same_object_as_the_constructor_and_still_frozen() -> None:
    values = {f.name: i for i, f in enumerate(dataclasses.fields(InstanceView))}
    values.update(name="a", gpu="h100", model="m", healthy=False, cached_prefixes=frozenset({3}),
                  labels=("long",))
    v = make_view(**values)
    assert type(v) is InstanceView
    assert v == InstanceView(**values)
    assert make_view(*values.values()) == v  # by position too
    with pytest.raises(dataclasses.FrozenInstanceError):
        v.num_running = 5  # type: ignore[misc]
    assert v.kv_blocks_free == values["kv_blocks_total"] - values["kv_blocks_used"]


def test_every_field_is_required() -> None:
    with pytest.raises(TypeError):
        make_view(index=0, name="a")  # the defaults are the class's, not the builder's


@dataclasses.dataclass(frozen=True, slots=True)
class Point:
    x: float
    y: float = 0.0
    tags: tuple[str, ...] = ()


def test_any_frozen_slotted_dataclass() -> None:
    make = fast_constructor(Point)
    assert make(1.0, 2.0, ("a",)) == Point(1.0, 2.0, ("a",))
    assert make(y=1, x=2, tags=()) == Point(2, 1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        make(1.0, 2.0, ()).x = 3.0  # type: ignore[misc]
