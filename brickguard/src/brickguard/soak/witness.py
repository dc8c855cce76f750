"""Witnesses: what one failing run shows, in words, as a SARIF code flow, and how to replay it.

Failing runs of one handler that break the same thing (the same kind, the same objects) are one
witness: the earliest run is described in full, the other landing points are counted and listed
by source line; each is replayable with ``--replay HANDLER@BOUNDARY``.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from brickguard.errors import BrickguardError
from brickguard.findings import Finding, Level, Location
from brickguard.soak.build import RAM_BASE, Image
from brickguard.soak.explore import Failure, HandlerResult, Outcome, SoakResult

SOAK_RULE_ID = "BG190"
Rerun = Callable[[str, int, int], Outcome]  # (handler, boundary, transfers done first)


@dataclass(frozen=True)
class SoakRule:
    """The rule descriptor soak's results carry in reports (SARIF's tool.driver.rules)."""

    id: str = SOAK_RULE_ID
    title: str = "An interrupt injected at this instruction breaks the run (soak witness)"
    level: Level = Level.error
    rationale: str = ("brickguard soak ran the compiled code in an emulated Cortex-M core and took "
                      "the interrupt at this instruction boundary: the run faulted, hung, broke a "
                      "check, or ended in a state no order of the handler wholly before or wholly "
                      "after the scenario gives.")
    instead: str = ("Make the accesses the handler can land between one critical section "
                    "(PRIMASK/BASEPRI or masking the IRQ), or use a lock-free handover (a "
                    "single-writer index, a double buffer).")


@dataclass
class Witness:
    failure: Failure
    runs: list[Failure] = field(default_factory=list)  # every failing run it stands for
    objects: list[str] = field(default_factory=list)  # what differs from the serial orders
    lines: list[str] = field(default_factory=list)  # the text, one line each
    flow: list[Location] = field(default_factory=list)
    replay: str = ""


def _loc(image: Image, pc: int, message: str) -> Location | None:
    where = image.line_at(pc)
    return Location(where[0], where[1], 1, message) if where else None


def _here(image: Image, pc: int) -> str:
    where = image.line_at(pc)
    line = f"{_short(where[0])}:{where[1]}" if where else f"0x{pc:x}"
    insn = image.disasm.get(pc, "")
    return f"{line} (0x{pc:x}: {insn})" if insn else line


def _short(path: str) -> str:
    try:
        return str(Path(path).resolve().relative_to(Path.cwd()))
    except ValueError:
        return path


def final_objects(image: Image, final: bytes) -> dict[str, int]:
    """Final state of the globals by memory location (``Image.location_of``): ``{"rx_index":
    0, "rx_buffer[3]": 88, "st.mode": 1}``; each location's bytes are one value."""
    out: dict[str, int] = {}
    for byte, value in enumerate(final, start=RAM_BASE):
        lo, _, name = image.location_of(byte)
        out[name] = out.get(name, 0) | value << 8 * (byte - lo)
    return out


def _read_diff(image: Image, out: Outcome, ref: Outcome, rounds: bool = False) -> str:
    reads, pcs = (out.window or (), out.window_pcs) if rounds else (out.reads, out.read_pcs)
    theirs_all = (ref.window or ()) if rounds else ref.reads
    for n, (mine, theirs) in enumerate(zip(reads, theirs_all, strict=False)):
        if mine != theirs:
            where = image.line_at(pcs[n]) if n < len(pcs) else None
            at = f" at {_short(where[0])}:{where[1]}" if where else ""
            return (f"read {image.object_at(mine[0])} = {mine[2]}{at}, "
                    f"where that order reads {image.object_at(theirs[0])} = {theirs[2]}")
    if len(reads) != len(theirs_all):
        return f"{len(reads)} reads of shared memory, where that order makes {len(theirs_all)}"
    return "the same reads"


