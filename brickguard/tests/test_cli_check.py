"""``brickguard check``, ``explain``, ``rules`` and ``demo`` end to end, with the real analysis."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from typer.testing import CliRunner

from brickguard.cli import app
from brickguard.rules import all_rules

SCHEMA = Path(__file__).resolve().parents[1] / "src/brickguard/data/findings.schema.json"
SARIF_SCHEMA = Path(__file__).resolve().parents[2].parent / "shared/schemas/sarif-schema-2.1.0.json"
EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "i2c_slave"

CLEAN_C = "static int twice(int x) { return 2 * x; }\nint main(void) { return twice(1); }\n"
# clang reports "expected expression" on line 2: a BG000 finding at level error.
BROKEN_C = "int main(void) {\n    int x = ;\n    return x;\n}\n"


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args))
    # Only a deliberate exit is acceptable: any other exception would be a traceback for the user.
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    (tmp_path / "brickguard.toml").write_text('[build]\njobs = 1\n')
    (tmp_path / "clean.c").write_text(CLEAN_C)
    (tmp_path / "broken.c").write_text(BROKEN_C)
    return tmp_path


def test_clean_code_exits_0(project: Path) -> None:
    code, out, err = run("check", str(project / "clean.c"))
    assert code == 0, err
    assert out == "" and "no findings in 1 file" in err


def test_a_finding_at_the_fail_level_exits_1_and_fail_on_moves_the_bar(project: Path) -> None:
    code, out, err = run("check", str(project / "broken.c"))
    assert code == 1, err
    assert out.startswith("broken.c:2:") and " BG000 [error] " in out
    assert "1 finding (1 error) in 1 file" in err
    assert run("check", str(project / "broken.c"), "--fail-on", "never")[0] == 0
    assert run("check", str(project / "broken.c"), "--fail-on", "error")[0] == 1
    assert run("check", str(project / "broken.c"), "--ignore", "BG000")[0] == 0
    assert run("check", str(project / "broken.c"), "--select", "BG1")[0] == 0


def test_json_and_sarif_reports_validate(project: Path) -> None:
    code, out, _ = run("check", str(project), "--format", "json")
    data = json.loads(out)
    jsonschema.Draft202012Validator(json.loads(SCHEMA.read_text())).validate(data)
    assert code == 1 and sorted(data["files"]) == ["broken.c", "clean.c"]
    assert [f["rule"] for f in data["findings"]] == ["BG000"]
    code, out, _ = run("check", str(project), "--format", "sarif")
    sarif = json.loads(out)
    if SARIF_SCHEMA.is_file():
        jsonschema.Draft4Validator(json.loads(SARIF_SCHEMA.read_text())).validate(sarif)
    (result,) = sarif["runs"][0]["results"]
    assert result["ruleId"] == "BG000"
    driver_ids = [r["id"] for r in sarif["runs"][0]["tool"]["driver"]["rules"]]
    assert driver_ids == [rule.id for rule in all_rules()]


def test_output_file_gets_the_report_and_stderr_the_summary(project: Path) -> None:
    target = project / "out.sarif"
    code, out, err = run("check", str(project / "broken.c"), "-f", "sarif", "-o", str(target))
    assert code == 1 and out == ""
    assert json.loads(target.read_text())["version"] == "2.1.0"
    assert f"wrote the sarif report to {target}" in err and "1 finding" in err


def test_inline_suppression_hides_the_finding(project: Path) -> None:
    (project / "broken.c").write_text(
        BROKEN_C.replace("int x = ;", "int x = ; // brickguard: ignore[BG000] demo of a typo")
    )
    code, out, err = run("check", str(project / "broken.c"))
    assert code == 0 and out == "" and "1 suppressed" in err
    code, out, _ = run("check", str(project / "broken.c"), "-f", "sarif", "--show-suppressed")
    (result,) = json.loads(out)["runs"][0]["results"]
    assert result["suppressions"][0]["justification"] == "demo of a typo"


def test_baseline_round_trip_through_the_cli(project: Path) -> None:
    broken, baseline = str(project / "broken.c"), str(project / "bl.json")
    code, _, err = run("check", broken, "--write-baseline", baseline)
    assert code == 0 and "wrote 1 finding fingerprint to" in err
    (project / "broken.c").write_text("/* a new header */\n\n" + BROKEN_C)
    code, out, err = run("check", broken, "--baseline", baseline)
    assert code == 0 and out == "" and "1 hidden by the baseline" in err
    # The same baseline named in the config applies without the option.
    (project / "brickguard.toml").write_text('[build]\njobs = 1\n[rules]\nbaseline = "bl.json"\n')
    assert run("check", broken)[0] == 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["check", "no/such/file.c"], "no such file or folder: no/such/file.c"),
        (["check", "{project}", "--format", "xml"], "unknown --format 'xml'"),
        (["check", "{project}", "--fail-on", "fatal"], "unknown --fail-on 'fatal'"),
        (["check", "{project}", "--config", "{project}/nope.toml"], "configuration file not found"),
        (["check", "{project}", "--baseline", "{project}/nope.json"], "does not exist"),
        (["explain", "BG999"], "unknown rule 'BG999'; known rules: BG000"),
    ],
)
def test_usage_errors_exit_2_with_one_line(project: Path, args: list[str], message: str) -> None:
    code, out, err = run(*[a.replace("{project}", str(project)) for a in args])
    assert code == 2 and out == ""
    assert err.startswith("error: ") and message in err and err.count("\n") == 1


def test_a_bad_config_found_upward_exits_2(project: Path) -> None:
    (project / "brickguard.toml").write_text("[rules]\nfail_on = 3 4\n")
    code, _, err = run("check", str(project / "clean.c"))
    assert code == 2 and err.startswith("error: ") and "not valid TOML" in err


def test_console_script_error_has_no_traceback(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "brickguard.cli", "check", str(tmp_path / "missing.c")],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2
    assert proc.stderr.startswith("error: no such file") and "Traceback" not in proc.stderr


@pytest.mark.parametrize("rule", all_rules(), ids=lambda r: r.id)
def test_explain_every_rule(rule) -> None:
    code, out, _ = run("explain", rule.id.lower())
    assert code == 0
    assert out.startswith(f"{rule.id}: {rule.title}\n")
    for heading in ("Why this is bad", "Instead", "Example (bad)", "Example (good)"):
        assert f"\n{heading}\n" in out
    assert rule.rationale.split()[0] in out and rule.instead.split()[0] in out
    code, out, _ = run("explain", rule.id, "--format", "json")
    assert json.loads(out)["rationale"] == rule.rationale


def test_rules_lists_every_rule() -> None:
    code, out, _ = run("rules")
    assert code == 0
    assert [line.split()[0] for line in out.splitlines()] == [r.id for r in all_rules()]


RACE_C = """\
#include <stdint.h>
volatile uint16_t flag; void timer_start(void);
void TIM2_IRQHandler(void) {
    flag++;
}
int main(void) { timer_start();
    while (1) {
        if (flag) {
            flag = 0;
        }
    }
}
"""


def test_a_real_race_carries_related_locations_and_a_flow_and_its_baseline_survives_a_shift(
    project: Path,
) -> None:
    race = project / "race.c"
    race.write_text(RACE_C)
    code, out, _ = run("check", str(race), "-f", "sarif", "--fail-on", "warning")
    assert code == 1
    sarif = json.loads(out)
    if SARIF_SCHEMA.is_file():
        jsonschema.Draft4Validator(json.loads(SARIF_SCHEMA.read_text())).validate(sarif)
    bg101 = next(r for r in sarif["runs"][0]["results"] if r["ruleId"] == "BG101")
    assert bg101["locations"][0]["physicalLocation"]["region"]["startLine"] == 9
    related = bg101["relatedLocations"][0]["physicalLocation"]
    assert related["artifactLocation"] == {"uri": "race.c", "uriBaseId": "%SRCROOT%"}
    assert related["region"]["startLine"] == 4  # the interrupt handler's write
    steps = bg101["codeFlows"][0]["threadFlows"][0]["locations"]
    # the task's check, the handler's write between, the task's clear (R-W-W)
    assert [s["location"]["physicalLocation"]["region"]["startLine"] for s in steps] == [8, 4, 9]

    baseline = str(project / "bl.json")
    assert run("check", str(race), "--write-baseline", baseline)[0] == 0
    race.write_text("/* Copyright */\n/* more */\n" + RACE_C)  # every finding moves 2 lines
    code, out, err = run("check", str(race), "--baseline", baseline)
    assert code == 0 and out == "" and "hidden by the baseline" in err
    # A new race is still reported.
    race.write_text(RACE_C.replace("flag = 0;", "flag = 0;\n            flag |= 2u;"))
    code, out, _ = run("check", str(race), "--baseline", baseline)
    assert code == 1 and "race.c:10:13: BG102" in out


def test_i2c_example_buggy_fails_with_bg101_and_fixed_passes() -> None:
    code, out, _ = run("check", str(EXAMPLE / "buggy"), "-f", "sarif")
    assert code == 1
    results = json.loads(out)["runs"][0]["results"]
    assert any(r["ruleId"] == "BG101" and "codeFlows" in r for r in results)
    code, out, err = run("check", str(EXAMPLE / "fixed"))
    assert code == 0 and out == "" and "no findings" in err


def test_demo_is_honest(tmp_path: Path) -> None:
    from brickguard.cli_check import run_demo

    code, out, _ = run("demo")
    assert code == 0
    verdict = out.strip().splitlines()[-1]
    assert verdict.startswith("buggy: ") and "BG101" in verdict
    assert verdict.endswith("fixed: 0 findings")
    # With nothing wrong in the "buggy" copy the demo must fail rather than claim success.
    for name in ("buggy", "fixed"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "clean.c").write_text(CLEAN_C)
    text, code = run_demo(tmp_path)
    assert code == 1 and "buggy: 0 findings; fixed: 0 findings" in text
