"""What the hardware rules (BG3xx, BG5xx stack depth) read from one translation unit.

A second, small walk over the bodies that touch hardware (a function whose text names a watched
call, a register block or a watched macro): the values the code hands the chip, when they are
constant. ``bodies`` is the walk for concurrency; this one keeps other state (the fields of local
configuration structs, register accesses) and is only run where it can find something.

- *Struct fields*: ``g.Pin = GPIO_PIN_6;``, ``osc.PLL.PLLN = 336;``, ``= {0}`` and designated
  initialisers. A watched call given ``&g`` (``HAL_GPIO_Init``, ``HAL_RCC_OscConfig``...)
  records the fields set on every path to it: an assignment inside an if/switch arm or loop
  that the call is not in makes its field unknown.
- *Register accesses*: ``GPIOB->AFR[0] |= ...``, ``RCC->AHB1ENR |= RCC_AHB1ENR_GPIOBEN``, read
  or written, with the block named through the macros (``LED_PORT`` -> ``GPIOB``).
- *Macro uses* in the file: ``__HAL_RCC_GPIOB_CLK_ENABLE()`` (also behind a project alias such
  as ``I2Cx_SCL_GPIO_CLK_ENABLE()``), ``__HAL_PWR_VOLTAGESCALING_CONFIG(...)``, instance names
  (``SPI4``), alternate-function macros.

Values are read the way the preprocessor would: the expression's tokens, macros expanded from
the unit's own definitions, then evaluated as a C integer constant expression (casts dropped);
the names it went through are kept (``I2Cx_SCL_AF``, ``GPIO_AF4_I2C1``), because the names say
what the author meant.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from clang.cindex import Cursor, CursorKind, TypeKind

from brickguard.facts import (
    HwCall,
    MacroUse,
    RegisterAccess,
    Value,
    Where,
    c_int,
)

K = CursorKind
# Calls whose constant arguments (and the fields of structs passed by address) are recorded.
WATCHED_CALLS = {
    "HAL_GPIO_Init", "LL_GPIO_Init", "HAL_RCC_OscConfig", "HAL_RCC_ClockConfig",
    "LL_GPIO_SetAFPin_0_7", "LL_GPIO_SetAFPin_8_15", "LL_GPIO_SetPinMode",
    "HAL_PWREx_ControlVoltageScaling", "LL_PWR_SetRegulVoltageScaling", "LL_FLASH_SetLatency",
    "xTaskCreate", "xTaskCreateStatic", "osThreadNew", "osThreadCreate",
    "LL_AHB1_GRP1_EnableClock", "LL_APB1_GRP1_EnableClock", "LL_APB2_GRP1_EnableClock",
}
# Register blocks whose accesses are recorded (GPIOx, RCC, FLASH, PWR) and, for the errata rule,
# any peripheral instance (an upper-case name ending in a digit: I2C1, USART6, TIM10).
_BLOCK = re.compile(
    r"^(GPIO[A-K]|RCC|FLASH|PWR|RTC|BKPSRAM|[A-Z][A-Z0-9_]*[0-9]|ADC|DAC|SDIO|DCMI|ETH|RNG)$")
# Macro uses that are recorded: clock enables, regulator and latency set-up, AF and instance names.
_MACRO = re.compile(
    r"^(__HAL_RCC_\w+_CLK_ENABLE|__HAL_PWR_VOLTAGESCALING_CONFIG|__HAL_FLASH_SET_LATENCY"
    r"|GPIO_AF\d+_\w+|RCC_(AHB|APB)\d?ENR_\w+EN|GPIO[A-K]|(ADC|CAN|DAC|DCMI|DMA2D|ETH|FMC|FSMC"
    r"|FMPI2C|I2C|I2S|LPTIM|LTDC|QUADSPI|SAI|SDIO|SPDIFRX|SPI|TIM|UART|USART|DFSDM|CEC)\d+)$"
)
_TRIGGER = re.compile(
    rb"HAL_GPIO_Init|LL_GPIO_|HAL_RCC_|HAL_PWR|LL_PWR|LL_FLASH|->|xTaskCreate|osThread|"
    rb"CLK_ENABLE|EnableClock|VOLTAGESCALING|SET_BIT|MODIFY_REG|WRITE_REG"
)
_TOKEN = re.compile(
    r"0[xX][0-9a-fA-F]+[uUlL]*|\d+[uUlL]*|[A-Za-z_]\w*|<<=|>>=|<<|>>|&&|\|\||->|[=!<>]=|"
    r"[-+*/%&|^]=|\S"
)
_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
_INT = re.compile(r"^(0[xX][0-9a-fA-F]+|\d+)[uUlL]*$")
_TYPE_WORDS = {"const", "volatile", "unsigned", "signed", "int", "long", "short", "char",
               "struct", "*"}
_OPS = {"|", "&", "^", "~", "<<", ">>", "+", "-", "*", "/", "%", "(", ")", "!", "==", "!=",
        "<", ">", "<=", ">=", "&&", "||", "?", ":"}
MAX_DEPTH = 12


class Macros:
    """The unit's macro definitions, tokenised on first use, and expansion/evaluation."""

    def __init__(self, top: list[Cursor]) -> None:
        self._cursors: dict[str, Cursor] = {}
        for c in top:
            if c.kind == K.MACRO_DEFINITION:
                self._cursors[c.spelling] = c
        self._defs: dict[str, tuple[list[str] | None, list[str]] | None] = {}

    def get(self, name: str) -> tuple[list[str] | None, list[str]] | None:
        """(parameters, or None for an object-like macro; body tokens)."""
        if name in self._defs:
            return self._defs[name]
        c = self._cursors.get(name)
        got = None
        if c is not None:
            toks = list(c.get_tokens())
            words = [t.spelling for t in toks]
            if len(toks) > 1 and words[1] == "(" and (
                    toks[1].extent.start.offset == toks[0].extent.end.offset):
                close = words.index(")") if ")" in words else len(words) - 1
                params = [w for w in words[2:close] if w != ","]
                got = (params, words[close + 1:])
            else:
                got = (None, words[1:])
        self._defs[name] = got
        return got

    def expand(self, tokens: list[str], names: list[str], depth: int = 0,
               short: bool = False) -> list[str]:
        """``tokens`` with macros expanded (``names`` collects every macro name met). With
        ``short``, only aliases (bodies of a few tokens) are followed: ``SPIx`` -> ``SPI4``."""
        out: list[str] = []
        i = 0
        while i < len(tokens):
            t = tokens[i]
            d = self.get(t) if depth < MAX_DEPTH and (t[0].isalpha() or t[0] == "_") else None
            if d is None or (short and len(d[1]) > 6):
                if d is not None:
                    names.append(t)
                out.append(t)
                i += 1
                continue
            params, body = d
            names.append(t)
            if params is None:
                out.extend(self.expand(body, names, depth + 1, short))
                i += 1
                continue
            if i + 1 >= len(tokens) or tokens[i + 1] != "(":
                out.append(t)
                i += 1
                continue
            args, cur, level, j = [], [], 0, i + 2
            while j < len(tokens):
                w = tokens[j]
                if w == "(":
                    level += 1
                elif w == ")":
                    if level == 0:
                        break
                    level -= 1
                if w == "," and level == 0:
                    args.append(cur)
                    cur = []
                else:
                    cur.append(w)
                j += 1
            args.append(cur)
            bind = dict(zip(params, args, strict=False))
            sub = [w for b in body for w in (bind.get(b, [b]))]
            out.extend(self.expand(sub, names, depth + 1, short))
            i = j + 1
        return out

    def value(self, tokens: list[str]) -> Value:
        names: list[str] = []
        flat = self.expand(tokens, names)
        return Value(evaluate(flat), tuple(dict.fromkeys(names)), " ".join(tokens)[:80])

    def aliases(self, tokens: list[str]) -> tuple[str, ...]:
        """The names ``tokens`` go through when only aliases are followed."""
        names: list[str] = []
        flat = self.expand(tokens, names, short=True)
        return tuple(dict.fromkeys([*names, *(w for w in flat if w[0].isalpha() or w[0] == "_")]))


