"""Hold a program to the demo index: the BG401, BG402 and BG404 findings (missing steps) and
BG403 (callbacks the SDK never calls), computed once per program (``Program.demo_findings``).

The program is modelled exactly as the examples were (``demos.protocol``), its API uses named by
the index's vocabulary: a use of the program's own alias of an SDK macro counts as the SDK's.
For each use of an API a rule covers, the rule's step key is looked for before the use (or
anywhere, for a companion); one finding per missing step and handle, at the first use that
needs it. Whole-program steps (``HAL_Init`` before the first SDK call) are checked only in a
program that has ``main``: a lone driver file is not told it lacks the start-up code.
"""

from __future__ import annotations

import sys
from collections import defaultdict
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from brickguard.demos.model import BEFORE, DemoIndex, DemosSpec, ProtocolRule
from brickguard.demos.protocol import Event, ProgramModel, applies
from brickguard.facts import UseFact, Where
from brickguard.findings import Finding, Level, Location
from brickguard.sdk.suggest import suggest

if TYPE_CHECKING:
    from brickguard.config import Config
    from brickguard.program import Program

LEVEL = Level.warning


def load(spec: DemosSpec, root: Path, jobs: int = 0) -> tuple[DemoIndex | None, list[str]]:
    """The configured index and the lines saying what of it could not be used."""
    from brickguard.demos import index as build

    notes: list[str] = []
    idx: DemoIndex | None = None
    if spec.index is not None:
        try:
            idx = build.read_index(spec.index)
        except ValueError as exc:
            notes.append(f"[demos] index: {exc}; the BG4xx checks do not run")
    if spec.folders:
        got = _cached(tuple(spec.folders), spec.min_support, str(root), jobs, spec.search)
        idx = got if idx is None else _merge(idx, got)
    if idx is not None:
        notes = [*idx.notes, *notes]
        if not idx.rules and not idx.callbacks:
            idx = None
    return idx, notes


@lru_cache(maxsize=8)
def _cached(folders: tuple[Path, ...], min_support: int, root: str, jobs: int,
            search: tuple[Path, ...]) -> DemoIndex:
    from brickguard.demos import index as build

    return build.load_index(list(folders), min_support, build.default_cache_dir(Path(root)),
                            jobs, search=search)


def _merge(a: DemoIndex, b: DemoIndex) -> DemoIndex:
    out = DemoIndex(folders=[*a.folders, *b.folders], projects=[*a.projects, *b.projects],
                    notes=[*a.notes, *b.notes], min_support=a.min_support,
                    rules=[*a.rules, *b.rules],
                    vocabulary=sorted({*a.vocabulary, *b.vocabulary}),
                    instances=sorted({*a.instances, *b.instances}),
                    callbacks={**b.callbacks, **a.callbacks})
    for src in (a.defined_callbacks, b.defined_callbacks):
        for t, cbs in src.items():
            for c, sites in cbs.items():
                out.defined_callbacks.setdefault(t, {}).setdefault(c, []).extend(sites)
    return out


def demo_findings(program: Program, config: Config) -> list[Finding]:
    spec = config.demos
    if spec is None:
        return []
    idx, notes = load(spec, Path(config.root), config.jobs)
    for line in notes:
        print(f"brickguard: demos: {line}", file=sys.stderr, flush=True)
    if idx is None:
        return []
    return findings_for(program.units, idx, config.interrupt_patterns)


def model_for(units, idx: DemoIndex, handler_patterns: list[str]) -> ProgramModel:
    vocab = set(idx.vocabulary)

    def api(x: UseFact) -> str | None:
        # What the examples use, or what a header declares (the program's own functions are
        # followed into before this is asked): a call the examples never make is the SDK's too.
        if x.kind == "call":
            declared = bool(x.declared_in) and x.declared_in != x.where.file
            return x.name if x.name in vocab or declared else None
        named = [n for n, f in x.chain if n in vocab or (f and f != x.where.file)]
        return named[-1] if named else None

    m = ProgramModel(units, api, handler_patterns)
    m.known_instances |= set(idx.instances)
    return m


