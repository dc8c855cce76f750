"""Build an SDK index with libclang: one umbrella translation unit that includes every header.

Parsed with a detailed preprocessing record (macro definitions become cursors) and without
function bodies (inline functions in headers cost nothing). Only what is declared in the SDK's
own headers is kept: builtin headers (stdint.h) and predefined macros are not the SDK's.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import clang.cindex as ci

from brickguard.build_flags import find_resource_dir
from brickguard.sdk.model import EnumConstant, Function, Macro, Param, SdkIndex
from brickguard.sdk.spec import SdkSpec

K = ci.CursorKind
_OPTIONS = (
    ci.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD
    | ci.TranslationUnit.PARSE_SKIP_FUNCTION_BODIES
    | ci.TranslationUnit.PARSE_INCOMPLETE
)


def default_args(
    triple: str = "thumbv7em-none-eabi", resource_dir: Path | None = None
) -> list[str]:
    """Flags for parsing SDK headers alone: the front end's target and builtin headers."""
    args = ["-x", "c", "-std=c11", "-target", triple, "-ffreestanding"]
    rd = find_resource_dir(resource_dir)
    if rd is not None:
        args += ["-isystem", str(rd)]
    return args


def build_index(spec: SdkSpec, args: Sequence[str] | None = None) -> SdkIndex:
    """Index every header of ``spec``. Headers that fail to parse are indexed as far as they go
    and their errors kept in ``SdkIndex.errors``."""
    spec.check()
    headers = spec.headers()
    base = list(args) if args is not None else default_args()
    base += [f"-I{p}" for p in spec.include] + [f"-D{d}" for d in spec.defines]
    umbrella = "".join(f'#include "{h}"\n' for h in headers)
    name = str(headers[0].parent / "__brickguard_sdk_umbrella__.c")
    index = ci.Index.create()
    tu = index.parse(name, args=base, unsaved_files=[(name, umbrella)], options=_OPTIONS)
    errors = _errors(tu, name)
    units = [tu]
    if any(e[3].startswith("fatal:") for e in errors):
        # A fatal error (a missing include) stops the umbrella where it happens: parse each header
        # on its own so the rest of the SDK is still indexed.
        units = []
        errors = []
        for h in headers:
            one = index.parse(str(h), args=base, options=_OPTIONS)
            units.append(one)
            errors.extend(_errors(one, None))
    out = SdkIndex(name=spec.name, version=spec.version, target=spec.target)
    out.headers = tuple(str(h) for h in headers)
    roots = tuple(str(p) + os.sep for p in spec.include)
    for unit in units:
        _collect(unit, roots, out)
    out.errors = tuple(dict.fromkeys(errors))
    return out


def _errors(tu: ci.TranslationUnit, umbrella: str | None) -> list[tuple[str, int, int, str]]:
    out = []
    for d in tu.diagnostics:
        if d.severity < ci.Diagnostic.Error:
            continue
        loc = d.location
        file = loc.file.name if loc.file else (umbrella or "")
        kind = "fatal" if d.severity == ci.Diagnostic.Fatal else "error"
        out.append((file, loc.line, loc.column, f"{kind}: {d.spelling}"))
    return out


def _in_sdk(cursor: ci.Cursor, roots: tuple[str, ...]) -> str | None:
    f = cursor.location.file
    if f is None:
        return None
    name = f.name
    return name if name.startswith(roots) else None


def _collect(tu: ci.TranslationUnit, roots: tuple[str, ...], out: SdkIndex) -> None:
    for c in tu.cursor.get_children():
        kind = c.kind
        if kind == K.MACRO_DEFINITION:
            file = _in_sdk(c, roots)
            if file and c.spelling not in out.macros:
                out.macros[c.spelling] = _macro(c, file)
            continue
        if kind in (K.MACRO_INSTANTIATION, K.INCLUSION_DIRECTIVE):
            continue
        file = _in_sdk(c, roots)
        if file is None:
            continue
        if kind == K.FUNCTION_DECL:
            if c.spelling not in out.functions:
                out.functions[c.spelling] = _function(c, file)
        elif kind == K.TYPEDEF_DECL:
            under = c.underlying_typedef_type
            out.typedefs[c.spelling] = under.spelling
            decl = under.get_declaration()
            if decl.kind in (K.STRUCT_DECL, K.UNION_DECL):
                _record(decl, out, c.spelling)
            elif decl.kind == K.ENUM_DECL:
                _enum(decl, out, c.spelling)
        elif kind in (K.STRUCT_DECL, K.UNION_DECL):
            if c.spelling and c.is_definition() and not c.is_anonymous():
                _record(c, out, c.type.spelling)
        elif kind == K.ENUM_DECL and c.is_definition():
            _enum(c, out, c.type.spelling)


def _function(c: ci.Cursor, file: str) -> Function:
    params = tuple(Param(a.spelling, a.type.spelling) for a in c.get_arguments())
    variadic = c.type.kind == ci.TypeKind.FUNCTIONPROTO and c.type.is_function_variadic()
    return Function(c.spelling, c.result_type.spelling, params, variadic, file, c.location.line)


def _macro(c: ci.Cursor, file: str) -> Macro:
    tokens = list(c.get_tokens())
    params: tuple[str, ...] | None = None
    variadic = False
    # Function-like only when "(" touches the name: "#define F (x)" is object-like.
    if len(tokens) > 1 and tokens[1].spelling == "(":
        name_end = tokens[0].extent.end
        paren = tokens[1].extent.start
        if name_end.line == paren.line and name_end.column == paren.column:
            names = []
            for t in tokens[2:]:
                if t.spelling == ")":
                    break
                if t.spelling == "...":
                    variadic = True
                elif t.spelling != ",":
                    names.append(t.spelling)
            params = tuple(names)
    return Macro(c.spelling, params, variadic, file, c.location.line)


def _record(decl: ci.Cursor, out: SdkIndex, name: str) -> None:
    fields = {f.spelling: f.type.spelling for f in decl.type.get_fields() if f.spelling}
    if not fields:
        return
    for key in {name, decl.type.spelling, decl.spelling}:
        if key and "(unnamed" not in key and "(anonymous" not in key:
            out.structs[key] = fields


def _enum(decl: ci.Cursor, out: SdkIndex, name: str) -> None:
    label = name if "(unnamed" not in name and "(anonymous" not in name else "enum"
    for e in decl.get_children():
        if e.kind == K.ENUM_CONSTANT_DECL:
            prev = out.enum_constants.get(e.spelling)
            # A typedef name is how code names the type: it wins over "enum tag".
            if prev is None or prev.enum.startswith("enum "):
                out.enum_constants[e.spelling] = EnumConstant(
                    e.spelling, label, e.enum_value, e.location.file.name, e.location.line
                )
