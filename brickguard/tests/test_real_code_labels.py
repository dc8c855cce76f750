"""The real-code precision labels (benchmarks/real_code_labels.toml) and the benchmark's matching.

The labels file is checked on its own; with the shared firmware beside the repository
(``../shared/firmware``), every BG1xx finding brickguard reports there must have a label and every
true label a finding (no true finding lost), which is what ``bench_real_code.py --check`` asks;
a false label with no finding is a fixed false alarm, whose label should go.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_real_code.py"
_spec = importlib.util.spec_from_file_location("bench_real_code", BENCH)
bench = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("bench_real_code", bench)  # dataclasses look their module up there
_spec.loader.exec_module(bench)


def test_labels_file_is_well_formed() -> None:
    labels = bench.load_labels(bench.LABELS)
    assert labels, "no labels"
    fields = ("rule", "path", "function", "symbol", "line")
    keys = [tuple(lab[k] for k in fields) for lab in labels]
    # The same finding twice is allowed only where two targets report it (a shared header).
    for key in {k for k in keys if keys.count(k) > 1}:
        assert key[1].endswith(".h"), f"label given twice: {key}"
    for lab in labels:
        assert not lab["path"].startswith("/"), f"absolute path in a label: {lab['path']}"


def test_bad_labels_are_refused(tmp_path: Path) -> None:
    good = (
        '[[label]]\nrule = "BG101"\npath = "a.c"\nfunction = "main"\nsymbol = "x"\nline = 3\n'
    )
    cases = {
        'verdict = "maybe"\nreason = "maybe: ?"\n': "verdict",
        'verdict = "false"\nreason = "false: init"\n': "needs a cause",
        'verdict = "false"\ncause = "luck"\nreason = "false: init"\n': "cause must be",
        'verdict = "true"\nreason = "it races"\n': "must start with",
        'verdict = "true"\ncause = "timeline"\nreason = "true: x"\n': "needs a cause",
    }
    for tail, words in cases.items():
        path = tmp_path / "labels.toml"
        path.write_text(good + tail, encoding="utf-8")
        with pytest.raises(ValueError, match=words):
            bench.load_labels(path)


def test_matching_prefers_the_same_line_and_reports_both_leftovers() -> None:
    def found(line: int, symbol: str = "x") -> object:
        return bench.Found("BG101", "a.c", "main", symbol, line, "", "t")

    def label(line: int) -> dict:
        return {"rule": "BG101", "path": "a.c", "function": "main", "symbol": "x", "line": line}

    # Code moved down by 2: the label at 10 still matches the finding now at 12.
    pairs, unlabelled, gone = bench.match([found(12)], [label(10)])
    assert [(f.line, lab["line"]) for f, lab in pairs] == [(12, 10)] and not unlabelled
    # Two findings, two labels: the one on its exact line keeps its label.
    pairs, _, _ = bench.match([found(21), found(20)], [label(20), label(30)])
    assert sorted((f.line, lab["line"]) for f, lab in pairs) == [(20, 20), (21, 30)]
    pairs, unlabelled, gone = bench.match([found(5, "y")], [label(5)])
    assert not pairs and [f.symbol for f in unlabelled] == ["y"] and gone == [label(5)]


def test_function_spans_skip_comments_strings_and_initialisers() -> None:
    source = (
        "static const int table[2] = { 1, 2 };\n"          # 1: an initialiser, not a function
        "/* void fake(void) { } */\n"                      # 2
        "void on(void (*cb)(int), const char *s)\n"        # 3
        "{\n"                                              # 4
        '  if (s[0] == \'{\') { cb("}"); }\n'              # 5
        "}\n"                                              # 6
        "#define M() {\n"                                  # 7
        "int main(void) { return 0; }\n"                   # 8
    )
    assert bench.function_spans(source) == [(4, 6, "on"), (8, 8, "main")]


def test_a_finding_reported_by_several_targets_is_one_site() -> None:
    a = bench.Found("BG101", "hal/Src/x.c", "f", "s", 10, "m", "one project")
    b = bench.Found("BG101", "hal/Src/x.c", "f", "s", 10, "m", "another project")
    c = bench.Found("BG101", "hal/Src/x.c", "f", "s", 12, "m", "another project")
    found, reported = bench.distinct([a, b, c])
    assert found == [a, c] and reported[("BG101", "hal/Src/x.c", "f", "s", 10)] == 2


def test_demos_are_built_with_the_hal_sources_their_project_links() -> None:
    fw = bench.FIRMWARE
    if not (fw / bench.DEMOS).is_dir():
        pytest.skip(f"the shared firmware is not at {fw} (../shared absent)")
    demos = [t for t in bench.targets(fw) if "/" in t.name and "HAL (" not in t.name]
    assert demos and all(any(p.name == "stm32f4xx_hal_uart.c" for p in t.sources)
                         for t in demos if t.name.startswith("UART/"))
    assert all("stm32f4_discovery.c" in t.missing for t in demos)


@pytest.mark.slow
def test_every_finding_on_the_shared_firmware_has_a_label() -> None:
    fw = bench.FIRMWARE
    if not (fw / bench.DEMOS).is_dir() or not (fw / "freertos").is_dir():
        pytest.skip(f"the shared firmware is not at {fw} (../shared absent)")
    found = []
    for target in bench.targets(fw):
        found.extend(bench.run_target(target, fw, jobs=0)[0])
    found, _ = bench.distinct(found)
    _, unlabelled, gone = bench.match(found, bench.load_labels(bench.LABELS))
    assert not unlabelled, "findings with no label:\n" + "\n".join(f.key() for f in unlabelled)
    lost = [lab for lab in gone if lab["verdict"] == "true"]
    assert not lost, "true findings lost:\n" + "\n".join(bench._label_key(lab) for lab in lost)
    fixed = [lab for lab in gone if lab["verdict"] == "false"]
    assert not fixed, "fixed false alarms whose labels should go:\n" + "\n".join(
        bench._label_key(lab) for lab in fixed)
