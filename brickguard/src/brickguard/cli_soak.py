"""``brickguard soak``: the soak test in seconds: compile, emulate, inject the interrupt on every
instruction boundary that matters, and show a witness for each way a run breaks.

The emulator and the cross compiler are imported inside the command (``--help`` stays instant).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import typer

from brickguard.cli_check import (
    CONFIG_OPTION,
    FORMAT_OPTION,
    OUTPUT_OPTION,
    check_arguments,
    deliver,
    run_command,
)
from brickguard.errors import BrickguardError
from brickguard.output import log


def soak(
    paths: list[Path] = typer.Argument(..., metavar="PATH", help="C files or folders to build."),
    config_path: Path | None = CONFIG_OPTION,
    fmt: str = FORMAT_OPTION,
    output: Path | None = OUTPUT_OPTION,
    replay: str | None = typer.Option(
        None, "--replay", help="Replay one run: HANDLER@BOUNDARY, as a witness prints it."
    ),
    max_runs: int | None = typer.Option(None, "--max-runs", min=1, help="Bound on runs."),
    max_seconds: int | None = typer.Option(None, "--max-seconds", min=1, help="Bound on time."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress lines on stderr."),
    scenario: str | None = typer.Option(
        None, "--scenario", help="The scenario function (instead of [soak] scenario)."
    ),
    handler: list[str] = typer.Option(
        [], "--handler", help="A handler to inject (instead of [[soak.interrupts]]); repeatable."
    ),
    wait_handler: list[str] = typer.Option(
        [], "--wait-handler", help="With --handler: a handler only taken where the run waits, "
        "when it ends the wait (explore = false); repeatable."
    ),
    after: list[str] = typer.Option(
        [], "--after", help="With --handler: HANDLER=CALL, the handler injected only once CALL "
        "has been made (its source off until then: an interrupt pending at the enable); "
        "repeatable."
    ),
    prime: int = typer.Option(
        0, "--prime", min=0, max=10000, help="With --handler: runs of each before the scenario."
    ),
    waits: int | None = typer.Option(
        None, "--waits", min=0, max=100, help="Handlers taken where the run waits ([soak] waits)."
    ),
    repeat: int | None = typer.Option(
        None, "--repeat", min=1, max=100000, help="Calls of the scenario ([soak] repeat)."
    ),
    seed: str | None = typer.Option(
        None, "--seed", help="Start state: 'wrap' sets each counter a handler steps one step "
        "before it wraps ([soak] seed); '' as recorded."
    ),
    stub_return: int | None = typer.Option(
        None, "--stub-return", min=0, max=0xFFFFFFFF,
        help="What stubs of undefined functions return ([soak] stub_return)."
    ),
    oracle: str | None = typer.Option(
        None, "--oracle", help="The serializability oracle's unit: 'location' (a joint failure, "
        "each location alone serial, is reported, not failing) or 'scenario' ([soak] oracle)."
    ),
    rounds: bool = typer.Option(
        False, "--rounds", help="Judge a run inside the wait a bounded run ends in by the round "
        "of the loop it lands in (as check --confirm does)."
    ),
) -> None:
    """Run the scenario on an emulated Cortex-M, the interrupt on every boundary that matters."""
    check_arguments(paths, fmt)
    overrides = SoakOverrides(scenario, handler, max_runs, max_seconds, prime, waits, repeat,
                              seed, stub_return, rounds, oracle, wait_handler, after)
    run_command(lambda: run_soak(paths, config_path, fmt, output, replay, overrides, quiet))


@dataclass(frozen=True)
class SoakOverrides:
    """What the command line says instead of the [soak] table."""

    scenario: str | None = None
    handlers: list[str] = field(default_factory=list)
    max_runs: int | None = None
    max_seconds: int | None = None
    prime: int = 0
    waits: int | None = None
    repeat: int | None = None
    seed: str | None = None
    stub_return: int | None = None
    rounds: bool = False
    oracle: str | None = None
    wait_handlers: list[str] = field(default_factory=list)
    after: list[str] = field(default_factory=list)  # HANDLER=CALL


def load_soak(paths: list[Path], config_path: Path | None, given: SoakOverrides):
    """The config and its [soak] table, with the command line's values applied."""
    from brickguard.config import load_config
    from brickguard.soak.settings import InterruptSpec, SoakTable

    config = load_config(path=config_path, start=paths[0])
    table = config.soak
    if table is None and not (given.scenario and given.handlers):
        where = config.source or "brickguard.toml"
        raise BrickguardError(f"{where}: no [soak] table; add one (scenario, [[soak.interrupts]])"
                              " or pass --scenario and --handler")
    table = table or SoakTable()
    values: dict[str, Any] = {k: v for k, v in (("max_runs", given.max_runs),
                                                ("max_seconds", given.max_seconds),
                                                ("scenario", given.scenario),
                                                ("repeat", given.repeat)) if v}
    if given.waits is not None:
        values["waits"] = given.waits
    if given.seed is not None:
        from brickguard.soak.settings import SEEDS

        if given.seed not in SEEDS:
            raise BrickguardError(f"--seed {given.seed!r}: use one of "
                                  f"{', '.join(repr(s) for s in SEEDS)}")
        values["seed"] = given.seed
    if given.stub_return is not None:
        values["stub_return"] = given.stub_return
    if given.oracle is not None:
        from brickguard.soak.settings import ORACLES

        if given.oracle not in ORACLES:
            raise BrickguardError(f"--oracle {given.oracle!r}: use one of {', '.join(ORACLES)}")
        values["oracle"] = given.oracle
    if given.handlers:
        gates: dict[str, list[str]] = {}
        for item in given.after:
            h, eq, call = item.partition("=")
            if not eq or h not in given.handlers or not call:
                raise BrickguardError(f"--after {item!r}: use HANDLER=CALL with one of the "
                                      f"--handler names ({', '.join(given.handlers)})")
            gates.setdefault(h, []).append(call)
        values["interrupts"] = [InterruptSpec(h, prime=given.prime, after=gates.get(h, []))
                                for h in given.handlers] + [
            InterruptSpec(h, explore=False) for h in given.wait_handlers]
    return config, replace(table, **values)