def tokenize(text: str) -> list[str]:
    return _TOKEN.findall(_COMMENT.sub(" ", text))


def evaluate(tokens: list[str]) -> int | None:
    """A C integer constant expression's value (32-bit unsigned), casts dropped; None when
    anything in it is not a constant."""
    words: list[str] = []
    i = 0
    while i < len(tokens):
        t = tokens[i]
        if t == "(":  # a cast: ( type words ) before an operand
            j = i + 1
            while j < len(tokens) and (tokens[j] in _TYPE_WORDS or (
                    tokens[j] not in _OPS and not _INT.match(tokens[j]))):
                j += 1
            if j > i + 1 and j < len(tokens) and tokens[j] == ")" and j + 1 < len(tokens) and (
                    tokens[j + 1] == "(" or _INT.match(tokens[j + 1]) or tokens[j + 1] == "~"):
                i = j + 1
                continue
        m = _INT.match(t)
        if m:
            words.append(str(c_int(m.group(1))))
        elif t in _OPS:
            words.append({"/": "//", "&&": " and ", "||": " or ", "!": " not "}.get(t, t))
        else:
            return None
        i += 1
    if not words:
        return None
    text = " ".join(words)
    if "?" in text:
        return None
    try:
        result = eval(text, {"__builtins__": {}}, {})  # only numbers and operators reach here
    except (SyntaxError, ZeroDivisionError, TypeError, ValueError, OverflowError):
        return None
    return int(result) & 0xFFFFFFFF if isinstance(result, (int, bool)) else None


