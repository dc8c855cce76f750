"""Report formats: text layout, JSON against its schema, SARIF 2.1.0 against the OASIS schema."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import jsonschema
import pytest

from brickguard.findings import Finding, Level, Location
from brickguard.report import (
    build_report,
    fingerprints,
    render_json,
    render_sarif,
    render_text,
    summary_line,
)
from brickguard.report.source import SourceCache

SCHEMA = Path(__file__).resolve().parents[1] / "src/brickguard/data/findings.schema.json"
# The folder `shared` beside the repository root (tests -> brickguard -> repository root).
SHARED = Path(__file__).resolve().parents[2].parent / "shared"
SARIF_SCHEMA = SHARED / "schemas" / "sarif-schema-2.1.0.json"


@dataclass(frozen=True)
class RuleDoc:
    """The fields reports read from a rule (``brickguard.rules.base.Rule`` has these and more)."""

    id: str
    title: str
    level: Level
    rationale: str
    instead: str


RULES = [
    RuleDoc("BG101", "Shared variable written in an ISR, read unprotected", Level.warning,
            "The ISR can run between the read and the use.", "Read it inside a critical section."),
    RuleDoc("BG104", "Blocking call in interrupt context", Level.error,
            "A blocking call in an ISR stalls every lower-priority interrupt.", "Defer the work."),
]  # fmt: skip

MAIN_C = """\
#include "isr.h"
int main(void) {
\tif (rx_count > 0) {
        rx_count = 0;
    }
}
"""
ISR_C = """\
volatile int rx_count;
void I2C1_EV_IRQHandler(void) {
    rx_count++;
    HAL_Delay(1);
}
"""


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "main.c").write_text(MAIN_C)
    (tmp_path / "src" / "isr.c").write_text(ISR_C)
    return tmp_path


def findings(root: Path) -> list[Finding]:
    main, isr = str(root / "src" / "main.c"), str(root / "src" / "isr.c")
    isr_write = Location(isr, 3, 5, "written in I2C1_EV_IRQHandler (interrupt)")
    task_read = Location(main, 3, 6, "read in main (task), no critical section")
    return [
        Finding("BG104", Level.error, "HAL_Delay blocks in interrupt context", Location(isr, 4, 5)),
        Finding(
            "BG101", Level.warning, "'rx_count' is written in an interrupt and read here",
            task_read, related=(isr_write,), flow=(isr_write, task_read),
        ),
        # Rules the run did not describe, and a file that is gone: reports must still cope.
        Finding("BG000", Level.note, "unknown type name 'uint8_t'", Location("gone.c", 7, 2)),
        Finding("MISRA-C2012-R.8.4", Level.note, "no prior declaration", Location(isr, 1, 14)),
    ]  # fmt: skip


def report_for(root: Path, **kwargs):
    files = [str(root / "src" / "main.c"), str(root / "src" / "isr.c")]
    return build_report(findings(root), files, RULES, root, **kwargs)


def test_text_layout_has_position_rule_level_source_caret_and_notes(project: Path) -> None:
    text = render_text(report_for(project))
    blocks = text.strip("\n").split("\n\n")
    assert len(blocks) == 4
    # File order: src/isr.c before src/main.c, then gone.c is sorted by its name as given.
    bg101 = next(b for b in blocks if "BG101" in b).splitlines()
    assert bg101[0] == (
        "src/main.c:3:6: BG101 [warning] 'rx_count' is written in an interrupt and read here"
    )
    assert bg101[1] == "    3 | \tif (rx_count > 0) {"
    # The caret sits under column 6 ('r'), keeping the tab so it lines up when expanded.
    assert bg101[2] == "      | \t    ^"
    assert bg101[2].index("^") == bg101[1].index("rx_count")
    # The related location is retold as the flow's first step, so text shows it once.
    assert bg101[3].startswith("    src/isr.c:3:5: step 1: written in")
    assert bg101[4].startswith("    src/main.c:3:6: step 2: read in main")
    assert len(bg101) == 5
    gone = next(b for b in blocks if "BG000" in b)
    assert gone == "gone.c:7:2: BG000 [note] unknown type name 'uint8_t'"  # no source, no crash


def test_summary_counts_by_level(project: Path) -> None:
    report = report_for(project)
    assert summary_line(report) == "4 findings (1 error, 1 warning, 2 notes) in 2 files"
    assert report.fails("error") and report.fails("note") and not report.fails("never")
    empty = build_report([], [], RULES, project)
    assert summary_line(empty) == "no findings in 0 files"
    assert not empty.fails("note")


def test_json_report_matches_its_schema(project: Path) -> None:
    data = render_json(report_for(project))
    jsonschema.Draft202012Validator(json.loads(SCHEMA.read_text())).validate(data)
    assert data["tool"] == "brickguard" and data["files"] == ["src/main.c", "src/isr.c"]
    bg101 = next(f for f in data["findings"] if f["rule"] == "BG101")
    assert (bg101["file"], bg101["line"], bg101["column"]) == ("src/main.c", 3, 6)
    assert bg101["related"] == [
        {"file": "src/isr.c", "line": 3, "column": 5,
         "message": "written in I2C1_EV_IRQHandler (interrupt)"}
    ]  # fmt: skip
    assert [step["line"] for step in bg101["flow"]] == [3, 3]
    assert data["summary"]["by_level"] == {"note": 2, "warning": 1, "error": 1}
    assert data["summary"]["by_rule"]["BG101"] == 1


def test_json_schema_rejects_a_malformed_report(project: Path) -> None:
    data = render_json(report_for(project))
    data["findings"][0]["level"] = "fatal"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft202012Validator(json.loads(SCHEMA.read_text())).validate(data)


def sarif_validator() -> jsonschema.Draft4Validator:
    if not SARIF_SCHEMA.is_file():
        pytest.skip(f"the SARIF 2.1.0 schema is not at {SARIF_SCHEMA} (shared data absent)")
    return jsonschema.Draft4Validator(json.loads(SARIF_SCHEMA.read_text()))


def test_sarif_is_valid_and_describes_rules_locations_and_flows(project: Path) -> None:
    sarif = render_sarif(report_for(project))
    sarif_validator().validate(sarif)
    run = sarif["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules][:2] == ["BG101", "BG104"]
    assert rules[0]["shortDescription"]["text"] == RULES[0].title
    assert rules[0]["fullDescription"]["text"] == RULES[0].rationale
    assert rules[0]["help"]["text"] == RULES[0].instead
    assert rules[1]["defaultConfiguration"]["level"] == "error"
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == project.resolve().as_uri() + "/"
    for result in run["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]  # indexes line up
    bg101 = next(r for r in run["results"] if r["ruleId"] == "BG101")
    loc = bg101["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"] == {"uri": "src/main.c", "uriBaseId": "%SRCROOT%"}
    assert (loc["region"]["startLine"], loc["region"]["startColumn"]) == (3, 6)
    assert bg101["relatedLocations"][0]["id"] == 0
    assert bg101["relatedLocations"][0]["message"]["text"].startswith("written in")
    steps = bg101["codeFlows"][0]["threadFlows"][0]["locations"]
    assert [s["location"]["physicalLocation"]["region"]["startLine"] for s in steps] == [3, 3]
    assert len(bg101["partialFingerprints"]["brickguard/v1"]) == 32
    bg104 = next(r for r in run["results"] if r["ruleId"] == "BG104")
    assert "codeFlows" not in bg104 and "relatedLocations" not in bg104


def test_sarif_file_outside_the_root_gets_an_absolute_uri(project: Path, tmp_path_factory) -> None:
    elsewhere = tmp_path_factory.mktemp("vendor") / "hal.c"
    elsewhere.write_text("void HAL_Init(void) {}\n")
    finding = Finding("BG104", Level.error, "m", Location(str(elsewhere), 1, 6))
    sarif = render_sarif(build_report([finding], [str(elsewhere)], RULES, project))
    sarif_validator().validate(sarif)
    artifact = sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
    assert artifact["artifactLocation"] == {"uri": elsewhere.resolve().as_uri()}


def test_fingerprint_ignores_line_moves_but_not_content(project: Path) -> None:
    source = SourceCache(project)
    main = str(project / "src" / "main.c")
    a = Finding("BG101", Level.warning, "read at main.c:3:6", Location(main, 3, 6))
    (first,) = fingerprints([a], source)
    shifted = project / "src" / "main.c"
    shifted.write_text("// added\n// lines\n" + MAIN_C)
    moved = Finding("BG101", Level.warning, "read at main.c:5:6", Location(main, 5, 6))
    assert fingerprints([moved], SourceCache(project)) == [first]
    other_rule = Finding("BG102", Level.warning, "read at main.c:5:6", Location(main, 5, 6))
    assert fingerprints([other_rule], SourceCache(project)) != [first]
    other_line = Finding("BG101", Level.warning, "read at main.c:6:6", Location(main, 6, 6))
    assert fingerprints([other_line], SourceCache(project)) != [first]


def test_duplicate_findings_get_distinct_stable_fingerprints(project: Path) -> None:
    (project / "src" / "dup.c").write_text("x++;\nx++;\n")
    dup = str(project / "src" / "dup.c")
    one = Finding("BG101", Level.warning, "same", Location(dup, 1, 1))
    two = Finding("BG101", Level.warning, "same", Location(dup, 2, 1))
    forward = fingerprints([one, two], SourceCache(project))
    assert forward[0] != forward[1]
    assert fingerprints([two, one], SourceCache(project)) == forward[::-1]