def _progress(quiet: bool):
    if quiet:
        return None

    def report(handler: str, done: int, planned: int, seconds: float) -> None:
        log(f"soak: {handler}: {done}/{planned} interleavings explored, {seconds:.1f} s")

    return report


def run_soak(paths: list[Path], config_path: Path | None, fmt: str, output: Path | None,
             replay: str | None, given: SoakOverrides, quiet: bool) -> int:
    from brickguard.soak.build import build
    from brickguard.soak.explore import Explorer
    from brickguard.soak.witness import findings, replay_command

    config, soak_table = load_soak(paths, config_path, given)
    only = at = None
    part = 0
    if replay is not None:
        name, _, boundary = replay.partition("@")
        handlers = [i.handler for i in soak_table.interrupts]
        k, _, j = boundary.partition(".")
        if name not in handlers or not k.isdigit() or not (j.isdigit() or not j):
            raise BrickguardError(f"--replay {replay!r}: use HANDLER@BOUNDARY (or "
                                  f"HANDLER@BOUNDARY.TRANSFERS) with one of: "
                                  f"{', '.join(handlers)}")
        only, at, part = handlers.index(name), int(k), int(j or 0)
    image = build(paths, config, soak_table)
    if not quiet:
        stubs = (f"; stubbed (return {image.stub_return}): {', '.join(image.stubbed)}"
                 if image.stubbed else "")
        log(f"soak: built for {image.cpu}{stubs}")
    explorer = Explorer(image, soak_table, config)
    explorer.rounds = given.rounds
    if explorer.seeded and not quiet:
        log(f"soak: seeded state: {'; '.join(explorer.seeded)}")
    result = explorer.explore(progress=_progress(quiet), only=only, at=at, part=part)
    extra = ([f"--scenario {given.scenario}"] if given.scenario else []) + [
        f"--handler {h}" for h in given.handlers] + [
        f"--after {a}" for a in given.after if given.handlers] + (
        [f"--prime {given.prime}"] if given.prime and given.handlers else []) + (
        [f"--waits {given.waits}"] if given.waits is not None else []) + (
        [f"--repeat {given.repeat}"] if given.repeat else []) + (
        [f"--seed {given.seed}"] if given.seed else []) + (
        [f"--stub-return {given.stub_return}"] if given.stub_return is not None else []) + (
        ["--rounds"] if given.rounds else []) + (
        [f"--oracle {given.oracle}"] if given.oracle else [])
    base = " ".join([replay_command(paths, config_path), *extra])
    witnessed = findings(result, base, explorer.rerun)
    deliver(_render(result, witnessed, fmt, Path(config.root)), output, fmt)
    log(summary(result, witnessed))
    incomplete = any(not r.complete for r in result.handlers)
    gating = any(w.failure.gates(soak_table.oracle) for w, _ in witnessed)
    return 1 if gating or incomplete else 0