@dataclass
class _Field:
    value: Value
    path: tuple  # the branch path the assignment was made on


class HardwareWalker:
    """One function body: struct fields, watched calls, register accesses."""

    def __init__(self, unit, macros: Macros, usr: str, file: str, src: bytes) -> None:
        self.u = unit
        self.m = macros
        self.usr = usr
        self.file = file
        self.src = src
        self.fields: dict[int, dict[str, _Field]] = {}  # struct variable (decl hash) -> fields
        self.calls: list[HwCall] = []
        self.registers: list[RegisterAccess] = []
        self.path: list[tuple[int, int]] = []

    @staticmethod
    def wanted(body_text: bytes) -> bool:
        return _TRIGGER.search(body_text) is not None

    def where(self, c: Cursor) -> Where:
        loc = c.location
        return Where(loc.file.name if loc.file else self.file, loc.line, loc.column)

    def span(self, c: Cursor) -> tuple[int, int] | None:
        """The cursor's extent in this file, or None inside a macro expansion (its extent there
        is not the text it came from)."""
        s, e = c.extent.start, c.extent.end
        if s.file is None or e.file is None or s.file.name != self.file or (
                e.file.name != self.file) or not 0 <= s.offset < e.offset <= len(self.src):
            return None
        return s.offset, e.offset

    def text_tokens(self, lo: int, hi: int) -> list[str]:
        return tokenize(self.src[lo:hi].decode("utf-8", "replace"))

    def tokens(self, c: Cursor) -> list[str]:
        got = self.span(c)
        return self.text_tokens(*got) if got else []

    def rhs_tokens(self, whole: Cursor, lhs: Cursor) -> list[str]:
        """The right side of ``lhs = ...`` / ``lhs |= ...`` as written (it may be one macro)."""
        a, b = self.span(whole), self.span(lhs)
        if a is None or b is None:
            return []
        toks = self.text_tokens(b[1], a[1])
        return toks[1:] if toks and toks[0].endswith("=") else []

    def arg_tokens(self, call: Cursor, count: int) -> list[list[str]]:
        """A call's arguments as written, split at its top-level commas."""
        toks = self.tokens(call)
        if "(" not in toks or not toks or toks[-1] != ")":
            return []
        out, cur, level = [], [], 0
        for w in toks[toks.index("(") + 1 : -1]:
            if w == "," and level == 0:
                out.append(cur)
                cur = []
                continue
            level += (w in "([{") - (w in ")]}")
            cur.append(w)
        out.append(cur)
        return out if len(out) == count else []

    # -- the walk ------------------------------------------------------------------------------
    def walk(self, c: Cursor) -> None:
        k = c.kind
        ch = list(c.get_children())
        if k in (K.IF_STMT, K.WHILE_STMT, K.FOR_STMT, K.DO_STMT, K.SWITCH_STMT, K.CASE_STMT,
                 K.DEFAULT_STMT, K.CONDITIONAL_OPERATOR):
            start = c.extent.start.offset
            for n, sub in enumerate(ch):
                self.path.append((start, n))
                self.walk(sub)
                self.path.pop()
            return
        if k == K.DECL_STMT:
            for var in ch:
                if var.kind == K.VAR_DECL:
                    self.declare(var)
            return
        if k == K.BINARY_OPERATOR and len(ch) == 2 and self.op(ch[0], ch[1]) == "=":
            self.walk(ch[1])
            self.assign(c, ch[0], ch[1], "write")
            return
        if k == K.COMPOUND_ASSIGNMENT_OPERATOR and len(ch) == 2:
            self.walk(ch[1])
            self.assign(c, ch[0], ch[1], "rmw")
            return
        if k == K.CALL_EXPR:
            self.call(c, ch)
        if k == K.MEMBER_REF_EXPR:
            self.register(c, "read", None)
        for sub in ch:
            self.walk(sub)

    def op(self, a: Cursor, b: Cursor) -> str:
        lo, hi = a.extent.end.offset, b.extent.start.offset
        if a.extent.end.file is None or a.extent.end.file.name != self.file or not (
                0 <= lo < hi <= len(self.src)) or hi - lo > 40:
            return "?"
        text = re.sub(r"/\*.*?\*/|//[^\n]*", "", self.src[lo:hi].decode("utf-8", "replace"))
        return text.strip().lstrip(")").strip()

    def declare(self, var: Cursor) -> None:
        init = [x for x in var.get_children() if x.kind.is_expression()]
        if not init:
            return
        e = _strip(init[-1])
        if e.kind == K.INIT_LIST_EXPR and var.type.get_canonical().kind == TypeKind.RECORD:
            self.fields[var.hash] = {}
            self.init_list(var.hash, "", var.type.get_canonical(), e)
        else:
            self.walk(init[-1])

    def init_list(self, h: int, prefix: str, rtype, e: Cursor) -> None:
        """``= {0}``: every field 0; ``{.Pin = X, .PLL = {.PLLN = 336}}`` or positional
        ``{X, Y}``: those fields, read from the initialiser's text (libclang does not expose
        the designators)."""
        toks = self.tokens(e)
        if len(toks) < 2 or toks[0] != "{" or toks[-1] != "}":
            return
        self.init_tokens(h, prefix, rtype, toks[1:-1])

    def init_tokens(self, h: int, prefix: str, rtype, toks: list[str]) -> None:
        items, cur, level = [], [], 0
        for w in toks:
            if w == "," and level == 0:
                items.append(cur)
                cur = []
                continue
            level += (w in "({[") - (w in ")}]")
            cur.append(w)
        if cur:
            items.append(cur)
        fields = list(rtype.get_fields()) if rtype is not None else []
        if len(items) == 1 and evaluate(items[0]) == 0 and rtype is not None:
            self.zero(h, prefix, rtype)
            return
        for n, item in enumerate(items):
            if len(item) > 2 and item[0] == "." and "=" in item:
                name, value = item[1], item[item.index("=") + 1:]
                f = next((x for x in fields if x.spelling == name), None)
            elif n < len(fields):
                f, value = fields[n], item
                name = f.spelling
            else:
                continue
            ftype = f.type.get_canonical() if f is not None else None
            if value and value[0] == "{":
                sub = ftype if ftype is not None and ftype.kind == TypeKind.RECORD else None
                self.init_tokens(h, f"{prefix}{name}.", sub, value[1:-1])
            elif value:
                self.fields[h][f"{prefix}{name}"] = _Field(self.m.value(value), tuple(self.path))

    def zero(self, h: int, prefix: str, rtype) -> None:
        for f in rtype.get_fields():
            ft = f.type.get_canonical()
            if ft.kind == TypeKind.RECORD:
                self.zero(h, f"{prefix}{f.spelling}.", ft)
            else:
                self.fields[h][f"{prefix}{f.spelling}"] = _Field(Value(0, (), "0"), ())

    def assign(self, whole: Cursor, lhs: Cursor, rhs: Cursor, kind: str) -> None:
        root, path = _member_path(lhs)
        toks = self.rhs_tokens(whole, lhs)
        value = self.m.value(toks) if toks else Value(None, (), "?")
        if root is not None and path and kind == "write":
            ref = root.referenced
            if ref is not None and ref.kind == K.VAR_DECL:
                self.fields.setdefault(ref.hash, {})[path] = _Field(value, tuple(self.path))
        if kind == "rmw":
            op = ""
            span_lhs, span_all = self.span(lhs), self.span(whole)
            if span_lhs and span_all:
                op = (self.text_tokens(span_lhs[1], span_all[1]) or ["?"])[0]
            kind = {"|=": "set", "&=": "clear"}.get(op, "rmw")
        if _strip(lhs).kind in (K.MEMBER_REF_EXPR, K.ARRAY_SUBSCRIPT_EXPR):
            self.register(lhs, kind, value)
        self.walk_lhs(lhs)

    def walk_lhs(self, lhs: Cursor) -> None:
        """Indices and pointers read on the left of an assignment (not the target itself)."""
        for sub in lhs.get_children():
            if sub.kind == K.MEMBER_REF_EXPR:
                self.walk_lhs(sub)
            elif sub.kind == K.CALL_EXPR:
                self.walk(sub)

    def register(self, c: Cursor, kind: str, value: Value | None) -> bool:
        """``GPIOB->AFR[1]``, ``RCC->AHB1ENR``: an access to a register block named by a macro."""
        node, reg = _strip(c), []
        while node.kind == K.ARRAY_SUBSCRIPT_EXPR:
            base, index = list(node.get_children())
            n = evaluate(self.tokens(index))
            reg.append(f"[{n if n is not None else '*'}]")
            node = _strip(base)
        if node.kind != K.MEMBER_REF_EXPR:
            return False
        ch = list(node.get_children())
        if not ch or ch[0].type.get_canonical().kind != TypeKind.POINTER:
            return False
        base = ch[0]
        if _strip(base).kind == K.DECL_REF_EXPR:
            return False  # a pointer variable or parameter: which block is not known here
        block = next((n for n in self.m.aliases(self.tokens(base)) if _BLOCK.match(n)), None)
        if block is None:
            return False
        name = node.spelling + "".join(reversed(reg))
        self.registers.append(RegisterAccess(self.usr, block, name, kind, value, self.where(c),
                                             c.extent.start.offset))
        return True

    def call(self, c: Cursor, ch: list[Cursor]) -> None:
        ref = c.referenced
        if ref is None or ref.kind != K.FUNCTION_DECL:
            return  # a call through a pointer: bodies.BodyWalker records it
        name = ref.spelling
        if name not in WATCHED_CALLS:
            return
        args = list(c.get_arguments())
        values, fields = [], []
        here = tuple(self.path)
        texts = self.arg_tokens(c, len(args))
        for n, a in enumerate(args):
            values.append(self.m.value(texts[n]) if texts else Value(None, (), "?"))
            e = _strip(a)
            if e.kind == K.UNARY_OPERATOR:
                inner = _strip(next(iter(e.get_children()), e))
                r = inner.referenced if inner.kind == K.DECL_REF_EXPR else None
                if r is not None and r.hash in self.fields:
                    for path, f in sorted(self.fields[r.hash].items()):
                        ok = here[: len(f.path)] == f.path
                        fields.append((n, path, f.value if ok else Value(None, (), "?")))
        self.calls.append(HwCall(self.usr, name, self.where(c), c.extent.start.offset,
                                 tuple(values), tuple(fields)))


