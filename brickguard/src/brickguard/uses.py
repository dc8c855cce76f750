"""API uses, function definitions and handle instances of one unit, for the vendor-demo protocol
rules (BG4xx) and the demo index that teaches them (``brickguard.demos``).

Read from the libclang unit the front end parsed (``frontend.UnitContext``), main file only:
- calls (the callee clang resolved) and function-like macro uses (from the detailed
  preprocessing record: only the code the preprocessor kept), each with its arguments as
  variables or constants. A project's aliases are followed through their definitions:
  ``I2Cx_CLK_ENABLE()`` is ``__HAL_RCC_I2C1_CLK_ENABLE()``, ``I2Cx_ER_IRQn`` is ``I2C1_ER_IRQn``;
- the functions defined, with their parameters and where they were first declared;
- ``handle.Instance = I2C1`` assignments: which peripheral instance a handle drives.
"""

from __future__ import annotations

import bisect
import re
from typing import TYPE_CHECKING

from clang.cindex import Cursor, CursorKind

from brickguard.facts import DefFact, InstanceFact, UseFact, Where

if TYPE_CHECKING:
    from brickguard.frontend import UnitContext

K = CursorKind
INSTANCE_FIELDS = ("Instance",)  # the handle member naming the peripheral it drives (ST HAL)
_IMPLICIT = (K.UNEXPOSED_EXPR, K.PAREN_EXPR, K.CSTYLE_CAST_EXPR)
_MAX_ALIAS = 8
CALLBACK_SUFFIX = "Callback"  # what the SDK calls back is named so (HAL_I2C_MasterTxCpltCallback)


class Aliases:
    """Macro definitions of a unit, read lazily: a name -> (body tokens, function-like, file)."""

    def __init__(self, defs: dict[str, Cursor]) -> None:
        self.defs = defs
        self._body: dict[str, tuple[list[str], bool, str] | None] = {}

    def body(self, name: str) -> tuple[list[str], bool, str] | None:
        if name not in self._body:
            c = self.defs.get(name)
            out = None
            if c is not None:
                toks = list(c.get_tokens())
                fn = (len(toks) > 1 and toks[1].spelling == "("
                      and toks[1].extent.start.offset == toks[0].extent.end.offset)
                words = [t.spelling for t in toks]
                if fn:
                    close = words.index(")") if ")" in words else len(words) - 1
                    words = words[close + 1:]
                else:
                    words = words[1:]
                f = c.location.file
                out = (words, fn, f.name if f is not None else "")
            self._body[name] = out
        return self._body[name]

    def chain(self, name: str) -> tuple[tuple[str, str], ...]:
        """``name`` and the names it is an alias of: while a macro's body is one name, or one
        call ``NAME(...)`` of another macro, that name. Each with its defining file ("" for an
        enumerator or function the chain ends at)."""
        out: list[tuple[str, str]] = []
        cur: str | None = name
        while cur is not None and len(out) < _MAX_ALIAS:
            b = self.body(cur)
            out.append((cur, b[2] if b is not None else ""))
            if b is None:
                break
            words = b[0][:-1] if b[0][-1:] == [";"] else b[0]  # `#define X() Y();` too
            nxt = words[0] if words and _ident(words[0]) else None
            if nxt is None or not (len(words) == 1 or (words[1] == "(" and words[-1] == ")")):
                break
            if any(n == nxt for n, _ in out):
                break
            cur = nxt
        return tuple(out)

    def resolve(self, name: str) -> str:
        """The last name of ``name``'s alias chain (``I2Cx`` -> ``I2C1``)."""
        return self.chain(name)[-1][0]


def _ident(word: str) -> bool:
    return bool(word) and (word[0].isalpha() or word[0] == "_") and word.replace("_", "a").isalnum()


def _strip(c: Cursor) -> Cursor:
    while c.kind in _IMPLICIT:
        ch = list(c.get_children())
        if not ch:
            break
        c = ch[-1]
    return c


def _pointee(t) -> str:
    p = t.get_pointee()
    name = p.spelling if p.spelling else ""
    for q in ("const ", "volatile "):
        name = name.replace(q, "")
    return name.strip()


def _split_args(words: list[str]) -> list[list[str]]:
    """``NAME ( a , b ( c ) , d )`` -> [[a], [b, (, c, )], [d]]."""
    if len(words) < 3 or words[1] != "(":
        return []
    out: list[list[str]] = [[]]
    depth = 0
    for w in words[2:]:
        if w in "([{":
            depth += 1
        elif w in ")]}":
            if depth == 0:
                break
            depth -= 1
        if w == "," and depth == 0:
            out.append([])
        else:
            out[-1].append(w)
    return [a for a in out if a] if any(out) else []


_WORDS = re.compile(r"[A-Za-z_]\w*|\d\w*|\S")


def _words(u: UnitContext, c: Cursor) -> list[str]:
    """The tokens of ``c`` as written in the main file (libclang gives none for a part of a macro
    use: the file's text is read)."""
    ext = c.extent
    if ext.start.file is None or ext.start.file.name != u.main_file:
        return []
    text = u.source(u.main_file)[ext.start.offset:ext.end.offset].decode("utf-8", "replace")
    return _WORDS.findall(text)


def _word_arg(words: list[str], aliases: Aliases) -> str:
    if words and words[0] == "&":
        words = words[1:]
    if len(words) == 1 and _ident(words[0]):
        return aliases.resolve(words[0])
    return ""


