"""Reading a config section: a dataclass from a parsed YAML or JSON mapping, by its annotations.

Every file tokenpilot reads (the gateway's config, fleet files, router compositions, the
hardware and model catalogs) goes through ``from_mapping(cls, data, where)``, so every one
rejects the same mistakes with the same one-line message::

    gw.yaml: limits: unknown key 'retires' (did you mean 'retries'?); valid keys: ...
    gw.yaml: backends[0].max_concurrency: expected a whole number >= 1, got 'lots'
    fleet.yaml: instances[1]: missing required key 'model'

``where`` is the location of ``data``: a file or a name (``gw.yaml``, ``fleet``), then, for a
section inside it, a colon and the section's path (``gw.yaml: admission.tenants.acme``). The
reader extends it with each key (``.weight``) and list index (``[0]``) it descends into.

Keys are the dataclass's fields; one without a default is required. A key given as ``null`` (an
empty YAML section) takes the field's default. Values are read by the field's annotation:

- ``bool``: ``true`` or ``false`` only;
- ``int`` and ``float``: numbers, finite; an ``int`` takes a whole float (``2.0``), and both take
  a numeric string, since YAML 1.1 reads ``1e6`` as one;
- ``str``: strings (mapping keys that YAML read as numbers become strings);
- ``Literal[...]``: one of the listed values; ``X | None`` and other unions: any alternative;
- ``list[X]``, ``tuple[X, ...]``: a list (a lone scalar is a list of one), ``dict[str, X]``;
- a nested dataclass: a mapping read the same way (or, where the class names a ``shorthand``
  field, a scalar standing for ``{shorthand: value}``);
- a class with a ``from_value(value, where, error)`` classmethod: what that returns (for the
  odd shape a dataclass cannot say, such as a router filter's ``name`` or ``{name: argument}``);
- ``Annotated[int | float, Bounds(...)]``: a number within bounds (``PositiveInt`` and kin);
- ``Any``: taken as it is.

What the annotations cannot say (a URL's scheme, a catalog name) the class checks in
``__post_init__``: a ``ValueError`` it raises is reported at ``where`` like the rest.
"""

from __future__ import annotations

import dataclasses
import difflib
import math
import types
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Annotated, Any, Literal, TypeVar, Union, get_args, get_origin, get_type_hints

T = TypeVar("T")


class SectionError(ValueError):
    """A config section is malformed; the message names where, the key and what is valid."""


@dataclass(frozen=True)
class Bounds:
    """Bounds on a number: at least ``ge``, more than ``gt``, at most ``le`` (None: no bound)."""

    ge: float | None = None
    gt: float | None = None
    le: float | None = None

    def __contains__(self, x: float) -> bool:
        return ((self.ge is None or x >= self.ge) and (self.gt is None or x > self.gt)
                and (self.le is None or x <= self.le))

    def __str__(self) -> str:
        parts = [(">=", self.ge), (">", self.gt), ("<=", self.le)]
        return " and ".join(f"{op} {_number(x)}" for op, x in parts if x is not None)


PositiveInt = Annotated[int, Bounds(ge=1)]
NonNegativeInt = Annotated[int, Bounds(ge=0)]
PositiveFloat = Annotated[float, Bounds(gt=0)]
NonNegativeFloat = Annotated[float, Bounds(ge=0)]


def from_mapping(cls: type[T], data: Any, where: str,
                 error: type[Exception] = SectionError) -> T:
    """A ``cls`` (a dataclass) read from ``data``; any problem raises ``error`` (module doc).

    ``data`` None reads as an empty mapping: every field takes its default; a ``cls`` already
    built (a config assembled in code) is taken as it is.
    """
    if isinstance(data, cls):
        return data
    if data is None:
        data = {}
    shorthand = _shorthand(cls)
    if shorthand and not isinstance(data, Mapping | list):
        data = {shorthand: data}
    fields = _fields(cls)
    if not isinstance(data, Mapping):
        raise error(f"{where}: expected a mapping of {', '.join(fields)}, got {_show(data)}")
    unknown = [k for k in data if k not in fields]
    if unknown:
        raise error(f"{where}: {_unknown_keys(unknown, list(fields))}")
    kw: dict[str, Any] = {}
    for name, (annotation, required) in fields.items():
        value = data.get(name)
        if name not in data or (value is None and not required and not _takes_none(annotation)):
            if required:
                raise error(f"{where}: missing required key {name!r}")
            continue
        kw[name] = read_value(annotation, value, _key(where, name), error)
    try:
        return cls(**kw)
    except (TypeError, ValueError) as exc:
        if isinstance(exc, error):
            raise
        raise error(f"{where}: {exc}") from None