def build_witnesses(result: SoakResult, r: HandlerResult, replay_base: str,
                    rerun: Rerun | None = None) -> list[Witness]:
    """The witnesses of one handler's failing runs; ``rerun(handler, boundary)`` runs the first
    run of each again with the pc of every read (which exploration does not record)."""
    image = result.image
    groups: dict[tuple, Witness] = {}
    for f in sorted(r.failures, key=lambda f: f.boundary):
        differing: list[str] = []
        if f.kind == "not serializable" and f.before is not None and f.after is not None:
            mine = final_objects(image, f.outcome.final)
            b = final_objects(image, f.before.final)
            a = final_objects(image, f.after.final)
            differing = [k for k in mine if mine[k] != b.get(k) and mine[k] != a.get(k)]
            if not differing:
                differing = [k for k in mine if mine[k] != b.get(k) or mine[k] != a.get(k)]
        key = (f.kind, f.oracle, tuple(f.locations),
               tuple(differing) or tuple(f.outcome.broken) or (f.outcome.fault[:40],))
        w = groups.get(key)
        if w is None:
            w = groups[key] = Witness(f, objects=differing)
        w.runs.append(f)
    out = list(groups.values())
    for w in out:
        if rerun is not None:
            again = rerun(r.spec.handler, w.failure.boundary, w.failure.part)
            if again.key != w.failure.outcome.key:
                raise BrickguardError(f"soak: the run at {r.spec.handler}@{w.failure.at} "
                                      "did not repeat exactly (emulation not deterministic)")
            # What the judge found (a null-page access the references do not make) is not in
            # the rerun's own outcome.
            again.fault = again.fault or w.failure.outcome.fault
            w.failure.outcome = again
        _describe(w, result, r, replay_base)
    return out


def _describe(w: Witness, result: SoakResult, r: HandlerResult, replay_base: str) -> None:
    image, f = result.image, w.failure
    handler = r.spec.handler
    w.replay = f"{replay_base} --replay {handler}@{f.at}"
    where = "before" if not f.part else (
        f"after {f.part} of the transfers of the LDM/STM (a v7-M core continues it after the "
        "handler: EPSR.ICI) at")
    head = (f"{handler} taken {where} {_here(image, f.pc)} in {image.function_at(f.pc)}, "
            f"instruction {f.boundary} of the run: {f.kind}"
            + (f" ({f.oracle}: {', '.join(f.locations) or 'the scenario state'})"
               if f.oracle else ""))
    lines = [head]
    out = f.outcome
    if f.kind == "fault":
        lines.append(f"  {out.fault}")
    elif f.kind == "lock-up":
        lines.append(f"  {out.hung}")
    elif f.kind == "check":
        lines += [f"  broken check: {b}" for b in out.broken]
    else:
        assert f.before is not None and f.after is not None
        mine = final_objects(image, out.final)
        b = final_objects(image, f.before.final)
        a = final_objects(image, f.after.final)
        if f.rounds:
            lines.append("  inside the loop the run waits in: no order with the handler wholly "
                         "before or wholly after this round of the loop gives its reads:")
        else:
            lines.append("  no order with the handler wholly before or wholly after the "
                         "scenario gives this run:")
        lines.append(f"  vs handler before: {_read_diff(image, out, f.before, f.rounds)}")
        lines.append(f"  vs handler after:  {_read_diff(image, out, f.after, f.rounds)}")
        for name in w.objects:
            lines.append(f"  at the end {name} = {mine[name]} (handler before: {b.get(name)}, "
                         f"after: {a.get(name)})")
        if f.oracle == "location":
            lines.append("  per location: " + (
                f"{', '.join(f.locations)}: matches neither order on its own (a location "
                "failure: "
                "a lost update, a torn object, or one location read twice with the handler's "
                "write between)" if f.locations else "every location the handler touches "
                "matches both orders; the scenario's own state differs (counted as a location "
                "failure)"))
        elif f.oracle == "joint":
            gate = ("it fails the run ([soak] oracle = \"scenario\")"
                    if result.soak.oracle == "scenario" else
                    "reported, not failing the run under [soak] oracle = \"location\"; a "
                    "check states such an invariant")
            lines.append(f"  per location: each alone matches a serial order, only the "
                         f"combination does not (a joint failure: a multi-location invariant "
                         f"may break): {'; '.join(f.locations)}; {gate}")
    others = sorted({image.line_at(x.pc) or ("?", 0) for x in w.runs[1:]})
    if others:
        shown = ", ".join(f"{_short(file)}:{line}" for file, line in others[:8])
        lines.append(f"  {len(w.runs)} failing runs like it; it also lands on {shown}"
                     + (" ..." if len(others) > 8 else ""))
    if result.seeded:
        lines.append(f"  from the seeded state: {'; '.join(result.seeded)}")
    if image.plain_stubs and image.stub_return:
        lines.append(f"  undefined calls return {image.stub_return} "
                     f"({', '.join(image.plain_stubs)})")
    lines.append(f"  replay: {w.replay}")
    w.lines = lines
    w.flow = _flow(w, result, r)


