"""``tokenpilot scenario NAME``: the named what-if scenarios (``tokenpilot.scenarios``)."""

from __future__ import annotations

from pathlib import Path

import typer

from tokenpilot.output import FORMAT_OPTION, Format, emit, fail, log


def scenario(
    name: str = typer.Argument("", help="Scenario name (see --list)."),
    list_: bool = typer.Option(False, "--list", help="List the scenarios and exit."),
    quick: bool = typer.Option(False, "--quick", help="Small sizes: seconds, not minutes."),
    report: Path | None = typer.Option(None, "--report", help="Write an HTML report here."),
    check: bool = typer.Option(False, "--check", help="Exit 1 when the scenario misses one of "
                               "its targets (full sizes only: not with --quick)."),
    fmt: Format = FORMAT_OPTION,
) -> None:
    """Run a named scenario: a table of its configurations or load levels, and notes."""
    from tokenpilot.report import check_report_dir
    from tokenpilot.scenarios import SCENARIOS, TITLES, UnknownScenario, _common, run

    if list_ or not name:
        if not list_:
            raise fail(f"give a scenario name; known: {', '.join(SCENARIOS)}")
        emit([{"name": k, "title": t} for k, t in TITLES.items()], fmt,
             lambda d: "\n".join(f"{x['name']:<26} {x['title']}" for x in d))
        return
    if name not in SCENARIOS:
        raise fail(str(UnknownScenario(name)))
    if check and quick:
        raise fail("--check evaluates the targets, which need the full sizes: drop --quick")
    if report is not None and (why := check_report_dir(report)):
        raise fail(why)
    log(f"running scenario {name}{' (quick)' if quick else ''}...")
    _common.on_run = lambda label, n, wall: log(f"  {label}: {n} requests simulated in "
                                                f"{wall:.1f} s")
    try:
        res = run(name, quick)
    finally:
        _common.on_run = None
    if report is not None:
        from tokenpilot.report import write_report

        try:
            index = write_report(report, res.sims, res.metrics, title=f"tokenpilot scenario "
                                 f"{res.name}", context={"scenario": res.title},
                                 summary=res.table())
        except OSError as exc:
            raise fail(f"cannot write the report to {report}: {exc}") from None
        log(f"report: {index}")
    emit(res.to_dict(), fmt, lambda _: res.table())
    if check and res.missed:
        raise fail(f"{len(res.missed)} of {len(res.checks)} target(s) missed: "
                   + "; ".join(res.missed), 1)
