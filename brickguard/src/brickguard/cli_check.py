"""``brickguard check``, ``explain``, ``rules`` and ``demo``: the commands that run the rules.

The analysis (libclang, the program model, the rules) is imported inside the commands, not at
module load, so ``brickguard --version`` and ``--help`` stay instant and never need libclang.
"""

from __future__ import annotations

import json
import os
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import typer

from brickguard.errors import BrickguardError
from brickguard.findings import FAIL_LEVELS
from brickguard.findings import NOT_RUN as SKIPPED
from brickguard.output import Format, emit, fail, log
from brickguard.report import (
    Report,
    build_report,
    render_json,
    render_sarif,
    render_text,
    summary_line,
)

if TYPE_CHECKING:
    from brickguard.config import Config

REPORT_FORMATS = ("text", "json", "sarif")
# CI mode (--ci, or a CI variable as GitHub Actions, GitLab CI, CircleCI, Travis, Jenkins' and
# Azure's set): --fail-on-skip is on unless the config or the command line says otherwise.
CI_VARIABLES = ("CI", "GITHUB_ACTIONS", "GITLAB_CI", "BUILDKITE", "JENKINS_URL", "TF_BUILD")
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"  # src/brickguard -> brickguard/


def _ids(option: str | None, name: str) -> list[str] | None:
    if option is None:
        return None
    from brickguard.rule_ids import checked_ids

    return checked_ids([part for part in option.split(",") if part.strip()], name)


def ci_mode(flag: bool = False) -> bool:
    """``--ci``, or a CI service's variable set to anything but empty/false/0."""
    if flag:
        return True
    return any(os.environ.get(v, "").strip().lower() not in ("", "false", "0", "no")
               for v in CI_VARIABLES)


def _with_overrides(config: Config, **overrides: Any) -> Config:
    """The config with the command-line values that were given (and that it has fields for)."""
    names = {f.name for f in fields(config)}
    given = {k: v for k, v in overrides.items() if v is not None and k in names}
    return replace(config, **given) if given else config


def run_analysis(
    paths: Sequence[Path],
    config: Config,
    *,
    baseline: frozenset[str] = frozenset(),
    show_suppressed: bool = False,
) -> Report:
    """Analyse ``paths`` under ``config`` and apply suppressions, selection and the baseline."""
    from brickguard.analyze import analyze

    result = analyze(list(paths), config)
    # Findings from outside the rules (the front end, cppcheck) obey --select/--ignore too.
    findings = [f for f in result.findings if config.reports(f.rule)]
    return build_report(
        findings,
        result.files,
        result.rules,
        Path(config.root),
        baseline=baseline,
        show_suppressed=show_suppressed,
        interrupts=result.interrupts,
    )


def render(report: Report, fmt: str) -> str:
    if fmt == "json":
        return json.dumps(render_json(report), indent=2) + "\n"
    if fmt == "sarif":
        return json.dumps(render_sarif(report), indent=2) + "\n"
    return render_text(report)


CONFIG_OPTION = typer.Option(
    None, "--config", "-c", help="brickguard.toml to use (default: found from PATH upward)."
)
FORMAT_OPTION = typer.Option("text", "--format", "-f", help="Report format: text, json or sarif.")
OUTPUT_OPTION = typer.Option(
    None, "--output", "-o", help="Write the report to this file instead of stdout."
)


def check_arguments(paths: list[Path], fmt: str) -> None:
    """The checks every command that reports does first: a known format, paths that exist."""
    if fmt not in REPORT_FORMATS:
        raise fail(f"unknown --format {fmt!r}; use one of: {', '.join(REPORT_FORMATS)}")
    missing = [str(p) for p in paths if not p.exists()]
    if missing:
        raise fail(f"no such file or folder: {', '.join(missing)}")


def deliver(text: str, output: Path | None, fmt: str) -> None:
    """The report to ``output`` (said on stderr), or to stdout."""
    if output is not None:
        try:
            output.write_text(text, encoding="utf-8")
        except OSError as exc:
            raise BrickguardError(f"cannot write {output}: {exc.strerror or exc}") from exc
        log(f"wrote the {fmt} report to {output}")
    elif text:
        sys.stdout.write(text)
        sys.stdout.flush()


def run_command(body: Callable[[], int]) -> NoReturn:
    """Run a command's body: its exit code, or a BrickguardError as one line and exit 2."""
    try:
        code = body()
    except BrickguardError as exc:
        raise fail(str(exc)) from None
    raise typer.Exit(code)


def _resolve(path: Path, root: Path) -> Path:
    return path if path.is_absolute() else root / path


