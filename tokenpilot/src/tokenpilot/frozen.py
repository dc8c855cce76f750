"""Building frozen, slotted dataclasses fast, for the few made once per event or request.

A frozen dataclass's generated ``__init__`` sets each field through ``object.__setattr__``,
which costs about twice what the instance is worth on the simulator's hot paths (an engine's
view at every routing decision, a result per request). ``fast_constructor(cls)`` returns a
function that takes every field, by position or by keyword, and fills the slots directly:
the same object, still frozen for everyone who holds it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields
from typing import Any, TypeVar

T = TypeVar("T")


def fast_constructor(cls: type[T]) -> Callable[..., T]:
    """``cls(**all fields)`` without the frozen ``__init__``; ``cls`` needs ``slots=True``."""
    names = [f.name for f in fields(cls)]  # type: ignore[arg-type]
    env: dict[str, Any] = {"_new": object.__new__, "_cls": cls}
    lines = [f"def make_{cls.__name__}({', '.join(names)}):", "    o = _new(_cls)"]
    for name in names:
        env[f"_set_{name}"] = getattr(cls, name).__set__  # the slot's own descriptor
        lines.append(f"    _set_{name}(o, {name})")  # written out: a loop costs twice as much
    lines.append("    return o")
    exec("\n".join(lines), env)  # as dataclasses itself builds __init__
    return env[f"make_{cls.__name__}"]