def _flow(w: Witness, result: SoakResult, r: HandlerResult) -> list[Location]:
    """Scenario access before the landing, the landing, the handler's writes, the access after."""
    image, f = result.image, w.failure
    names = set(w.objects)
    objects = {_object(n) for n in names}  # "st.mode", "frame[3]" -> "st", "frame"

    def touches(addr: int, size: int) -> bool:
        return not names or any(_object(image.object_at(b)) in objects
                                for b in range(addr, addr + size))

    conflicts = [a for a in r.conflicts if touches(a.addr, a.size)] or r.conflicts
    steps: list[Location | None] = []
    before = [a for a in conflicts if a.index < f.boundary]
    after = [a for a in conflicts if a.index >= f.boundary]
    verb = {True: "writes", False: "reads"}
    if before:
        a = before[-1]
        steps.append(_loc(image, a.pc, f"the scenario {verb[a.write]} {image.object_at(a.addr)} "
                                       f"({a.value})"))
    steps.append(_loc(image, f.pc, f"{r.spec.handler} is taken here"))
    seen: set[int] = set()
    for byte, pc in sorted(r.footprint_writes.items()):
        if pc in seen or (names and _object(image.object_at(byte)) not in objects):
            continue
        seen.add(pc)
        steps.append(_loc(image, pc, f"the handler writes {image.object_at(byte)}"))
    if after:
        a = after[0]
        steps.append(_loc(image, a.pc, f"then the scenario {verb[a.write]} "
                                       f"{image.object_at(a.addr)}"))
    return [s for s in steps if s is not None]


def _object(name: str) -> str:
    """The variable a location or byte name is part of: ``st.mode``, ``rx[+3]`` -> ``st``,
    ``rx``."""
    return name.split("[", 1)[0].split(".", 1)[0]


def findings(result: SoakResult, replay_base: str,
             rerun: Rerun | None = None) -> list[tuple[Witness, Finding]]:
    """One finding per witness, reported at the landing line, with the code flow."""
    out = []
    for r in result.handlers:
        for w in build_witnesses(result, r, replay_base, rerun):
            f = w.failure
            where = w.flow[0] if w.flow else Location("?", 1)
            landing = next((s for s in w.flow if "is taken here" in s.message), where)
            what = ", ".join(w.objects) if w.objects else "; ".join(
                f.outcome.broken or [f.outcome.fault or f.outcome.hung])
            if f.oracle:
                what = f"{f.oracle}: {', '.join(f.locations) or what}"
            gates = f.gates(result.soak.oracle)
            message = (f"soak: {r.spec.handler} taken here ({f.kind}: {what}); "
                       f"{len(w.runs)} failing run(s)"
                       f"{'' if gates else ' (joint: reported, not gating)'}; "
                       f"replay: {w.replay}")
            level = Level.error if gates else Level.warning
            out.append((w, Finding(SOAK_RULE_ID, level, message,
                                   Location(landing.file, landing.line, 1), flow=tuple(w.flow))))
    return out


def replay_command(paths: list[Path], config: Path | None) -> str:
    parts = ["brickguard", "soak", *map(str, paths)]
    if config is not None:
        parts += ["--config", str(config)]
    return " ".join(shlex.quote(p) for p in parts)