def read_value(annotation: Any, value: Any, where: str,
               error: type[Exception] = SectionError) -> Any:
    """``value`` read as ``annotation`` says (module doc); ``where`` is the value's location."""
    origin = get_origin(annotation)
    if annotation is Any:
        return value
    if origin is Annotated:
        base, *meta = get_args(annotation)
        if base not in (int, float):
            raise TypeError(f"{where}: from_mapping bounds numbers, not {base!r}")
        x = _read_scalar(base, value)
        if x is None or any(x not in b for b in meta if isinstance(b, Bounds)):
            raise error(f"{where}: expected {_describe(annotation)}, got {_show(value)}")
        return x
    if origin is Literal:
        choices = get_args(annotation)
        if any(value == c and type(value) is type(c) for c in choices):
            return value
        raise error(f"{where}: expected one of {', '.join(map(str, choices))}, got "
                    f"{_show(value)}{_did_you_mean(value, choices)}")
    if origin is Union or origin is types.UnionType:
        return _read_union(annotation, value, where, error)
    if annotation is type(None):
        if value is None:
            return None
        raise error(f"{where}: expected null, got {_show(value)}")
    if origin in (list, tuple, Sequence):
        return _read_sequence(annotation, origin, value, where, error)
    if origin in (dict, Mapping):
        key_type, value_type = get_args(annotation) or (Any, Any)
        if not isinstance(value, Mapping):
            raise error(f"{where}: expected a mapping, got {_show(value)}")
        return {_read_key(key_type, k, where, error):
                read_value(value_type, v, _key(where, k), error) for k, v in value.items()}
    if isinstance(annotation, type) and hasattr(annotation, "from_value"):
        return annotation.from_value(value, where, error)  # a type of its own shape
    if dataclasses.is_dataclass(annotation) and isinstance(annotation, type):
        return from_mapping(annotation, value, where, error)
    if annotation in (bool, int, float, str):
        x = _read_scalar(annotation, value)
        if x is None:
            raise error(f"{where}: expected {_describe(annotation)}, got {_show(value)}")
        return x
    raise TypeError(f"{where}: from_mapping cannot read a {annotation!r} field")


@cache
def _fields(cls: type) -> dict[str, tuple[Any, bool]]:
    """Field name -> (resolved annotation, required) for the fields ``cls.__init__`` takes."""
    if not dataclasses.is_dataclass(cls):
        raise TypeError(f"from_mapping reads dataclasses, not {cls!r}")
    hints = get_type_hints(cls, include_extras=True)
    missing = dataclasses.MISSING
    return {f.name: (hints[f.name], f.default is missing and f.default_factory is missing)
            for f in dataclasses.fields(cls) if f.init}


def _shorthand(cls: type) -> str | None:
    name = cls.__dict__.get("shorthand")
    return name if isinstance(name, str) else None


def _takes_none(annotation: Any) -> bool:
    if get_origin(annotation) is Annotated:
        annotation = get_args(annotation)[0]
    return annotation is Any or annotation is type(None) or (
        get_origin(annotation) in (Union, types.UnionType)
        and type(None) in get_args(annotation))


def _read_scalar(kind: type, v: Any) -> Any:
    """``v`` as ``kind`` (bool, int, float or str), or None when it is not one."""
    if kind is bool or kind is str:
        return v if isinstance(v, kind) else None
    if isinstance(v, bool):
        return None
    if isinstance(v, str):
        try:
            v = float(v.strip())
        except ValueError:
            return None
    if not isinstance(v, int | float) or not math.isfinite(v):
        return None
    if kind is int:
        return int(v) if v == int(v) else None
    return float(v)


def _read_key(kind: Any, k: Any, where: str, error: type[Exception]) -> Any:
    if kind is str and isinstance(k, int | float) and not isinstance(k, bool):
        return str(k)  # YAML reads an unquoted 123 as a number; as a key it is a name
    return read_value(kind, k, _key(where, k), error)


def _read_sequence(annotation: Any, origin: Any, value: Any, where: str,
                   error: type[Exception]) -> list[Any] | tuple[Any, ...]:
    args = get_args(annotation)
    if isinstance(value, str | int | float | bool):
        value = [value]  # ``labels: fast`` is ``labels: [fast]``
    if not isinstance(value, list | tuple):
        raise error(f"{where}: expected a list, got {_show(value)}")
    if origin is tuple and args and args[-1] is not Ellipsis:
        if len(value) != len(args):
            raise error(f"{where}: expected a list of {len(args)}, got {_show(value)}")
        return tuple(read_value(a, v, f"{where}[{i}]", error)
                     for i, (a, v) in enumerate(zip(args, value, strict=True)))
    item = args[0] if args else Any
    out = [read_value(item, v, f"{where}[{i}]", error) for i, v in enumerate(value)]
    return tuple(out) if origin is tuple else out


