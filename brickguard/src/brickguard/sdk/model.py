"""What an SDK index holds: plain data, serialisable to JSON for the cache."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class Param:
    name: str
    type: str


@dataclass(frozen=True, slots=True)
class Function:
    name: str
    return_type: str
    params: tuple[Param, ...]
    variadic: bool = False
    file: str = ""
    line: int = 0

    @property
    def signature(self) -> str:
        args = [f"{p.type} {p.name}".strip() for p in self.params] or ["void"]
        if self.variadic:
            args = [*[a for a in args if a != "void"], "..."]
        return f"{self.return_type} {self.name}({', '.join(args)})"


@dataclass(frozen=True, slots=True)
class Macro:
    name: str
    params: tuple[str, ...] | None  # None: object-like; () : function-like with no parameter
    variadic: bool = False
    file: str = ""
    line: int = 0

    @property
    def function_like(self) -> bool:
        return self.params is not None

    @property
    def signature(self) -> str:
        if self.params is None:
            return self.name
        return f"{self.name}({', '.join(self.params)})"


@dataclass(frozen=True, slots=True)
class EnumConstant:
    name: str
    enum: str  # the enum's typedef name when it has one, else "enum tag"
    value: int
    file: str = ""
    line: int = 0


@dataclass
class SdkIndex:
    name: str
    version: str
    functions: dict[str, Function] = field(default_factory=dict)
    macros: dict[str, Macro] = field(default_factory=dict)
    enum_constants: dict[str, EnumConstant] = field(default_factory=dict)
    typedefs: dict[str, str] = field(default_factory=dict)  # name -> underlying type
    # Fields per record, keyed by every name the record goes by (tag and typedef names).
    structs: dict[str, dict[str, str]] = field(default_factory=dict)
    headers: tuple[str, ...] = ()
    # Headers that did not parse cleanly: (file, line, column, message), reported as BG000.
    errors: tuple[tuple[str, int, int, str], ...] = ()
    target: bool = False

    @property
    def label(self) -> str:
        return f"{self.name} {self.version}".strip()

    def counts(self) -> dict[str, int]:
        return {
            "headers": len(self.headers),
            "functions": len(self.functions),
            "macros": len(self.macros),
            "function_like_macros": sum(1 for m in self.macros.values() if m.function_like),
            "enum_constants": len(self.enum_constants),
            "typedefs": len(self.typedefs),
            "structs": len(self.structs),
            "fields": sum(len(f) for f in self.structs.values()),
            "errors": len(self.errors),
        }

    def all_fields(self) -> set[str]:
        return {f for fields in self.structs.values() for f in fields}

    def knows(self, name: str) -> bool:
        return (
            name in self.functions
            or name in self.macros
            or name in self.enum_constants
            or name in self.typedefs
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "version": self.version,
            "functions": [asdict(f) for f in self.functions.values()],
            "macros": [asdict(m) for m in self.macros.values()],
            "enum_constants": [asdict(e) for e in self.enum_constants.values()],
            "typedefs": self.typedefs,
            "structs": self.structs,
            "headers": list(self.headers),
            "errors": [list(e) for e in self.errors],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SdkIndex:
        functions = {}
        for f in data["functions"]:
            params = tuple(Param(p["name"], p["type"]) for p in f["params"])
            functions[f["name"]] = Function(
                f["name"], f["return_type"], params, f["variadic"], f["file"], f["line"]
            )
        macros = {}
        for m in data["macros"]:
            params = tuple(m["params"]) if m["params"] is not None else None
            macros[m["name"]] = Macro(m["name"], params, m["variadic"], m["file"], m["line"])
        enums = {e["name"]: EnumConstant(**e) for e in data["enum_constants"]}
        return cls(
            name=data["name"],
            version=data["version"],
            functions=functions,
            macros=macros,
            enum_constants=enums,
            typedefs=dict(data["typedefs"]),
            structs={k: dict(v) for k, v in data["structs"].items()},
            headers=tuple(data["headers"]),
            errors=tuple((e[0], e[1], e[2], e[3]) for e in data["errors"]),
        )