def check(
    paths: list[Path] = typer.Argument(..., metavar="PATH", help="C files or folders to check."),
    config_path: Path | None = CONFIG_OPTION,
    fmt: str = FORMAT_OPTION,
    output: Path | None = OUTPUT_OPTION,
    fail_on: str | None = typer.Option(
        None, "--fail-on", help="Exit 1 at this level or above: note, warning, error or never."
    ),
    baseline: Path | None = typer.Option(
        None, "--baseline", help="Hide findings whose fingerprint this baseline file lists."
    ),
    write_baseline: Path | None = typer.Option(
        None, "--write-baseline", help="Record today's findings in this baseline file."
    ),
    show_suppressed: bool = typer.Option(
        False, "--show-suppressed", help="Also report findings hidden by inline comments."
    ),
    select: str | None = typer.Option(
        None, "--select", help="Only these rule ids or prefixes, comma-separated."
    ),
    ignore: str | None = typer.Option(None, "--ignore", help="Rule ids or prefixes to skip."),
    jobs: int | None = typer.Option(
        None, "--jobs", "-j", min=0, help="Parallel parser processes (0: one per CPU)."
    ),
    misra: bool = typer.Option(
        False, "--misra", help="Also check MISRA C:2012 with cppcheck's misra addon."
    ),
    fail_on_skip: bool | None = typer.Option(
        None, "--fail-on-skip/--no-fail-on-skip",
        help="Exit 1 when an analysis did not run or ran partially (BG002). Default: on in CI.",
    ),
    ci: bool = typer.Option(
        False, "--ci", help="CI mode (also when $CI is set): --fail-on-skip is on by default."
    ),
    confirm: bool = typer.Option(
        False, "--confirm", help="Run soak on the race findings: confirmed, refuted or not."
    ),
) -> None:
    """Check C sources and report what compiles but breaks boards (exit 1 if anything fails)."""
    check_arguments(paths, fmt)
    if fail_on is not None and fail_on not in FAIL_LEVELS:
        raise fail(f"unknown --fail-on {fail_on!r}; use one of: {', '.join(FAIL_LEVELS)}")

    def body() -> int:
        options = CheckOptions(
            config_path=config_path,
            fmt=fmt,
            output=output,
            fail_on=fail_on,
            baseline=baseline,
            write_baseline=write_baseline,
            show_suppressed=show_suppressed,
            select=_ids(select, "--select"),
            ignore=_ids(ignore, "--ignore"),
            jobs=jobs,
            misra=misra or None,
            fail_on_skip=fail_on_skip,
            ci=ci_mode(ci),
            confirm=confirm,
        )
        return _check(paths, options)

    run_command(body)


@dataclass(frozen=True)
class CheckOptions:
    config_path: Path | None = None
    fmt: str = "text"
    output: Path | None = None
    fail_on: str | None = None
    baseline: Path | None = None
    write_baseline: Path | None = None
    show_suppressed: bool = False
    select: list[str] | None = None
    ignore: list[str] | None = None
    jobs: int | None = None
    misra: bool | None = None  # --misra: on for this run ([misra] enabled otherwise)
    fail_on_skip: bool | None = None  # None: [rules] fail_on_skip, else on in CI mode
    ci: bool = False
    confirm: bool = False  # --confirm: soak the race findings (soak/confirm.py)


def _check(paths: list[Path], opts: CheckOptions) -> int:
    from brickguard.baseline import load_baseline, write_baseline
    from brickguard.config import load_config

    config = load_config(path=opts.config_path, start=paths[0])
    config = _with_overrides(
        config, select=opts.select, ignore=opts.ignore, fail_on=opts.fail_on, jobs=opts.jobs,
        misra=opts.misra,
    )
    threshold = opts.fail_on or config.fail_on  # both checked: by the option, by config.py
    root = Path(config.root)
    baseline_path = opts.baseline
    if baseline_path is None and config.baseline is not None:
        baseline_path = _resolve(Path(config.baseline), root)
    known: frozenset[str] = frozenset()
    if baseline_path is not None and opts.write_baseline is None:
        known = load_baseline(baseline_path)
    report = run_analysis(paths, config, baseline=known, show_suppressed=opts.show_suppressed)
    if opts.confirm:
        report = confirm_report(report, paths, config, opts.config_path)
    if opts.write_baseline is not None:
        # Written from every current finding, so an outdated baseline is replaced, not merged.
        count = write_baseline(opts.write_baseline, report)
        plural = "s" if count != 1 else ""
        log(f"wrote {count} finding fingerprint{plural} to {opts.write_baseline}")
        report = build_report(
            [item.finding for item in report.items],
            report.files,
            report.rules,
            root,
            baseline=frozenset(item.fingerprint for item in report.active),
            show_suppressed=opts.show_suppressed,
            source=report.source,
        )
    deliver(render(report, opts.fmt), opts.output, opts.fmt)
    log(summary_line(report))
    skip_fails = opts.fail_on_skip
    if skip_fails is None:
        skip_fails = config.fail_on_skip if config.fail_on_skip is not None else opts.ci
    skipped = [i for i in report.active if i.finding.rule == SKIPPED]
    if skipped:
        what = "fails the run (--fail-on-skip)" if skip_fails else "not failing the run: pass " \
            "--fail-on-skip (default in CI) to fail it"
        log(f"{len(skipped)} analys{'es' if len(skipped) != 1 else 'is'} did not run or ran "
            f"partially ({SKIPPED} notes above); {what}")
    return 1 if report.fails(threshold) or (skip_fails and skipped) else 0