def _read_union(annotation: Any, value: Any, where: str, error: type[Exception]) -> Any:
    alternatives = get_args(annotation)
    if value is None and type(None) in alternatives:
        return None
    shaped = []
    for alt in alternatives:
        if alt is type(None):
            continue
        try:
            return read_value(alt, value, where, error)
        except Exception as exc:
            if not isinstance(exc, error):
                raise
            if _same_shape(alt, value):
                shaped.append(exc)
    if len(shaped) == 1:  # the one alternative of this shape says best what is wrong
        raise shaped[0]
    raise error(f"{where}: expected {_describe(annotation)}, got {_show(value)}")


def _same_shape(annotation: Any, value: Any) -> bool:
    """Is ``value`` a mapping where ``annotation`` wants one (or a list where it wants one)?"""
    if get_origin(annotation) is Annotated:
        annotation = get_args(annotation)[0]
    origin = get_origin(annotation) or annotation
    if isinstance(value, Mapping):
        return origin in (dict, Mapping) or dataclasses.is_dataclass(origin)
    if isinstance(value, list | tuple):
        return origin in (list, tuple, Sequence)
    if isinstance(value, bool):
        return origin is bool
    if isinstance(value, str):
        return origin is str or origin is Literal
    return origin in (int, float) or origin is Literal


def _describe(annotation: Any) -> str:
    origin = get_origin(annotation)
    if origin is Annotated:
        base, *meta = get_args(annotation)
        bounds = " ".join(str(m) for m in meta if isinstance(m, Bounds))
        return f"{_describe(base)} {bounds}".rstrip()
    if origin is Union or origin is types.UnionType:
        return " or ".join(_describe(a) for a in get_args(annotation))
    if origin is Literal:
        return "one of " + ", ".join(map(str, get_args(annotation)))
    if origin in (list, tuple, Sequence):
        return "a list"
    if origin in (dict, Mapping) or dataclasses.is_dataclass(annotation):
        return "a mapping"
    return {bool: "true or false", int: "a whole number", float: "a number", str: "a string",
            type(None): "null"}.get(annotation, repr(annotation))


def _key(where: str, key: Any) -> str:
    return f"{where}.{key}" if ": " in where else f"{where}: {key}"


def _number(x: float) -> str:
    return str(int(x)) if x == int(x) else f"{x:g}"


def _show(v: Any) -> str:
    if v is None or isinstance(v, bool):
        return {None: "null", True: "true", False: "false"}[v]
    text = repr(v)
    return text if len(text) <= 60 else text[:57] + "..."


def _did_you_mean(value: Any, choices: Sequence[Any]) -> str:
    if not isinstance(value, str):
        return ""
    close = difflib.get_close_matches(value, [str(c) for c in choices], n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _unknown_keys(unknown: list[Any], valid: list[str]) -> str:
    named = ", ".join(f"{k!r}{_did_you_mean(k, valid)}" for k in unknown)
    return f"unknown key{'s' if len(unknown) > 1 else ''} {named}; valid keys: {', '.join(valid)}"


def choice_error(what: str, value: Any, choices: Sequence[str]) -> str:
    """The message for a name that is not one of ``choices``: ``unknown scorer 'x'; valid ...``."""
    return (f"unknown {what} {_show(value)}{_did_you_mean(value, choices)}; "
            f"valid {what}s: {', '.join(choices)}")


def read_text(path: Any, error: type[Exception] = SectionError) -> str:
    """A config file's text, decoded as UTF-8; a file that cannot be read or is not UTF-8
    raises ``error`` naming the file and, for bad bytes, the first one and where it is."""
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise error(f"{path}: cannot read ({exc.strerror})") from None
    except UnicodeDecodeError as exc:
        raise error(f"{path}: {not_utf8(exc)}") from None


def not_utf8(exc: UnicodeDecodeError, whole: bool = True) -> str:
    """What to say about a file that is not UTF-8 text; ``whole`` when ``exc`` came from
    decoding the whole file (a streamed read's offset is within one buffer, so not said)."""
    at = f" at offset {exc.start}" if whole else ""
    return f"not UTF-8 text (byte 0x{exc.object[exc.start]:02x}{at}); save it as UTF-8"
