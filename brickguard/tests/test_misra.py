"""The MISRA bridge: cppcheck's misra addon results as brickguard findings, in every report."""

from __future__ import annotations

import re
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from brickguard.analyze import analyze
from brickguard.cli_check import run_analysis
from brickguard.config import Config, load_config
from brickguard.findings import Level
from brickguard.misra import SKIPPED_ID, cppcheck_command, misra_rules
from brickguard.report import render_json, render_sarif

FIXTURE = Path(__file__).parent / "cases" / "misra" / "violations.c"
MARK = re.compile(r"misra:\s*([\d.]+)")
needs_cppcheck = pytest.mark.skipif(
    shutil.which("cppcheck") is None, reason="cppcheck is not installed (apt-get install cppcheck)"
)


def _marks(path: Path) -> set[tuple[int, str]]:
    out = set()
    for n, line in enumerate(path.read_text().splitlines(), start=1):
        m = MARK.search(line)
        if m:
            out.add((n, f"MISRA-C2012-{m.group(1)}"))
    return out


def _config(root: Path, **kw) -> Config:
    return replace(Config(root=root, jobs=1, misra=True), **kw)


@needs_cppcheck
def test_each_known_violation_is_reported_on_its_line() -> None:
    result = analyze([FIXTURE], _config(FIXTURE.parent, select=["MISRA"]))
    got = {(f.location.line, f.rule) for f in result.findings if f.rule.startswith("MISRA")}
    want = _marks(FIXTURE)
    assert len({rule for _, rule in want}) >= 12
    assert got == want
    levels = {f.rule: f.level for f in result.findings}
    assert levels["MISRA-C2012-10.4"] == Level.warning  # required
    assert levels["MISRA-C2012-15.1"] == Level.note  # advisory
    described = {r.id for r in result.rules}
    assert {rule for _, rule in want} <= described


@needs_cppcheck
def test_misra_in_sarif_json_and_suppressions(tmp_path: Path) -> None:
    src = FIXTURE.read_text().replace(
        "int32_t r = a + u;",
        "int32_t r = a + u; // brickguard: ignore[MISRA-C2012-10.4] reviewed deviation",
    )
    (tmp_path / "v.c").write_text(src)
    report = run_analysis([tmp_path / "v.c"], _config(tmp_path))
    shown = {i.finding.rule for i in report.active}
    assert "MISRA-C2012-10.4" not in shown and "MISRA-C2012-15.6" in shown
    sarif = render_sarif(report)["runs"][0]
    rules = {r["id"]: r for r in sarif["tool"]["driver"]["rules"]}
    assert rules["MISRA-C2012-15.6"]["shortDescription"]["text"] == misra_rules()["15.6"].summary
    assert rules["MISRA-C2012-15.6"]["defaultConfiguration"]["level"] == "warning"
    for result in sarif["results"]:
        assert sarif["tool"]["driver"]["rules"][result["ruleIndex"]]["id"] == result["ruleId"]
    data = render_json(report)
    assert "MISRA-C2012-16.4" in str(data)


def test_without_cppcheck_one_note_and_the_run_goes_on(tmp_path: Path) -> None:
    (tmp_path / "a.c").write_text("int f(int x) { return x + 1; }\n")
    result = analyze([tmp_path / "a.c"], _config(tmp_path, cppcheck="no-such-cppcheck-here"))
    notes = [f for f in result.findings if f.rule == SKIPPED_ID]
    assert len(notes) == 1 and notes[0].level == Level.note
    assert "skipped" in notes[0].message and "cppcheck not found" in notes[0].message


def test_misra_off_by_default_and_enabled_from_the_config(tmp_path: Path) -> None:
    assert Config(root=tmp_path).misra is False
    (tmp_path / "brickguard.toml").write_text(
        '[misra]\nenabled = true\ncppcheck = "cppcheck-9"\nflags = ["--suppress=misra-c2012-2.5"]\n'
        '[build]\ninclude = ["inc"]\ndefines = ["BOARD=2"]\nflags = ["-std=gnu11"]\n'
    )
    cfg = load_config(start=tmp_path)
    assert cfg.misra and cfg.cppcheck == "cppcheck-9"
    cmd = cppcheck_command(["a.c"], cfg, tmp_path / "build")
    assert any(a.startswith("--addon=") for a in cmd) and "--suppress=misra-c2012-2.5" in cmd
    assert "--max-configs=1" in cmd and any(a.startswith("-D__GNUC__=") for a in cmd)
    assert f"-I{tmp_path.resolve() / 'inc'}" in cmd and "-DBOARD=2" in cmd
    assert "--std=c11" in cmd and cmd[-1] == "a.c"


def test_rule_table_is_complete_and_our_own() -> None:
    rules = misra_rules()
    assert len(rules) >= 40
    assert {r.category for r in rules.values()} == {"mandatory", "required", "advisory"}
    for r in rules.values():
        assert 10 < len(r.summary) < 100  # one line, a headline, not a copied rule text


@needs_cppcheck
def test_cli_misra_flag_schemas_and_baseline(tmp_path: Path) -> None:
    import json

    import jsonschema
    from typer.testing import CliRunner

    from brickguard.cli import app

    src = tmp_path / "m.c"
    # One violation per line: the addon reports at most one finding per line.
    src.write_text("int g(int a)\n{\n    int b = a + 1u;\n    if (a) {\n        b = 2;\n    }\n"
                   "    return b;\n}\n")
    runner = CliRunner()
    out = runner.invoke(app, ["check", str(src), "--misra", "--format", "json", "--jobs", "1"])
    data = json.loads(out.stdout)
    schema = Path(__file__).resolve().parents[1] / "src/brickguard/data/findings.schema.json"
    jsonschema.Draft202012Validator(json.loads(schema.read_text())).validate(data)
    assert "MISRA-C2012-10.4" in out.stdout and out.exit_code == 1
    sarif_schema = Path(__file__).resolve().parents[3] / "shared/schemas/sarif-schema-2.1.0.json"
    out = runner.invoke(app, ["check", str(src), "--misra", "--format", "sarif", "-j", "1"])
    if sarif_schema.is_file():
        jsonschema.Draft4Validator(json.loads(sarif_schema.read_text())).validate(
            json.loads(out.stdout)
        )
    base = tmp_path / "baseline.json"
    runner.invoke(app, ["check", str(src), "--misra", "-j", "1", "--write-baseline", str(base)])
    out = runner.invoke(app, ["check", str(src), "--misra", "-j", "1", "--baseline", str(base)])
    assert out.exit_code == 0, out.stdout
    out = runner.invoke(app, ["check", str(src), "-j", "1"])  # MISRA is off without --misra
    assert "MISRA" not in out.stdout
