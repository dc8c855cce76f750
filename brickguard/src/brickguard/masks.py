"""What a function does to the interrupt mask, read from its body: critical sections an SDK
defines itself, found without a table per SDK.

A vendor SDK wraps the core's mask registers in its own calls, inline in its headers
(``save_and_disable_interrupts``, ``CORE_EnterCritical``, ``Cy_SysLib_EnterCriticalSection``,
``ulPortRaiseBASEPRI``) or behind macros that expand to them (``CORE_ENTER_CRITICAL()``,
``FSP_CRITICAL_SECTION_ENTER``). Each function the unit defines is summarised by the mask
writes its body makes, in order, following the calls it makes to functions summarised before:

- *off*: PRIMASK set (``__disable_irq()``, ``cpsid i``, ``__set_PRIMASK(1)``): every
  configurable interrupt masked; or BASEPRI raised to a constant (``__set_BASEPRI(0x40)``,
  ``msr basepri`` with an ``"i"`` operand, a local initialised with a constant): the
  priorities at that level and less urgent masked;
- *on*: PRIMASK or BASEPRI cleared (``__enable_irq()``, ``cpsie i``, ``__set_PRIMASK(0)``), or
  written from a value not known here (``__set_PRIMASK(saved)``, ``msr primask, %0``): a restore
  of a saved state. A body whose only writes set BASEPRI from one of its parameters
  (``__set_BASEPRI(basePri)`` itself, uC/CPU's ``CPU_SR_Save(new_basepri)``) is kept with that
  parameter (``MaskRoutine.param``): a call with a nonzero constant there raises BASEPRI.

A function whose body leaves a mask set that it did not find set (every *off* not undone) is an
enter routine (at the weakest level it leaves, 0 for PRIMASK); one that undoes more than it
sets (``restore_interrupts(s)``, ``CORE_ExitCritical(s)``) is an exit routine. The section
machinery (``sections``) then treats a call to it like a call to ``__disable_irq`` or
``__set_PRIMASK``. A function that masks and unmasks inside (a balanced section of its own)
is neither; reading the mask (``__get_PRIMASK``, ``mrs``) is no write. A call with no body here
(``osKernelLock``, ``vTaskSuspendAll``, ``tx_mutex_get``) is judged by the tables alone.

The module also reads two things a priority comparison needs from bodies: the one-line masks an
SDK writes itself (``line_masks``: the NVIC ICER/ISER words) and what an encoder returns for
constant arguments (``call_value``: ``NVIC_EncodePriority``'s arithmetic).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from clang.cindex import Cursor, CursorKind, TokenKind, TypeKind

from brickguard.facts import PriorityFact, Where

if TYPE_CHECKING:
    from brickguard.frontend import UnitContext

K = CursorKind
_CPSID = re.compile(r"\bcpsid\s+i\b", re.IGNORECASE)
_CPSIE = re.compile(r"\bcpsie\s+i\b", re.IGNORECASE)
_MSR_PRIMASK = re.compile(r"\bmsr\s+primask\b", re.IGNORECASE)
_MSR_BASEPRI = re.compile(r"\bmsr\s+basepri(?:_max)?\b", re.IGNORECASE)
PRIMASK_WRITES = {"__set_PRIMASK"}
BASEPRI_WRITES = {"__set_BASEPRI", "__set_BASEPRI_MAX"}
_ESCAPE = re.compile(r"\\[ntrv]")
_HINT = re.compile(rb"asm|primask|basepri|irq|interrupt|critical", re.IGNORECASE)
MAX_BODY = 4000  # characters: a mask wrapper is short; longer bodies are not summarised


@dataclass(frozen=True)
class MaskRoutine:
    """A function whose body masks interrupts and leaves them masked (``enter``), or unmasks
    more than it masks (``exit``); ``basepri``: the BASEPRI value an enter routine leaves (0:
    PRIMASK, every interrupt); ``how``: what in the body says so."""

    kind: str
    basepri: int = 0
    how: str = ""
    # An exit routine whose every mask write is BASEPRI set from this parameter (uC/CPU's
    # ``CPU_SR_Save(new_basepri)``, ``__set_BASEPRI(basePri)`` itself): a call with a nonzero
    # constant there raises BASEPRI to it, a call with a saved state restores; -1: none such.
    param: int = -1


def infer(unit: UnitContext, top: list[Cursor]) -> dict[str, MaskRoutine]:
    """Function name -> what it does to the mask, for the unit's functions that do something
    (definitions in this unit and its headers; earlier definitions summarised first, so a
    wrapper of a wrapper is followed)."""
    known: dict[str, MaskRoutine | None] = {}
    out: dict[str, MaskRoutine] = {}
    named = [n.encode() for n in sorted(unit.table_enters | unit.exits)]
    for c in top:
        if c.kind != K.FUNCTION_DECL or not c.is_definition():
            continue
        body = next((ch for ch in c.get_children() if ch.kind == K.COMPOUND_STMT), None)
        if body is None or body.extent.end.offset - body.extent.start.offset > MAX_BODY:
            continue
        f = body.extent.start.file
        text = unit.source(f.name)[body.extent.start.offset:body.extent.end.offset] if f else b""
        # Only a body that writes a mask register, or calls a routine that does, can be one:
        # its text names one (the rest are not walked, which keeps this cheap).
        if not _HINT.search(text) and not any(n in text for n in named) and not any(
                n.encode() in text for n in out):
            continue
        got = _summarise(unit, body, known)
        known[c.spelling] = got
        if got is not None:
            out[c.spelling] = got
    return out


def _summarise(unit: UnitContext, body: Cursor, known: dict) -> MaskRoutine | None:
    # ("off", basepri, how) | ("on", 0, how) | ("on", -1 - N, how): BASEPRI set from parameter N
    effects: list[tuple[str, int, str]] = []
    fn = body.semantic_parent
    params = {p.hash: n for n, p in enumerate(
        p for p in (fn.get_children() if fn is not None else ()) if p.kind == K.PARM_DECL)}
    locals_: dict[int, int | None] = {}
    for d in body.walk_preorder():
        if d.kind == K.VAR_DECL:
            init = [ch for ch in d.get_children() if ch.kind.is_expression()]
            locals_[d.hash] = _value(init[-1], locals_) if init else None
        elif d.kind == K.ASM_STMT:
            effects.extend(_asm(unit, d, locals_, params))
        elif d.kind == K.CALL_EXPR:
            effects.extend(_call(unit, d, known, locals_, params))
    from_param = {b for k, b, _ in effects if k == "on" and b < 0}
    if len(from_param) == 1 and all(b < 0 for _, b, _ in effects):
        return MaskRoutine("exit", 0, effects[0][2], param=-1 - from_param.pop())
    depth: list[tuple[int, str]] = []
    undone = ""
    for kind, basepri, how in effects:
        if kind == "off":
            depth.append((basepri, how))
        elif depth:
            depth.pop()
        else:
            undone = undone or how
    if depth:
        level = 0 if any(b == 0 for b, _ in depth) else min(b for b, _ in depth)
        return MaskRoutine("enter", level, depth[-1][1])
    return MaskRoutine("exit", 0, undone) if undone else None


def _call(unit: UnitContext, c: Cursor, known: dict, locals_: dict,
          params: dict[int, int]) -> list[tuple[str, int, str]]:
    from brickguard.bodies import _param_index

    ref = c.referenced
    name = ref.spelling if ref is not None else c.spelling
    args = list(c.get_arguments())
    got = known.get(name)
    at = 0 if name in PRIMASK_WRITES | BASEPRI_WRITES else got.param if got else -1
    if 0 <= at < len(args):
        v = _value(args[at], locals_)
        basepri = name not in PRIMASK_WRITES
        if v is None:
            n = _param_index(args[at], params)
            return [("on", -1 - n if basepri and n >= 0 else 0, f"{name}(saved state)")]
        if v == 0:
            return [("on", 0, f"{name}(0)")]
        return [("off", v if basepri else 0, f"{name}({v:#x})")]
    if name in known:
        if got is None:
            return []
        return [("off" if got.kind == "enter" else "on", got.basepri, f"{name}() ({got.how})")]
    if ref is not None and ref.is_definition():
        return []  # a body summarised as doing nothing to the mask (or too long to be a wrapper)
    if name in unit.table_enters and not name.startswith("__get_"):
        lv = unit.table_basepri.get(name, 0)
        return [("off", lv, f"{name}()")]
    if name in unit.exits:
        return [("on", 0, f"{name}()")]
    return []


def _asm(unit: UnitContext, a: Cursor, locals_: dict,
         params: dict[int, int]) -> list[tuple[str, int, str]]:
    from brickguard.bodies import _param_index

    ext = a.extent
    if ext.start.file is None or ext.end.file is None or (
            ext.start.file.name != ext.end.file.name):
        return []
    src = unit.source(ext.start.file.name)[ext.start.offset:ext.end.offset]
    text = src.decode("utf-8", "replace")
    if len(text) > 400 or not text.lstrip().startswith(("__asm", "asm")):
        return []  # spelled by a macro (``__COMPILER_BARRIER()``): its text is elsewhere
    # The template's escapes separate its instructions (``"mrs %0, primask\n\tcpsid i"``):
    # as written, ``\tcpsid`` has no word boundary before the mnemonic.
    text = _ESCAPE.sub(" ", text)
    if _CPSID.search(text):
        return [("off", 0, "cpsid i")]
    if _CPSIE.search(text):
        return [("on", 0, "cpsie i")]
    operands = [ch for ch in a.get_children() if ch.kind.is_expression()]
    consts = [v for ch in operands if ch.kind != K.DECL_REF_EXPR
              and (v := _value(ch, locals_)) is not None]
    for pattern, reg in ((_MSR_PRIMASK, "primask"), (_MSR_BASEPRI, "basepri")):
        if pattern.search(text):
            if consts and consts[-1]:
                return [("off", 0 if reg == "primask" else consts[-1],
                         f"msr {reg} ({consts[-1]:#x})")]
            n = max((_param_index(ch, params) for ch in operands), default=-1)
            return [("on", -1 - n if reg == "basepri" and n >= 0 else 0,
                     f"msr {reg} (saved state)")]
    return []


def _value(e: Cursor, locals_: dict) -> int | None:
    """An integer constant expression's value (``bodies._arg_value``), or a local's that was
    initialised with one."""
    from brickguard.bodies import _arg_value

    s = _uncast(e)
    if s.kind == K.DECL_REF_EXPR and s.referenced is not None and (
            s.referenced.kind == K.VAR_DECL and s.referenced.hash in locals_):
        return locals_[s.referenced.hash]
    return _arg_value(e)


def _uncast(e: Cursor) -> Cursor:
    from brickguard.bodies import _strip

    s = _strip(e)
    while s.kind == K.CSTYLE_CAST_EXPR:
        s = _strip(list(s.get_children())[-1])
    return s


_PRIO_FIELD = re.compile(r"prio|(?:^|_)ipl$", re.IGNORECASE)
_IRQ_FIELD = re.compile(r"irq|intrsrc|(?:^|_)src$", re.IGNORECASE)


def config_priorities(unit: UnitContext, var: Cursor) -> list[PriorityFact]:
    """Priorities an SDK takes in a configuration struct (a global with an initializer), read
    by its fields' names: a field that says priority (``intrPriority``, FSP's ``ipl``,
    ``cycle_end_ipl``; not a ``sub`` priority) with a constant, next to the field naming the
    interrupt line (an IRQn enumerator: ``intrSrc``, ``irq``, ``cycle_end_irq``; the one whose
    name shares the longest start with the priority's) gives that line its priority. When the
    struct holds one function (``.p_callback = gpt_cb``) and one priority, the function runs
    at it too: the fact is keyed by the function's name (``Program.priority`` looks a
    handler's priority up by its line, else by its name)."""
    t = var.type.get_canonical()
    if t.kind != TypeKind.RECORD:
        return []
    init = next((ch for ch in var.get_children() if ch.kind == K.INIT_LIST_EXPR), None)
    if init is None:
        return []
    fields = [f.spelling for f in t.get_declaration().get_children() if f.kind == K.FIELD_DECL]
    values: dict[str, Cursor] = {}
    for n, ch in enumerate(init.get_children()):
        toks = [tk.spelling for tk in ch.get_tokens()][:3]
        if len(toks) >= 3 and toks[0] == "." and toks[2] == "=":
            values[toks[1]] = ch
        elif n < len(fields) and not any(tk == "." for tk in toks[:1]):
            values[fields[n]] = ch
    prios, lines, funcs = {}, {}, []
    for name, ch in values.items():
        refs = [d.referenced for d in ch.walk_preorder()
                if d.kind == K.DECL_REF_EXPR and d.referenced is not None]
        enum = next((r.spelling for r in refs if r.kind == K.ENUM_CONSTANT_DECL
                     and r.spelling.endswith("_IRQn")), "")
        if enum and _IRQ_FIELD.search(name):
            lines[name] = enum
        elif _PRIO_FIELD.search(name) and "sub" not in name.lower():
            v = _value(list(ch.get_children())[-1] if toks_designated(ch) else ch, {})
            if v is not None and v >= 0:
                prios[name] = v
        funcs += [r.spelling for r in refs if r.kind == K.FUNCTION_DECL]
    loc = var.location
    where = Where(loc.file.name if loc.file else unit.main_file, loc.line, loc.column)
    out = []
    for name, v in prios.items():
        if lines:
            best = max(lines, key=lambda f: len(_common(f.lower(), name.lower())))
            out.append(PriorityFact(lines[best], v, where))
    if len(prios) == 1 and len(set(funcs)) == 1:
        out.append(PriorityFact(funcs[0], next(iter(prios.values())), where))
    return out


def toks_designated(ch: Cursor) -> bool:
    toks = [tk.spelling for tk in ch.get_tokens()][:1]
    return toks == ["."] and bool(list(ch.get_children()))


def _common(a: str, b: str) -> str:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return a[:n]


_W = 0xFFFFFFFF  # the encoders compute in uint32_t: every result wraps as C's does
_BINARY = {"+": lambda a, b: (a + b) & _W, "-": lambda a, b: (a - b) & _W,
           "*": lambda a, b: (a * b) & _W,
           "/": lambda a, b: a // b if b else None, "%": lambda a, b: a % b if b else None,
           "<<": lambda a, b: (a << b) & _W if 0 <= b < 32 else None,
           ">>": lambda a, b: a >> b if 0 <= b < 32 else None,
           "&": lambda a, b: a & b, "|": lambda a, b: a | b, "^": lambda a, b: a ^ b,
           "<": lambda a, b: int(a < b), ">": lambda a, b: int(a > b),
           "<=": lambda a, b: int(a <= b), ">=": lambda a, b: int(a >= b),
           "==": lambda a, b: int(a == b), "!=": lambda a, b: int(a != b),
           "&&": lambda a, b: int(bool(a and b)), "||": lambda a, b: int(bool(a or b))}
_UNARY = {"-": lambda a: -a & _W, "+": lambda a: a, "~": lambda a: ~a & _W,
          "!": lambda a: int(not a)}


def call_value(c: Cursor, depth: int = 0) -> int | None:
    """What a call returns for constant arguments, read from the called function's body when
    it is in sight and only computes (locals set from the parameters, by their initialisers
    or by plain ``x = ...;`` stores, then a return; uint32_t arithmetic, wrapping:
    CMSIS ``NVIC_EncodePriority(group, preempt, sub)``, an SDK's own encoder over it); None
    for anything else. A priority handed to a setter is often such a call."""
    ref = c.referenced
    d = ref.get_definition() if ref is not None and depth < 4 else None
    body = next((ch for ch in d.get_children() if ch.kind == K.COMPOUND_STMT),
                None) if d is not None else None
    if body is None:
        return None
    params = [p for p in d.get_children() if p.kind == K.PARM_DECL]
    args = list(c.get_arguments())
    if len(params) != len(args):
        return None
    env: dict[int, int] = {}
    for p, a in zip(params, args, strict=True):
        v = _compute(a, {}, depth)
        if v is None:
            return None
        env[p.hash] = v
    local: set[int] = set()  # the body's own variables (declared, maybe not yet set)
    for st in body.get_children():
        if st.kind == K.DECL_STMT:
            for var in st.get_children():
                if var.kind != K.VAR_DECL:
                    return None
                local.add(var.hash)
                init = [ch for ch in var.get_children() if ch.kind.is_expression()]
                if init:  # ``uint32_t bits;`` then ``bits = ...;`` (CMSIS's own encoder)
                    v = _compute(init[-1], env, depth)
                    if v is None:
                        return None
                    env[var.hash] = v
        elif st.kind == K.BINARY_OPERATOR and _assigned(st, local) is not None:
            lhs, rhs = list(st.get_children())
            v = _compute(rhs, env, depth)
            if v is None:
                return None
            env[lhs.referenced.hash] = v
        elif st.kind == K.RETURN_STMT:
            ch = list(st.get_children())
            return _compute(ch[0], env, depth) if ch else None
        else:
            return None  # a store, a branch, a loop: not a pure computation
    return None


def _assigned(st: Cursor, local: set[int]) -> Cursor | None:
    """The local a statement ``x = expr;`` stores to, or None for any other statement."""
    ch = list(st.get_children())
    if len(ch) != 2 or _operator(st, ch[0].extent.end.offset) != "=":
        return None
    ref = ch[0].referenced if ch[0].kind == K.DECL_REF_EXPR else None
    return ref if ref is not None and ref.hash in local else None


def _compute(e: Cursor, env: dict[int, int], depth: int) -> int | None:
    from brickguard.bodies import _const_int, _evaluate

    ch = list(e.get_children())
    if e.kind in (K.PAREN_EXPR, K.UNEXPOSED_EXPR, K.CSTYLE_CAST_EXPR) and ch:
        return _compute(ch[-1], env, depth)
    if e.kind == K.DECL_REF_EXPR and e.referenced is not None and e.referenced.hash in env:
        return env[e.referenced.hash]
    if e.kind == K.CALL_EXPR:
        return call_value(e, depth + 1)
    v = _const_int(e)
    if v is None and e.kind not in (K.DECL_REF_EXPR, K.BINARY_OPERATOR, K.UNARY_OPERATOR,
                                    K.CONDITIONAL_OPERATOR):
        v = _evaluate(e)  # a literal spelled in a macro's body has no tokens of its own
    if v is not None:
        return v
    if e.kind == K.CONDITIONAL_OPERATOR and len(ch) == 3:
        test = _compute(ch[0], env, depth)
        return None if test is None else _compute(ch[1] if test else ch[2], env, depth)
    if e.kind == K.BINARY_OPERATOR and len(ch) == 2:
        a, b = _compute(ch[0], env, depth), _compute(ch[1], env, depth)
        op = _operator(e, ch[0].extent.end.offset)
        return None if a is None or b is None or op not in _BINARY else _BINARY[op](a, b)
    if e.kind == K.UNARY_OPERATOR and len(ch) == 1:
        a = _compute(ch[0], env, depth)
        op = _operator(e, e.extent.start.offset)
        return None if a is None or op not in _UNARY else _UNARY[op](a)
    return _evaluate(e) if e.kind == K.BINARY_OPERATOR else None


def _operator(e: Cursor, at: int) -> str:
    """The first punctuation token of ``e`` at or after offset ``at``."""
    for t in e.get_tokens():
        if t.extent.start.offset >= at and t.kind == TokenKind.PUNCTUATION and t.spelling != "(":
            return t.spelling
    return ""


_LINE_REGISTERS = {"ICER": "disable", "ISER": "enable"}  # the NVIC's clear- and set-enable words


def line_masks(unit: UnitContext, top: list[Cursor]) -> dict[str, str]:
    """Function name -> "disable" | "enable", for the unit's functions that mask or unmask the
    one interrupt line their first parameter names: the body writes the NVIC's clear-enable
    (``ICER``) or set-enable (``ISER``) word with it (LPCOpen's ``NVIC_DisableIRQ``, an SDK's
    own ``irq_line_off(n)``), or hands it to a routine that does (a listed one-line mask, or
    one found here before). A call to one masks that line alone, like
    ``HAL_NVIC_DisableIRQ``."""
    known = {n: "disable" for n in unit.mask_on} | {n: "enable" for n in unit.mask_off}
    out: dict[str, str] = {}
    for c in top:
        if c.kind == K.FUNCTION_DECL and c.spelling not in known and c.get_definition() is None:
            kind = _declared_line_mask(c)
            if kind:
                out[c.spelling] = known[c.spelling] = kind
            continue
        if c.kind != K.FUNCTION_DECL or not c.is_definition() or c.spelling in known:
            continue
        params = [p for p in c.get_children() if p.kind == K.PARM_DECL]
        body = next((ch for ch in c.get_children() if ch.kind == K.COMPOUND_STMT), None)
        if not params or body is None or (
                body.extent.end.offset - body.extent.start.offset > MAX_BODY):
            continue
        f = body.extent.start.file
        text = unit.source(f.name)[body.extent.start.offset:body.extent.end.offset] if f else b""
        if b"ICER" not in text and b"ISER" not in text and not any(
                n.encode() in text for n in known):
            continue
        first = params[0].hash
        kinds = set()
        for d in body.walk_preorder():
            if d.kind == K.CALL_EXPR and d.spelling in known:
                args = list(d.get_arguments())
                if args and _names(args[0], first):
                    kinds.add(known[d.spelling])
            elif d.kind == K.BINARY_OPERATOR:
                ch = list(d.get_children())
                if len(ch) != 2 or _operator(d, ch[0].extent.end.offset) != "=":
                    continue
                lhs = _uncast(ch[0])
                reg = _uncast(next(lhs.get_children(), lhs)) if (
                    lhs.kind == K.ARRAY_SUBSCRIPT_EXPR) else lhs
                if reg.kind == K.MEMBER_REF_EXPR and reg.spelling in _LINE_REGISTERS and (
                        _names(d, first)):
                    kinds.add(_LINE_REGISTERS[reg.spelling])
        if len(kinds) == 1:
            out[c.spelling] = known[c.spelling] = kinds.pop()
    return out


def _declared_line_mask(c: Cursor) -> str:
    """"disable" | "enable" for a library call declared with no body here whose first
    parameter is the device's IRQ number (CMSIS's ``IRQn_Type``) and whose name says it
    switches an interrupt line off or on (Artery's ``nvic_irq_disable(IRQn_Type irqn)``,
    ``nvic_irq_enable(irqn, preempt, sub)``); "" for any other."""
    params = [p for p in c.get_children() if p.kind == K.PARM_DECL]
    if not params or "IRQn" not in params[0].type.spelling:
        return ""
    from brickguard.bodies import _name_words

    words = _name_words(c.spelling)
    if not words & {"irq", "nvic", "interrupt", "int"}:
        return ""
    says = set(words & {"disable", "enable"})
    return says.pop() if len(says) == 1 else ""


def _names(e: Cursor, param: int) -> bool:
    """Whether expression ``e`` reads the parameter whose hash is ``param``."""
    return any(d.kind == K.DECL_REF_EXPR and d.referenced is not None
               and d.referenced.hash == param for d in e.walk_preorder())