def findings_for(units, idx: DemoIndex, handler_patterns: list[str]) -> list[Finding]:
    m = model_for(units, idx, handler_patterns)
    return [*missing_steps(m, idx.rules), *callbacks(m, idx)]


def missing_steps(m: ProgramModel, rules: list[ProtocolRule]) -> list[Finding]:
    by_name: dict[str, list[ProtocolRule]] = defaultdict(list)
    for r in rules:
        by_name[r.api].append(r)
    patterns = [r for r in rules if "*" in r.api or "@" in r.api]
    found: dict[tuple[str, str, str], list[tuple[Event, Finding]]] = {}
    for o in m.trace:
        mine = [*by_name.get(o.name, ()), *(r for r in patterns if applies(r.api, o))]
        if not mine:
            continue
        every = m.links(o.handle)
        # A step on a linked handle is asked of each linked handle (both DMA streams).
        views = [every] + [{h} for h in sorted(every) if m.instances.get(h)]
        keyed = []
        for links in views:
            before = m.keys(m.trace[: o.pos], o, links)
            present = m.keys(m.present, o, links)
            present.update(m.handler_keys(o, links))
            # Compared as this program writes them: an instance named like its peripheral
            # (DAC) templates either way ({i} or {p}), the filled-in step is one.
            keyed.append((links, _shown_all(m, before, o, links),
                          _shown_all(m, present, o, links)))
        for r in mine:
            linked = "{l" in r.step or r.step.startswith(("~", "handler~"))
            for links, before, present in keyed[1:] if linked and len(keyed) > 1 else keyed[:1]:
                _check_one(m, r, o, links, before, present, found)
    # Reported at the first use that needs it, preferring a use on a handle (HAL_I2C_Init)
    # to a step of its MSP init that happens to come first; several steps one use lacks under
    # one rule are one finding.
    chosen = [next((f for o, f in got if o.handle), got[0][1]) for got in found.values()]
    merged: dict[tuple, list[Finding]] = {}
    for f in chosen:
        merged.setdefault((f.rule, f.location), []).append(f)
    return [fs[0] if len(fs) == 1 else _merge_findings(fs) for fs in merged.values()]


def _merge_findings(fs: list[Finding]) -> Finding:
    first = fs[0]
    more = "; ".join(f.message.split(": in ", 1)[0].split(" without ", 1)[-1] for f in fs[1:])
    related = tuple(loc for f in fs for loc in f.related[:1])
    return Finding(first.rule, first.level, f"{first.message}; also without {more}",
                   first.location, related)


def _shown_all(m: ProgramModel, keys: dict[str, Event], o: Event,
               links: set[str]) -> dict[str, Event]:
    out: dict[str, Event] = {}
    for k, e in keys.items():
        out.setdefault(m.shown(k, o, links), e)
    return out


def _check_one(m: ProgramModel, r: ProtocolRule, o: Event, links: set[str], before: dict,
               present: dict, found: dict) -> None:
    shown = m.shown(r.step, o, links)
    if r.order == BEFORE and shown in before:
        return
    if r.order != BEFORE and shown in present:
        return
    if not _checkable(r, o, m, links) or not m.provides(shown):
        return
    step = _show(shown)
    # One finding per missing step (per handle, for a step on the use's handle).
    key = (r.rule, step, o.handle if r.step[:1] in "=~@" else "")
    late = present.get(shown) if r.order == BEFORE else None
    if late is not None and (late.function == o.function or (o.msp and late.msp == o.msp)):
        return  # both in one set-up function: its order among them is the author's choice
    found.setdefault(key, []).append((o, _finding(r, o, step, late)))


def _checkable(r: ProtocolRule, o: Event, m: ProgramModel, links: set[str]) -> bool:
    s = r.step
    if ("{i" in s) and not o.instance:
        return False  # the use's instance is not known: nothing to compare with
    if ("{l" in s or s.startswith(("~", "handler~"))) and not any(
            m.instances.get(h) for h in links):
        return False  # no linked handle: the link itself is the step that is missing
    if s.startswith(("=", "@", "handler:")) and not o.handle:
        return False
    # A whole-program step is not asked of a part of a program.
    return s.startswith(("=", "~", "@", "handler")) or "{" in s or m.has_main


