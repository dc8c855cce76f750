"""Realistic hallucinations injected into correct code, one per mutant.

Each kind imitates a way assistants get SDKs wrong: a dropped or added underscore, a CamelCase
change, a plural or tense change, a peripheral index the chip lacks, a sibling family's enum, an
argument added or dropped, the previous SDK version's signature. Sites come from the parsed
original (tokens and calls), so a mutation always hits a real SDK symbol in real code.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass

import clang.cindex as ci

from brickguard.sdk.model import SdkIndex
from brickguard.sdk.suggest import similarity, word_parts

K = ci.CursorKind
NAME_KINDS = ("underscore_drop", "underscore_add", "camel_case", "plural_tense", "index_range")
KINDS = (*NAME_KINDS, "sibling_enum", "arg_added", "arg_dropped", "previous_version")


@dataclass(frozen=True)
class Mutant:
    kind: str
    file: str
    line: int
    original: str  # the symbol as it was (what a suggestion should name)
    mutated: str  # what replaced it (a name, or the call as rewritten)
    text: str  # the whole mutated file
    expect: str  # the rule that should report it


@dataclass(frozen=True)
class _Tok:
    name: str
    start: int
    end: int
    line: int
    role: str  # "function" | "macro" | "enum" | "field"


@dataclass(frozen=True)
class _Call:
    name: str
    line: int
    args: tuple[tuple[int, int], ...]  # byte extents of the arguments
    open: int  # offset just after "("
    close: int  # offset of ")"
    name_start: int


def _sites(
    tu: ci.TranslationUnit, path: str, idx: SdkIndex
) -> tuple[list[_Tok], list[_Call], list]:
    toks: list[_Tok] = []
    fields = idx.all_fields()
    raw = [t for t in tu.get_tokens(extent=tu.cursor.extent)
           if t.location.file is not None and t.location.file.name == path]
    for i, t in enumerate(raw):
        if t.kind != ci.TokenKind.IDENTIFIER:
            continue
        name, prev = t.spelling, raw[i - 1].spelling if i else ""
        nxt = raw[i + 1].spelling if i + 1 < len(raw) else ""
        if raw[i - 1].spelling == "#" or (i > 1 and raw[i - 2].spelling == "#"):
            continue  # directives (#include, #define X) are not uses
        role = None
        if prev in (".", "->") and name in fields:
            role = "field"
        elif name in idx.functions and nxt == "(":
            role = "function"
        elif name in idx.macros:
            role = "macro"
        elif name in idx.enum_constants:
            role = "enum"
        if role:
            e = t.extent
            toks.append(_Tok(name, e.start.offset, e.end.offset, e.start.line, role))
    calls: list[_Call] = []
    enum_args: list[tuple[int, int, str, str, int]] = []  # start, end, constant, wanted, line
    for c in tu.cursor.walk_preorder():
        f = c.location.file
        if f is None or f.name != path:
            continue
        if c.kind == K.CALL_EXPR and c.spelling in idx.functions:
            args = list(c.get_arguments())
            ext = c.extent
            if ext.start.file is None or ext.start.file.name != path:
                continue
            fn = idx.functions[c.spelling]
            spans = tuple((a.extent.start.offset, a.extent.end.offset) for a in args)
            calls.append(_Call(c.spelling, ext.start.line, spans, -1, ext.end.offset - 1,
                               ext.start.offset))
            for a, p in zip(args, fn.params, strict=False):
                _enum_site(a, p.type, idx, enum_args)
        elif c.kind == K.BINARY_OPERATOR:
            kids = list(c.get_children())
            if len(kids) == 2 and kids[0].kind == K.MEMBER_REF_EXPR:
                _enum_site(kids[1], kids[0].type.spelling, idx, enum_args)
    return toks, calls, enum_args


def _enum_site(arg: ci.Cursor, wanted: str, idx: SdkIndex, out: list) -> None:
    inner = arg
    while inner.kind == K.UNEXPOSED_EXPR and len(kids := list(inner.get_children())) == 1:
        inner = kids[0]
    if (
        inner.kind == K.DECL_REF_EXPR
        and inner.spelling in idx.enum_constants
        and idx.enum_constants[inner.spelling].enum == wanted.replace("const ", "")
    ):
        e = inner.extent
        out.append((e.start.offset, e.end.offset, inner.spelling, wanted, e.start.line))


def _case(part: str, like: str) -> str:
    return part.upper() if like.isupper() else part


def mutate_name(kind: str, name: str, rng: random.Random) -> str | None:
    """One name mutation of ``kind``; None when the name offers no site for it."""
    lead = len(name) - len(name.lstrip("_"))
    head, body = name[:lead], name[lead:]
    if kind == "underscore_drop":
        spots = [m.start() for m in re.finditer(r"(?<=[A-Za-z0-9])_(?=[A-Za-z0-9])", body)]
        if not spots:
            return None
        i = rng.choice(spots)
        return head + body[:i] + body[i + 1 :]
    if kind == "underscore_add":
        spots = [m.start() + 1 for m in re.finditer(r"[a-z0-9](?=[A-Z])|[A-Z](?=[A-Z][a-z])", body)]
        if not spots:
            return None
        i = rng.choice(spots)
        return head + body[:i] + "_" + body[i:]
    if kind == "camel_case":
        words = [m for m in re.finditer(r"[A-Z]{2,}(?![a-z])|[A-Z][a-z]+|[a-z]{2,}", body)]
        if not words:
            return None
        m = rng.choice(words)
        w = m.group()
        if w.isupper():
            new = w.capitalize()
        elif w[0].isupper():
            new = w.lower() if rng.random() < 0.5 else w.upper()
        else:
            new = w.capitalize()
        return head + body[: m.start()] + new + body[m.end() :]
    if kind == "plural_tense":
        words = [m for m in re.finditer(r"[A-Z]?[a-z]{2,}|[A-Z]{3,}", body)]
        if not words:
            return None
        m = rng.choice(words)
        w = m.group()
        low = w.lower()
        if low.endswith("s"):
            new = w[:-1]
        elif low.endswith("e"):
            new = w + _case("d", w)
        else:
            new = w + _case(rng.choice(("s", "ed", "ing")), w)
        return head + body[: m.start()] + new + body[m.end() :]
    if kind == "index_range":
        m = re.search(r"(USART|UART|I2C|SPI|TIM|DMA|EXTI|Channel|CHANNEL_)(\d+)", body)
        if m:
            new = str(rng.choice((4, 5, 6, 7, 8, 9, 12, 42)))
            return head + body[: m.start(2)] + new + body[m.end(2) :]
        m = re.search(r"GPIO([A-E])(?![A-Za-z])", body)
        if m:
            return head + body[: m.start(1)] + rng.choice("HIJK") + body[m.end(1) :]
        return None
    raise ValueError(kind)


def make_mutants(
    path: str, text: str, tu: ci.TranslationUnit, target: SdkIndex, others: Sequence[SdkIndex],
    kinds: Sequence[str], rng: random.Random,
) -> list[Mutant]:
    """Every mutant of ``kinds`` this file offers (the caller samples)."""
    data = text.encode("utf-8")
    toks, calls, enum_args = _sites(tu, path, target)
    known = set(target.functions) | set(target.macros) | set(target.enum_constants)
    for o in others:
        known |= set(o.functions) | set(o.macros) | set(o.enum_constants)
    out: list[Mutant] = []

    def edit(start: int, end: int, new: str) -> str:
        return (data[:start] + new.encode() + data[end:]).decode("utf-8")

    for kind in kinds:
        if kind in NAME_KINDS:
            for t in toks:
                new = mutate_name(kind, t.name, rng)
                if not new or new == t.name or new in known:
                    continue
                if t.role == "field":
                    rec = [f for fields in target.structs.values() for f in fields]
                    if new in rec:
                        continue
                role = t.role
                if role == "function" or (role == "macro" and target.macros[t.name].function_like
                                          and not re.match(r"^_*[A-Z0-9_]+$", new)):
                    expect = "BG201"
                else:
                    expect = "BG203"
                mutated = edit(t.start, t.end, new)
                out.append(Mutant(kind, path, t.line, t.name, new, mutated, expect))
        elif kind == "sibling_enum":
            for start, end, const, wanted, line in enum_args:
                new = _sibling(const, wanted, target, rng)
                if new:
                    out.append(Mutant(kind, path, line, const, new, edit(start, end, new), "BG205"))
        elif kind in ("arg_added", "arg_dropped"):
            for c in calls:
                fn = target.functions[c.name]
                if kind == "arg_added" and not fn.variadic:
                    pos = c.close
                    new = ", 0U" if c.args else "0U"
                    out.append(Mutant(kind, path, c.line, c.name, f"{c.name}(+1 argument)",
                                      edit(pos, pos, new), "BG202"))
                elif kind == "arg_dropped" and c.args:
                    start = c.args[-2][1] if len(c.args) > 1 else c.args[-1][0]
                    out.append(Mutant(kind, path, c.line, c.name, f"{c.name}(-1 argument)",
                                      edit(start, c.args[-1][1], ""), "BG202"))
        elif kind == "previous_version":
            out.extend(_previous(path, data, toks, calls, target, others))
    return out


def _sibling(const: str, wanted: str, idx: SdkIndex, rng: random.Random) -> str | None:
    """A constant of another enum family, the one closest in name (what an assistant mixes up)."""
    scored = []
    for e in idx.enum_constants.values():
        if e.enum != wanted and e.enum.endswith("TypeDef") and e.name != const:
            scored.append((similarity(const, e.name), e.name))
    if not scored:
        return None
    scored.sort(reverse=True)
    return rng.choice(scored[:3])[1]


def _previous(path, data, toks, calls, target, others) -> list[Mutant]:
    """Rewrite a use into the form an older SDK version had (fewer leading args, old names)."""
    out = []
    for other in others:
        for c in calls:
            old = other.functions.get(c.name)
            new_fn = target.functions[c.name]
            if old is not None and len(old.params) < len(new_fn.params) and c.args:
                drop = len(new_fn.params) - len(old.params)
                if drop < len(c.args):
                    start, end = c.args[0][0], c.args[drop][0]
                    text = (data[:start] + data[end:]).decode("utf-8")
                    out.append(Mutant("previous_version", path, c.line, c.name,
                                      f"{c.name} (signature of {other.label})", text, "BG204"))
            elif old is None:
                twin = _twin(c.name, new_fn, other, target)
                if twin:
                    end = c.name_start + len(c.name)
                    text = data[: c.name_start] + twin.encode() + data[end:]
                    out.append(Mutant("previous_version", path, c.line, c.name, twin,
                                      text.decode("utf-8"), "BG204"))
        for t in toks:
            if t.role != "field":
                continue
            for rec, fields in target.structs.items():
                if t.name in fields and t.name not in other.structs.get(rec, {t.name: ""}):
                    gone = [f for f in other.structs.get(rec, {}) if f not in fields]
                    if gone:
                        text = (data[: t.start] + gone[0].encode() + data[t.end :]).decode("utf-8")
                        out.append(Mutant("previous_version", path, t.line, t.name, gone[0],
                                          text, "BG204"))
                    break
    return out


def _twin(name, fn, other: SdkIndex, target: SdkIndex) -> str | None:
    """The older name of a renamed function: same parameter types, absent from the target."""
    for g in other.functions.values():
        if g.name in target.functions:
            continue
        if [p.type for p in g.params] == [p.type for p in fn.params] and set(
            word_parts(g.name)
        ) & set(word_parts(name)):
            return g.name
    return None
