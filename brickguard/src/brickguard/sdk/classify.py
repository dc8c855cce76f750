"""Turn clang's diagnostics into SDK-truth findings (BG201-BG205).

A hallucinated API rarely survives as an AST node: a call with the wrong argument count vanishes,
an unknown identifier becomes a recovery expression. What survives is the diagnostic, with a
location. So the SDK rules read diagnostics, look the names up in the SDK indexes, and claim the
diagnostics they explain, so the front end does not report them a second time as BG000.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from brickguard.findings import Finding, Level, Location
from brickguard.sdk.model import SdkIndex
from brickguard.sdk.suggest import suggest


@dataclass(frozen=True, slots=True)
class Diag:
    file: str
    line: int
    column: int
    severity: str  # "warning" | "error" | "fatal"
    message: str


@dataclass
class SdkFinding:
    rule: str
    message: str
    file: str
    line: int
    column: int
    name: str = ""  # the wrong name (or the called function)
    suggestions: list[str] = field(default_factory=list)
    related: tuple[Location, ...] = ()
    claimed: tuple[int, ...] = ()  # indexes of the diagnostics this finding explains

    def to_finding(self) -> Finding:
        return Finding(
            rule=self.rule,
            level=Level.error,
            message=self.message,
            location=Location(self.file, self.line, self.column),
            related=self.related,
        )


@dataclass
class SdkContext:
    target: SdkIndex
    others: Sequence[SdkIndex] = ()
    project_functions: frozenset[str] = frozenset()


_UNDECLARED_FN = re.compile(
    r"^(?:call to undeclared (?:library )?function|implicit declaration of function) '(\w+)'"
)
_UNDECLARED_ID = re.compile(r"^use of undeclared identifier '(\w+)'")
_NO_MEMBER = re.compile(r"^no member named '(\w+)' in '(?:struct |union )?([^']+)'")
_ARG_COUNT = re.compile(
    r"^too (many|few) arguments to function call, (?:expected (?:at least |at most )?(\d+)"
    r"|expected single argument|single argument)(?:.*?have (\d+))?"
)
_MACRO_ARITY = re.compile(r"^too (many|few) arguments provided to function-like macro invocation")
_PASSING = re.compile(
    r"^(?:incompatible (?:integer to pointer|pointer to integer|pointer types) conversion )?"
    r"(?:incompatible pointer types )?passing '([^']+)'(?: \(aka [^)]*\))? to parameter of "
    r"(?:incompatible )?type '([^']+)'"
)
_ENUM_CONV = re.compile(
    r"^implicit conversion from enumeration type '([^']+)' to different enumeration type '([^']+)'"
)
_MACRO_STYLE = re.compile(r"^_*[A-Z][A-Z0-9_]*$")
_WORD = re.compile(r"[A-Za-z_]\w*")


def classify(
    diags: Sequence[Diag], ctx: SdkContext, read_source: Callable[[str], str | None]
) -> list[SdkFinding]:
    """Findings for the diagnostics of one translation unit; each lists the ones it claims."""
    out: list[SdkFinding] = []
    texts: dict[str, list[str] | None] = {}
    used_cache: dict[str, set[str]] = {}

    def lines_of(file: str) -> list[str] | None:
        if file not in texts:
            text = read_source(file)
            texts[file] = text.splitlines() if text is not None else None
            used_cache[file] = set(_WORD.findall(text or ""))
        return texts[file]

    claimed: set[int] = set()
    for i, d in enumerate(diags):
        if i in claimed:
            continue
        lines = lines_of(d.file)
        used = used_cache.get(d.file, set())
        f = _one(i, d, diags, ctx, lines, used)
        if f is not None:
            claimed.update(f.claimed)
            out.append(f)
    return out


def _one(i, d, diags, ctx, lines, used) -> SdkFinding | None:  # noqa: C901 - one dispatch table
    msg = d.message
    if m := _UNDECLARED_FN.match(msg):
        return _unknown_call(i, d, m.group(1), ctx, used)
    if m := _MACRO_ARITY.match(msg):
        return _macro_arity(i, d, diags, ctx, lines, m.group(1))
    if m := _UNDECLARED_ID.match(msg):
        return _unknown_identifier(i, d, m.group(1), ctx, used)
    if m := _NO_MEMBER.match(msg):
        return _unknown_field(i, d, m.group(1), m.group(2), ctx, used)
    if m := _ARG_COUNT.match(msg):
        return _arg_count(i, d, ctx, lines, msg)
    if m := _PASSING.match(msg):
        return _bad_argument(i, d, ctx, lines, m.group(1), m.group(2))
    if m := _ENUM_CONV.match(msg):
        return _enum_mix(i, d, ctx, m.group(1), m.group(2))
    return None


def _other_with(ctx: SdkContext, test: Callable[[SdkIndex], bool]) -> SdkIndex | None:
    return next((o for o in ctx.others if test(o)), None)


def _did_you_mean(s: list[str]) -> str:
    if not s:
        return ""
    return "; did you mean " + " or ".join(f"'{x}'" for x in s) + "?"


def _decl_loc(file: str, line: int, text: str) -> tuple[Location, ...]:
    return (Location(file, line, 1, text),) if file else ()


def _unknown_call(i, d, name, ctx: SdkContext, used) -> SdkFinding | None:
    if name in ctx.project_functions:
        return None  # defined elsewhere in the project: a missing prototype, not a made-up API
    t = ctx.target
    other = _other_with(ctx, lambda o: name in o.functions or name in o.macros)
    pool = [*t.functions, *(m for m in t.macros.values() if m.function_like)]
    pool_names = [p if isinstance(p, str) else p.name for p in pool]
    sugg = suggest(name, [*pool_names, *ctx.project_functions], used)
    if other is not None:
        decl = other.functions.get(name) or other.macros[name]
        sig = decl.signature
        return SdkFinding(
            "BG204",
            f"'{name}' is from {other.label}, not the target SDK {t.label} (there: {sig})"
            + _did_you_mean(sugg[:1]),
            d.file, d.line, d.column, name, sugg, _decl_loc(decl.file, decl.line, sig), (i,),
        )
    macro_like = _MACRO_STYLE.match(name) is not None
    rule, what = ("BG203", "macro") if macro_like else ("BG201", "function")
    return SdkFinding(
        rule,
        f"call to unknown {what} '{name}': declared neither in the SDK {t.label} nor in the "
        f"project" + _did_you_mean(sugg),
        d.file, d.line, d.column, name, sugg, (), (i,),
    )


def _unknown_identifier(i, d, name, ctx: SdkContext, used) -> SdkFinding | None:
    t = ctx.target
    pool = [*t.macros, *t.enum_constants]
    sugg = suggest(name, pool, used)
    other = _other_with(ctx, lambda o: name in o.macros or name in o.enum_constants)
    if other is not None:
        decl = other.macros.get(name) or other.enum_constants[name]
        return SdkFinding(
            "BG204",
            f"'{name}' is from {other.label}, not the target SDK {t.label}"
            + _did_you_mean(sugg[:1]),
            d.file, d.line, d.column, name, sugg, _decl_loc(decl.file, decl.line, name), (i,),
        )
    if not sugg and not _MACRO_STYLE.match(name):
        return None  # a misspelt local variable: the compiler's own message says it best
    what = "macro or enum constant"
    return SdkFinding(
        "BG203",
        f"unknown {what} '{name}': not in the SDK {t.label}" + _did_you_mean(sugg),
        d.file, d.line, d.column, name, sugg, (), (i,),
    )


def _record_name(raw: str) -> str:
    return raw.replace("const ", "").replace("volatile ", "").strip()


def _unknown_field(i, d, name, record, ctx: SdkContext, used) -> SdkFinding | None:
    t = ctx.target
    record = _record_name(record)
    fields = t.structs.get(record) or t.structs.get(f"struct {record}")
    if fields is None:
        return None  # the project's own struct: not the SDK's business
    sugg = suggest(name, list(fields), used, threshold=0.45)
    other = _other_with(ctx, lambda o: name in o.structs.get(record, {}))
    if other is not None:
        return SdkFinding(
            "BG204",
            f"field '{name}' of '{record}' is from {other.label}, not the target SDK {t.label}"
            + _did_you_mean(sugg[:1]),
            d.file, d.line, d.column, name, sugg, (), (i,),
        )
    return SdkFinding(
        "BG203",
        f"'{record}' has no field '{name}' in the SDK {t.label}" + _did_you_mean(sugg),
        d.file, d.line, d.column, name, sugg, (), (i,),
    )


def open_call(lines: list[str] | None, line: int, column: int) -> tuple[str, int, int, int] | None:
    """The call whose argument list holds (line, column): (callee, line, column, argument index).

    Walks back over balanced parentheses to the unmatched "(" and reads the name before it;
    counts top-level commas on the way for the argument index.
    """
    if not lines or line < 1 or line > len(lines):
        return None
    depth, commas = 0, 0
    ln, col = line - 1, column - 2
    for _ in range(20000):
        if col < 0:
            ln -= 1
            if ln < 0:
                return None
            col = len(lines[ln]) - 1
            continue
        ch = lines[ln][col]
        if ch == ")":
            depth += 1
        elif ch == "(":
            if depth == 0:
                head = lines[ln][:col].rstrip()
                m = re.search(r"([A-Za-z_]\w*)$", head)
                if m is None:
                    return None
                return m.group(1), ln + 1, m.start(1) + 1, commas
            depth -= 1
        elif ch == "," and depth == 0:
            commas += 1
        elif ch == ";" and depth == 0:
            return None
        col -= 1
    return None


def _arg_count(i, d, ctx: SdkContext, lines, msg) -> SdkFinding | None:
    call = open_call(lines, d.line, d.column)
    if call is None:
        return None
    name, cl, cc, commas = call
    t = ctx.target
    fn = t.functions.get(name)
    if fn is None:
        return None  # the project's own function: the compiler's message is enough
    have = int(m.group(1)) if (m := re.search(r"have (\d+)", msg)) else None
    if have is None:
        have = commas + 1 if "many" in msg else commas + (0 if _empty_call(lines, cl, cc) else 1)
    expected = len(fn.params)
    other = _other_with(ctx, lambda o: name in o.functions and _fits(o.functions[name], have))
    related = _decl_loc(fn.file, fn.line, fn.signature)
    if other is not None:
        old = other.functions[name]
        return SdkFinding(
            "BG204",
            f"'{name}' called with {have} argument(s), the signature of {other.label} "
            f"({old.signature}); the target SDK {t.label} declares {fn.signature}",
            d.file, cl, cc, name, [], (*related, *_decl_loc(old.file, old.line, old.signature)),
            (i,),
        )
    return SdkFinding(
        "BG202",
        f"'{name}' takes {expected} argument(s), called with {have}: {fn.signature}",
        d.file, cl, cc, name, [], related, (i,),
    )


def _fits(fn, have: int) -> bool:
    return have == len(fn.params) or (fn.variadic and have >= len(fn.params))


def _empty_call(lines, line, col) -> bool:
    rest = lines[line - 1][col - 1 :]
    return re.match(r"\w+\s*\(\s*\)", rest) is not None


def _macro_arity(i, d, diags, ctx: SdkContext, lines, which) -> SdkFinding | None:
    call = open_call(lines, d.line, d.column)
    if call is None:
        return None
    name, cl, cc, commas = call
    macro = ctx.target.macros.get(name)
    if macro is None or not macro.function_like:
        return None
    # clang follows the arity error with "use of undeclared identifier" on the macro's name.
    claim = [i] + [
        j
        for j, e in enumerate(diags)
        if e.file == d.file and e.line == cl and f"undeclared identifier '{name}'" in e.message
    ]
    n = len(macro.params or ())
    return SdkFinding(
        "BG202",
        f"macro '{name}' takes {n} argument(s), called with too {which}: {macro.signature}",
        d.file, cl, cc, name, [], _decl_loc(macro.file, macro.line, macro.signature),
        tuple(claim),
    )


def _bad_argument(i, d, ctx: SdkContext, lines, given, wanted) -> SdkFinding | None:
    call = open_call(lines, d.line, d.column)
    if call is None or call[0] not in ctx.target.functions:
        return None
    name, _, _, index = call
    fn = ctx.target.functions[name]
    param = fn.params[index] if index < len(fn.params) else None
    pname = f" '{param.name}'" if param else ""
    return SdkFinding(
        "BG205",
        f"argument {index + 1} of '{name}' is '{given}', but parameter{pname} is '{wanted}': "
        f"{fn.signature}",
        d.file, d.line, d.column, name, [], _decl_loc(fn.file, fn.line, fn.signature), (i,),
    )


def _enum_mix(i, d, ctx: SdkContext, given, wanted) -> SdkFinding | None:
    enums = {e.enum for e in ctx.target.enum_constants.values()}
    if given not in enums or wanted not in enums:
        return None
    members = sorted(e.name for e in ctx.target.enum_constants.values() if e.enum == wanted)
    shown = ", ".join(members[:6]) + (", ..." if len(members) > 6 else "")
    return SdkFinding(
        "BG205",
        f"a value of enum '{given}' where '{wanted}' is expected (one of: {shown})",
        d.file, d.line, d.column, given, [], (), (i,),
    )


def findings_of(sdk_findings: Iterable[SdkFinding]) -> list[Finding]:
    return [f.to_finding() for f in sdk_findings]