def collect(u: UnitContext) -> None:
    """Fill ``u.unit``'s uses, definitions, instances and names from the parsed unit (one
    pass over the unit's top level: a unit that includes a device header has 20,000 cursors)."""
    main = u.main_file
    defs: dict[str, Cursor] = {}
    insts: list[tuple[int, Cursor]] = []
    functions: list[Cursor] = []
    names: set[str] = set()
    for c in u._top:
        k = c.kind
        if k == K.MACRO_DEFINITION:
            defs.setdefault(c.spelling, c)
        elif k == K.MACRO_INSTANTIATION:
            f = c.location.file
            if f is not None and f.name == main:
                insts.append((c.extent.start.offset, c))
        elif k == K.FUNCTION_DECL:
            functions.append(c)
        elif k == K.ENUM_DECL:
            names.update(e.spelling for e in c.get_children() if e.kind == K.ENUM_CONSTANT_DECL)
    aliases = Aliases(defs)
    insts.sort(key=lambda t: t[0])
    offsets = [o for o, _ in insts]
    names.update(defs)
    for f in functions:
        name = f.spelling
        names.add(name)
        file = f.location.file
        if file is None:
            continue
        if file.name != main:
            if name.endswith(CALLBACK_SUFFIX) and not f.is_definition():
                _definition(u, f, defined=False)
            continue
        if not f.is_definition():
            continue
        body = next((ch for ch in f.get_children() if ch.kind == K.COMPOUND_STMT), None)
        if body is None:
            continue
        _definition(u, f)
        for c in body.walk_preorder():
            if c.kind == K.CALL_EXPR:
                _call(u, aliases, name, c)
            elif c.kind == K.BINARY_OPERATOR:
                _instance(u, aliases, c)
        lo, hi = body.extent.start.offset, body.extent.end.offset
        for off, m in insts[bisect.bisect_left(offsets, lo): bisect.bisect_right(offsets, hi)]:
            b = aliases.body(m.spelling)
            if b is None or not b[1]:
                continue  # an object-like macro is a constant, not a step
            words = [t.spelling for t in m.get_tokens()]
            args = tuple(_word_arg(a, aliases) for a in _split_args(words))
            loc = m.location
            u.unit.uses.append(UseFact(
                name, m.spelling, aliases.chain(m.spelling), Where(main, loc.line, loc.column),
                off, "macro", args,
            ))
    u.unit.names = frozenset(names)


def _definition(u: UnitContext, f: Cursor, defined: bool = True) -> None:
    params = list(f.get_arguments())
    canon = f.canonical
    declared = ""
    if canon is not None and canon.location.file is not None and canon != f:
        declared = canon.location.file.name
    loc = f.location
    u.unit.defs.append(DefFact(
        f.spelling, Where(loc.file.name, loc.line, loc.column),
        tuple(p.spelling for p in params),
        _pointee(params[0].type) if params else "", declared, defined,
    ))


def _call(u: UnitContext, aliases: Aliases, function: str, c: Cursor) -> None:
    ref = c.referenced
    if ref is None or ref.kind != K.FUNCTION_DECL:
        return
    loc = c.location
    if loc.file is None:
        return
    args, var_args = [], []
    for a in c.get_arguments():
        s = _strip(a)
        if s.kind == K.UNARY_OPERATOR:
            inner = list(s.get_children())
            s = _strip(inner[0]) if inner else s
        if s.kind == K.DECL_REF_EXPR and s.referenced is not None and s.referenced.kind in (
                K.VAR_DECL, K.PARM_DECL, K.ENUM_CONSTANT_DECL):
            # As written: an IRQn named through a project macro is still the enumerator.
            args.append(s.referenced.spelling)
            var_args.append(s.referenced.kind != K.ENUM_CONSTANT_DECL)
        elif s.kind == K.MEMBER_REF_EXPR and (member := _member(s)):
            args.append(member)  # h.hdmarx, h->hdmarx: the handle's DMA handle
            var_args.append(True)
        else:
            args.append(_word_arg(_words(u, a), aliases))
            var_args.append(False)
    first = next(iter(c.get_arguments()), None)
    u.unit.uses.append(UseFact(
        function, ref.spelling, (), Where(u.main_file, loc.line, loc.column),
        c.extent.start.offset, "call", tuple(args),
        _pointee(first.type) if first is not None else "", tuple(var_args),
        _file_of(ref.canonical),
    ))


def _member(c: Cursor) -> str:
    """``var.field`` for ``var.field`` or ``var->field`` (one level), else ""."""
    ch = list(c.get_children())
    base = _strip(ch[0]) if ch else None
    if base is not None and base.kind == K.DECL_REF_EXPR and base.referenced is not None and (
            base.referenced.kind in (K.VAR_DECL, K.PARM_DECL)):
        return f"{base.referenced.spelling}.{c.spelling}"
    return ""


def _file_of(c: Cursor | None) -> str:
    f = c.location.file if c is not None else None
    return f.name if f is not None else ""


def _instance(u: UnitContext, aliases: Aliases, c: Cursor) -> None:
    ch = list(c.get_children())
    if len(ch) != 2 or ch[0].kind != K.MEMBER_REF_EXPR or ch[0].spelling not in INSTANCE_FIELDS:
        return
    src = u.source(u.main_file)
    between = src[ch[0].extent.end.offset:ch[1].extent.start.offset].strip()
    if between != b"=":
        return
    base = next((d for d in ch[0].walk_preorder() if d.kind == K.DECL_REF_EXPR), None)
    value = _word_arg(_words(u, ch[1]), aliases)
    if base is None or not value:
        return
    loc = c.location
    u.unit.instances.append(InstanceFact(base.spelling, value,
                                         Where(u.main_file, loc.line, loc.column)))