def summary(result, witnessed) -> str:
    runs = sum(len(w.runs) for w, _ in witnessed)
    rate = result.runs / result.seconds if result.seconds > 0 else 0.0
    done = "complete" if all(r.complete for r in result.handlers) else "NOT complete (bounded)"
    joint = [w for w, _ in witnessed if not w.failure.gates(result.soak.oracle)]
    also = (f" ({len(joint)} joint, {sum(len(w.runs) for w in joint)} run(s): each location "
            "alone serial; reported, not failing under [soak] oracle = \"location\")"
            if joint else "")
    return (f"soak: {result.runs} runs in {result.seconds:.2f} s ({rate:.0f} runs/s), exploration "
            f"{done}: {len(witnessed)} witness(es), {runs} failing run(s){also}")


def handler_lines(result) -> list[str]:
    lines = []
    for r in result.handlers:
        state = "" if r.complete else " (NOT complete)"
        inside = f", {r.it_skipped} inside IT blocks not explored" if r.it_skipped else ""
        if r.splits:
            inside += f", {r.splits} inside LDM/STM (between transfers)"
        lines.append(f"{r.spec.handler}: {r.explored} of {r.planned} interleavings explored"
                     f"{state}, {r.masked} boundaries masked{inside}, {len(r.failures)} failing")
        if r.note:
            lines.append(f"  {r.note}")
    return lines


def result_dict(result, witnessed) -> dict[str, Any]:
    by_handler: dict[str, list] = {}
    for w, finding in witnessed:
        by_handler.setdefault(w.failure.handler, []).append({
            "kind": w.failure.kind,
            "oracle": w.failure.oracle,  # "location", "joint", or "" (check, fault, lock-up)
            "locations": w.failure.locations,
            "gates": w.failure.gates(result.soak.oracle),
            "boundary": w.failure.boundary,
            "transfers_before": w.failure.part,  # inside an LDM/STM: transfers before it
            "pc": w.failure.pc,
            "file": finding.location.file,
            "line": finding.location.line,
            "objects": w.objects,
            "runs": len(w.runs),
            "text": w.lines,
            "replay": w.replay,
        })
    return {
        "cpu": result.image.cpu,
        "stubbed": result.image.stubbed,
        "seeded": result.seeded,
        "stub_return": result.image.stub_return,
        "oracle": result.soak.oracle,
        "instructions": result.baseline.total,
        "runs": result.runs,
        "seconds": round(result.seconds, 3),
        "handlers": [{
            "handler": r.spec.handler,
            "planned": r.planned,
            "explored": r.explored,
            "masked": r.masked,
            "inside_it_blocks": r.it_skipped,
            "complete": r.complete,
            "note": r.note,
            "failing_runs": len(r.failures),
            "witnesses": by_handler.get(r.spec.handler, []),
        } for r in result.handlers],
    }


def _render(result, witnessed, fmt: str, root: Path) -> str:
    if fmt == "json":
        return json.dumps(result_dict(result, witnessed), indent=2) + "\n"
    if fmt == "sarif":
        from brickguard.report import build_report, render_sarif
        from brickguard.soak.witness import SoakRule

        files = sorted({f.location.file for _, f in witnessed})
        report = build_report([f for _, f in witnessed], files, [SoakRule()], root)
        return json.dumps(render_sarif(report), indent=2) + "\n"
    lines = handler_lines(result)
    if result.seeded:
        lines.append(f"seeded state: {'; '.join(result.seeded)}")
    for w, _ in witnessed:
        lines += ["", *w.lines]
    return "\n".join(lines) + "\n"
