"""Inline suppressions and baselines: what they hide, what they must not, and line moves."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from brickguard.baseline import load_baseline, write_baseline
from brickguard.errors import BrickguardError
from brickguard.findings import Finding, Level, Location
from brickguard.report import build_report, render_json, render_sarif, render_text, summary_line
from brickguard.suppress import parse_suppression


def write(root: Path, text: str) -> str:
    path = root / "drv.c"
    path.write_text(text)
    return str(path)


def bg(rule: str, file: str, line: int, message: str = "shared 'flag' read unprotected") -> Finding:
    return Finding(rule, Level.warning, message, Location(file, line, 5))


@pytest.mark.parametrize(
    ("text", "rules", "reason"),
    [
        ("x = 1; /* brickguard: ignore[BG101] read at boot */", {"BG101"}, "read at boot"),
        ("// brickguard: ignore[BG101,BG104] the ISR is disabled here", {"BG101", "BG104"},
         "the ISR is disabled here"),
        ("// brickguard: ignore[ bg101 ]", {"BG101"}, ""),
        ("/* brickguard: ignore[*] vendor code */ x++;", None, "vendor code"),
    ],
)  # fmt: skip
def test_parse_suppression(text: str, rules: set[str] | None, reason: str) -> None:
    found = parse_suppression(text, 7)
    assert found is not None and found.line == 7 and found.reason == reason
    assert found.rules == (None if rules is None else frozenset(rules))


def test_plain_comments_are_not_suppressions() -> None:
    assert parse_suppression("// brickguard ignores nothing here", 1) is None
    assert parse_suppression("x++; /* ignore[BG101] */", 1) is None


def test_same_line_and_comment_line_above_suppress(tmp_path: Path) -> None:
    file = write(
        tmp_path,
        "int a = flag; // brickguard: ignore[BG101] read once at boot\n"
        "// brickguard: ignore[BG101] double-buffered\n"
        "int b = flag;\n"
        "int c = flag;\n",
    )
    report = build_report([bg("BG101", file, n) for n in (1, 3, 4)], [file], [], tmp_path)
    assert [item.finding.location.line for item in report.active] == [4]
    reasons = {i.finding.location.line: i.suppression.reason for i in report.items if i.suppression}
    assert reasons == {1: "read once at boot", 3: "double-buffered"}
    assert report.suppressed == 2 and "2 suppressed" in summary_line(report)
    # Dropped from text and JSON; carried (only) when asked for.
    assert render_text(report).count("BG101") == 1
    assert len(render_json(report)["findings"]) == 1


def test_wrong_id_code_above_and_two_lines_above_do_not_suppress(tmp_path: Path) -> None:
    file = write(
        tmp_path,
        "int a = flag; // brickguard: ignore[BG104] not this rule\n"
        "int b = flag; // brickguard: ignore[BG101] this line only\n"
        "int c = flag;\n"
        "// brickguard: ignore[BG101] too far away\n"
        "\n"
        "int d = flag;\n",
    )
    report = build_report([bg("BG101", file, n) for n in (1, 2, 3, 6)], [file], [], tmp_path)
    assert [item.finding.location.line for item in report.active] == [1, 3, 6]


def test_show_suppressed_carries_them_into_sarif_and_json(tmp_path: Path) -> None:
    file = write(tmp_path, "/* brickguard: ignore[*] */\nint a = flag;\n")
    report = build_report([bg("BG101", file, 2)], [file], [], tmp_path, show_suppressed=True)
    assert report.active == [] and not report.fails("note")
    (result,) = render_sarif(report)["runs"][0]["results"]
    assert result["suppressions"] == [{"kind": "inSource", "status": "accepted"}]
    (finding,) = render_json(report)["findings"]
    assert finding["suppressed"] == {"reason": "", "line": 1}
    assert "[suppressed: no reason given]" in render_text(report)
    hidden = build_report([bg("BG101", file, 2)], [file], [], tmp_path)
    assert render_sarif(hidden)["runs"][0]["results"] == []


def test_baseline_round_trip_survives_lines_inserted_above(tmp_path: Path) -> None:
    body = "int a = flag;\nint b = flag;\nHAL_Delay(1);\n"
    file = write(tmp_path, body)
    old = [bg("BG101", file, 1), bg("BG101", file, 2), bg("BG104", file, 3, "blocks at drv.c:3")]
    baseline_file = tmp_path / "baseline.json"
    assert write_baseline(baseline_file, build_report(old, [file], [], tmp_path)) == 3
    data = json.loads(baseline_file.read_text())
    assert [e["rule"] for e in data["findings"]] == ["BG101", "BG101", "BG104"]
    assert all(e["file"] == "drv.c" for e in data["findings"])

    # Someone adds a header comment: every finding moves down 3 lines; one new finding appears.
    write(tmp_path, "/* license */\n/* more */\n\n" + body + "int c = other;\n")
    moved = [bg("BG101", file, 4), bg("BG101", file, 5), bg("BG104", file, 6, "blocks at drv.c:6")]
    new = bg("BG101", file, 7, "shared 'other' read unprotected")
    known = load_baseline(baseline_file)
    report = build_report([*moved, new], [file], [], tmp_path, baseline=known)
    assert [item.finding for item in report.active] == [new]
    assert report.baselined == 3 and "3 hidden by the baseline" in summary_line(report)
    assert render_json(report)["summary"]["baselined"] == 3


def test_baseline_does_not_hide_a_finding_whose_line_changed(tmp_path: Path) -> None:
    file = write(tmp_path, "int a = flag;\n")
    baseline_file = tmp_path / "baseline.json"
    write_baseline(baseline_file, build_report([bg("BG101", file, 1)], [file], [], tmp_path))
    write(tmp_path, "int a = flag + flag2;\n")
    known = load_baseline(baseline_file)
    report = build_report([bg("BG101", file, 1)], [file], [], tmp_path, baseline=known)
    assert len(report.active) == 1 and report.baselined == 0


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        (None, "does not exist"),
        ("{not json", "is not JSON"),
        ('{"findings": 3}', "not a brickguard"),
    ],
)
def test_bad_baselines_raise_a_clear_error(tmp_path: Path, content: str | None, needle: str):
    path = tmp_path / "baseline.json"
    if content is not None:
        path.write_text(content)
    with pytest.raises(BrickguardError, match=needle):
        load_baseline(path)