def confirm_report(report: Report, paths: list[Path], config: Config,
                   config_path: Path | None = None, quiet: bool = False) -> Report:
    """The report with soak's verdict on each active race finding (soak/confirm.py)."""
    from brickguard.soak import confirm

    active = [item.finding for item in report.active]
    verdicts = confirm.confirm(active, paths, config, config_path=config_path,
                               interrupts=report.interrupts)
    counts = Counter(v.status for _, v in verdicts)
    if not quiet:
        log("soak --confirm: " + (", ".join(f"{counts[s]} {s}" for s in
                                           ("confirmed", "refuted", "not explored"))
                                 if verdicts else "no race findings to confirm"))
    changed = confirm.apply(active, verdicts)
    suppressed = [item.finding for item in report.items if item.suppression is not None]
    return build_report([*changed, *suppressed], report.files, report.rules,
                        Path(config.root), show_suppressed=report.show_suppressed,
                        source=report.source, interrupts=report.interrupts)


def _rule_dict(rule: Any) -> dict[str, Any]:
    return {
        "id": rule.id,
        "title": rule.title,
        "level": rule.level.value,
        "rationale": rule.rationale,
        "instead": rule.instead,
        "example_bad": rule.example_bad,
        "example_good": rule.example_good,
    }


def _explain_text(data: dict[str, Any]) -> str:
    def block(code: str) -> str:
        return "\n".join(f"    {line}" for line in code.strip("\n").splitlines())

    return "\n".join(
        [
            f"{data['id']}: {data['title']}",
            f"Default level: {data['level']}",
            "",
            "Why this is bad",
            data["rationale"].strip(),
            "",
            "Instead",
            data["instead"].strip(),
            "",
            "Example (bad)",
            block(data["example_bad"]),
            "",
            "Example (good)",
            block(data["example_good"]),
        ]
    )


def explain(
    rule_id: str = typer.Argument(..., metavar="ID", help="A rule id, e.g. BG101."),
    fmt: Format = typer.Option(Format.text, "--format", "-f", help="Output format: text or json."),
) -> None:
    """Explain a rule: why it matters, what to write instead, and examples of both."""
    from brickguard.rules import all_rules

    rules = {rule.id.upper(): rule for rule in all_rules()}
    rule = rules.get(rule_id.strip().upper())
    if rule is None and rule_id.strip().upper().startswith("MISRA-C2012-"):
        from brickguard.misra import PREFIX, misra_rules, rule_info

        number = rule_id.strip()[len(PREFIX) :]
        rule = rule_info(number) if number in misra_rules() else None
    if rule is None:
        raise fail(f"unknown rule {rule_id!r}; known rules: {', '.join(sorted(rules))}")
    emit(_rule_dict(rule), fmt, _explain_text)


def list_rules(
    fmt: Format = typer.Option(Format.text, "--format", "-f", help="Output format: text or json."),
) -> None:
    """List every rule: id, default level and title."""
    from brickguard.rules import all_rules

    data = [{"id": r.id, "level": r.level.value, "title": r.title} for r in all_rules()]
    emit(
        data,
        fmt,
        lambda rows: "\n".join(f"{r['id']:<16} {r['level']:<8} {r['title']}" for r in rows),
    )


def _tally(report: Report) -> str:
    """'3 findings (BG101 x2, BG104)'."""
    active = report.active
    if not active:
        return "0 findings"
    counts = Counter(item.finding.rule for item in active)
    parts = [rule if n == 1 else f"{rule} x{n}" for rule, n in sorted(counts.items())]
    return f"{len(active)} finding{'s' if len(active) != 1 else ''} ({', '.join(parts)})"


def _shown(folder: Path) -> str:
    try:
        return str(folder.relative_to(Path.cwd()))
    except ValueError:
        return str(folder)


def run_demo(examples: Path = EXAMPLES / "i2c_slave") -> tuple[str, int]:
    """The demo's text and exit code: the buggy example must have findings, the fixed none."""
    from brickguard.config import load_config

    reports: dict[str, Report] = {}
    out: list[str] = []
    for name in ("buggy", "fixed"):
        folder = examples / name
        if not folder.is_dir():
            raise BrickguardError(
                f"the demo example {folder} is missing; run the demo from a source checkout"
            )
        reports[name] = run_analysis([folder], load_config(start=folder))
        heading = f"== {name}: {_shown(folder)} =="
        out += [heading, render_text(reports[name], with_summary=True).rstrip("\n"), ""]
    buggy, fixed = reports["buggy"], reports["fixed"]
    out.append(f"buggy: {_tally(buggy)}; fixed: {_tally(fixed)}")
    honest = bool(buggy.active) and not fixed.active
    if not honest:
        out.append("demo FAILED: the buggy example must have findings and the fixed one none")
    return "\n".join(out) + "\n", 0 if honest else 1


def demo() -> None:
    """Check the I2C-slave example, buggy and fixed (what `make demo` runs)."""
    try:
        text, code = run_demo()
    except BrickguardError as exc:
        raise fail(str(exc)) from None
    sys.stdout.write(text)
    raise typer.Exit(code)
