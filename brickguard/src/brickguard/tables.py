"""Reading a parsed TOML table into a dataclass: the one way brickguard reads its configuration,
the platform profiles and SDK manifests.

The dataclass is the schema. Each field is a key; its annotation is the type the value must have
(``str``, ``int``, ``bool``, ``Literal[...]``, ``list[X]``, ``tuple[X, Y]``, ``dict[str, X]``,
a nested dataclass for a sub-table, ``X | Y``, ``X | None`` for "may be absent"); a field without
a default is required; ``checked(...)`` adds a condition on the value. Unknown keys are errors.

Every message has one shape, ``<where> <key>: <problem>``, e.g.::

    brickguard.toml: [build] jobs: must be 0 (one per CPU) or more
    brickguard.toml: [tasks] creators[0]: missing key arg
    freertos.toml: [api] blocs: unknown key (known: blocks, allocates, ...)
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Callable, Mapping
from functools import cache
from typing import Any, Literal, TypeVar, Union

from brickguard.errors import ConfigError

T = TypeVar("T")
_SCALARS: dict[type, tuple[str, str]] = {
    str: ("a string", "strings"),
    int: ("an integer", "integers"),
    bool: ("true or false", "booleans"),
}


def checked(test: Callable[[Any], bool], must: str, default: Any = dataclasses.MISSING) -> Any:
    """A field whose value must also pass ``test``; ``must`` completes "must be ...".

    ``test`` sees only values that have the field's type; the default is not tested. Without
    a default the key is required."""
    return dataclasses.field(default=default, metadata={"check": (test, must)})


def from_mapping(cls: type[T], data: Any, where: str) -> T:
    """An instance of dataclass ``cls`` from ``data``, a parsed TOML document or table.

    ``where`` names it in messages: the file (``brickguard.toml``), or the file and the table
    (``brickguard.toml: [sdk]``). Raises ConfigError naming the key and what it must be."""
    return _table(cls, data, where, top=not where.endswith("]"))


def _table(cls: type[T], data: Any, label: str, top: bool) -> T:
    if not isinstance(data, Mapping):
        raise ConfigError(f"{label}: must be {describe(cls)}")
    hints = _hints(cls)
    known = [f.name for f in dataclasses.fields(cls)]  # type: ignore[arg-type]
    values = {}
    for key, value in data.items():
        if key not in hints:
            if top and isinstance(value, Mapping):
                names = ", ".join(f"[{k}]" for k in known if _is_table(hints[k]))
                raise ConfigError(f"{label}: [{key}]: unknown table (known: {names})")
            raise ConfigError(f"{_key(label, key, top, False)}: unknown key "
                              f"(known: {', '.join(known)})")
        values[key] = _value(hints[key], value, _key(label, key, top, _is_table(hints[key])))
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        missing = f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        if f.name not in values and missing:
            raise ConfigError(f"{label}: missing key {f.name}")
        check = f.metadata.get("check")
        if check is not None and f.name in values and not check[0](values[f.name]):
            raise ConfigError(f"{_key(label, f.name, top, False)}: must be {check[1]}")
    return cls(**values)


def _key(label: str, key: str, top: bool, table: bool) -> str:
    if top:
        return f"{label}: [{key}]" if table else f"{label}: {key}"
    return f"{label} {key}"


def _value(tp: Any, value: Any, label: str) -> Any:
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin in (Union, types.UnionType):
        options = [a for a in args if a is not type(None)]
        fitting = [a for a in options if _fits_shape(a, value)]
        if len(fitting) == 1:
            return _value(fitting[0], value, label)
        for option in fitting:  # same shape (e.g. two scalar types): the first that converts
            try:
                return _value(option, value, label)
            except ConfigError:
                continue
        raise ConfigError(f"{label}: must be {describe(tp)}")
    if dataclasses.is_dataclass(tp):
        return _table(tp, value, label, top=False)
    if origin is Literal:
        if not any(value == a and type(value) is type(a) for a in args):
            raise ConfigError(f"{label}: must be {describe(tp)}")
        return value
    if origin is list or (origin is tuple and args[-1:] == (...,)):
        if not isinstance(value, list):
            raise ConfigError(f"{label}: must be {describe(tp)}")
        items = [_value(args[0], v, f"{label}[{i}]") for i, v in enumerate(value)]
        return items if origin is list else tuple(items)
    if origin is tuple:
        if not isinstance(value, list) or len(value) != len(args):
            raise ConfigError(f"{label}: must be {describe(tp)}")
        pairs = enumerate(zip(args, value, strict=True))
        return tuple(_value(a, v, f"{label}[{i}]") for i, (a, v) in pairs)
    if origin is dict:
        if not isinstance(value, Mapping):
            raise ConfigError(f"{label}: must be {describe(tp)}")
        return {k: _value(args[1], v, f"{label} {k}") for k, v in value.items()}
    if tp in _SCALARS:
        # TOML's true is a Python int too: an int field takes integers only, a bool booleans.
        if type(value) is not tp:
            raise ConfigError(f"{label}: must be {describe(tp)}")
        return value
    raise TypeError(f"from_mapping cannot read a {tp!r} field")  # a schema bug, not the user's


def describe(tp: Any, plural: bool = False) -> str:
    """What a value of this annotation looks like, in the words messages use."""
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin in (Union, types.UnionType):
        return " or ".join(describe(a, plural) for a in args if a is not type(None))
    if dataclasses.is_dataclass(tp):
        keys = ", ".join(f.name for f in dataclasses.fields(tp))
        return f"tables {{{keys}}}" if plural else f"a table {{{keys}}}"
    if origin is Literal:
        return "one of " + ", ".join(f'"{a}"' if isinstance(a, str) else str(a) for a in args)
    if origin is list or (origin is tuple and args[-1:] == (...,)):
        return f"a list of {describe(args[0], plural=True)}"
    if origin is tuple:
        shape = "[" + ", ".join(describe(a).split(" ", 1)[-1] for a in args) + "]"
        return f"{shape} pairs" if plural else f"a {shape} pair"
    if origin is dict:
        return f'a table of name = {describe(args[1]).split(" ", 1)[-1]}'
    if tp in _SCALARS:
        return _SCALARS[tp][1 if plural else 0]
    return repr(tp)


def _fits_shape(tp: Any, value: Any) -> bool:
    """Whether ``value`` has the outer shape of ``tp`` (table, list or scalar): picks the arm
    of a union whose own message is the helpful one."""
    origin = typing.get_origin(tp)
    if dataclasses.is_dataclass(tp) or origin is dict:
        return isinstance(value, Mapping)
    if origin in (list, tuple):
        return isinstance(value, list)
    if origin is Literal:
        return any(type(value) is type(a) for a in typing.get_args(tp))
    return type(value) is tp


def _is_table(tp: Any) -> bool:
    args = typing.get_args(tp) if typing.get_origin(tp) in (Union, types.UnionType) else (tp,)
    return any(
        dataclasses.is_dataclass(a) or typing.get_origin(a) is list
        and dataclasses.is_dataclass(typing.get_args(a)[0])
        for a in args
    )


@cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)