def macro_uses(unit, macros: Macros, top: list[Cursor], functions: list[tuple[int, int, str]]
               ) -> list[MacroUse]:
    """Watched macros used in the main file (``functions``: (start, end, USR) of its bodies)."""
    out = []
    main = unit.main_file
    for c in top:
        if c.kind != K.MACRO_INSTANTIATION:
            continue
        f = c.location.file
        if f is None or f.name != main:
            continue
        d = macros.get(c.spelling)
        toks = [t.spelling for t in c.get_tokens()] if d is not None and d[0] is not None else []
        names = macros.aliases(toks if len(toks) > 1 and toks[1] == "(" else [c.spelling])
        hit = [n for n in names if _MACRO.match(n)]
        if not hit:
            continue
        off = c.extent.start.offset
        fn = next((u for lo, hi, u in functions if lo <= off < hi), "")
        args: list[Value] = []
        if len(toks) > 2 and toks[1] == "(":
            inner, cur, level = [], [], 0
            for w in toks[2:-1]:
                if w == "," and level == 0:
                    inner.append(cur)
                    cur = []
                    continue
                level += (w == "(") - (w == ")")
                cur.append(w)
            inner.append(cur)
            args = [macros.value(a) for a in inner if a]
        where = Where(f.name, c.location.line, c.location.column)
        out.append(MacroUse(fn, c.spelling, tuple(hit), tuple(args), where, off))
    return out


def _strip(c: Cursor) -> Cursor:
    while c.kind in (K.PAREN_EXPR, K.UNEXPOSED_EXPR, K.CSTYLE_CAST_EXPR):
        ch = list(c.get_children())
        if not ch:
            break
        c = ch[-1]
    return c


def _member_path(lhs: Cursor) -> tuple[Cursor | None, str]:
    """``g.PLL.PLLN`` -> (the DECL_REF of g, "PLL.PLLN"); (None, "") for anything else."""
    parts = []
    node = _strip(lhs)
    while node.kind == K.MEMBER_REF_EXPR:
        ch = list(node.get_children())
        if not ch:
            return None, ""
        base = _strip(ch[0])
        if base.type.get_canonical().kind == TypeKind.POINTER:
            return None, ""
        parts.append(node.spelling)
        node = base
    if node.kind != K.DECL_REF_EXPR or not parts:
        return None, ""
    return node, ".".join(reversed(parts))