def _show(shown: str) -> str:
    text = shown.lstrip("=~@")
    if text.startswith("handler"):
        text = text.split(":", 1)[1].replace("->", " calling ")
    return text


def _finding(r: ProtocolRule, o: Event, step: str, late: Event | None) -> Finding:
    cite = r.sites[0]
    what = "precedes" if r.order == BEFORE else "goes with"
    api = o.name if "*" not in r.api else f"{o.name} ({r.api})"
    on = f" on {o.handle}" if o.handle else ""
    if late is not None:
        head = f"`{step}` comes only after `{o.name}`{on} here"
    elif step.startswith(tuple(n for n in ("handler",))) or " calling " in step:
        head = f"no interrupt handler {step.split(' calling ')[0]} calls "
        head += f"{step.split(' calling ')[-1]}({o.handle}) for `{o.name}`{on}"
    else:
        head = f"`{o.name}`{on} without `{step}`"
    where = f" in {r.msp}" if r.msp else ""
    msg = (f"{head}: in {r.support} of {r.of} examples, `{step}`{where} {what} `{api}`: "
           f"see {cite.short()}")
    related = tuple(Location(s.file, s.line, 1, f"example: {s.written}") for s in r.sites[:3])
    if late is not None:
        related = (Location(late.where.file, late.where.line, late.where.column,
                            f"{late.written} is only here"), *related)
    return Finding(r.rule, LEVEL, msg, _loc(o.where), related)


def _loc(w: Where, message: str = "") -> Location:
    return Location(w.file, w.line, w.column, message)


def callbacks(m: ProgramModel, idx: DemoIndex) -> list[Finding]:
    """BG403: a function named like an SDK callback that the SDK never calls for this program:
    no SDK callback has its name (misspelt), or it is for a peripheral the program drives
    through no handle."""
    out: list[Finding] = []
    # What the SDK calls back: its headers as this program includes them, and the examples'.
    known = {**idx.callbacks, **m.sdk_callbacks}
    types = set(known.values()) - {""}
    used = {e.handle_type for e in m.present if e.handle and e.handle_type in types}
    for d in sorted(m.defs.values(), key=lambda d: (d.where.file, d.where.line)):
        if not d.name.lower().endswith("callback"):
            continue
        sdk_type = known.get(d.name)
        if sdk_type is None:
            # Its parameter's type, when the SDK has callbacks for it; else any callback (the
            # type is unknown where a header is missing, or not a handle: HAL_GPIO_EXTI_Callback).
            pool = [c for c, t in known.items() if t == d.first_type] if d.first_type else []
            pool = pool or list(known)
            what = d.first_type or "this parameter list"
            why = f"no SDK callback for {what} is named so"
        elif sdk_type and sdk_type not in used and used:
            pool = [c for c, t in known.items() if t in used]
            why = (f"it is called for {sdk_type} handles, and this program drives none "
                   f"(its handles are {', '.join(sorted(used))})")
        else:
            continue
        demo = {c for t in used | {d.first_type} for c in idx.defined_callbacks.get(t, {})}
        best = suggest(d.name, pool, used=demo)
        if not best:
            continue  # nothing the SDK calls is near: a function of the program's own
        mean = f"; did you mean {', '.join(best)}?"
        cite, related = "", ()
        sites = idx.defined_callbacks.get(known.get(best[0], ""), {}).get(best[0])
        if sites:
            cite = f" ({len(sites)} examples define {best[0]}: see {sites[0].short()})"
            related = tuple(Location(x.file, x.line, 1, f"example: {x.written}")
                            for x in sites[:3])
        msg = f"the SDK never calls {d.name}: {why}{mean}{cite}"
        out.append(Finding("BG403", LEVEL, msg, _loc(d.where), related))
    return out
