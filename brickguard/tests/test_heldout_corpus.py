"""The held-out race corpora (benchmarks/heldout_races, heldout_races_v2, _v3, _v4, _v5, _v6)
are well formed; recall is not tested here.

Every labelled file exists and every C file is labelled, every labelled line is in range and names
the object, each entry has what the benchmark's scoring needs, and every program parses with clang
through the real `brickguard check` (no BG000). The recall and precision figures come from
``benchmarks/bench_heldout.py``.
"""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_heldout.py"
_spec = importlib.util.spec_from_file_location("bench_heldout", BENCH)
bench = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("bench_heldout", bench)  # dataclasses look their module up there
_spec.loader.exec_module(bench)

KINDS = {
    "missing-volatile",
    "lost-update",
    "rwr",
    "wwr",
    "rww",
    "wrw",
    "torn",
    "order",
    "priority-inversion",
}
PROFILES = {"cmsis", "cmsis-rtos2", "freertos", "zephyr"}
ENTRIES = [
    pytest.param(corpus, entry, id=f"{corpus.name}/{entry['name']}")
    for corpus in bench.CORPORA
    for entry in bench.load_labels(corpus)
]


def _last_identifier(spelling: str) -> str:
    return re.findall(r"[A-Za-z_]\w*", bench.INDEX.sub("", bench.norm(spelling)))[-1]


@pytest.mark.parametrize("corpus", bench.CORPORA, ids=lambda c: c.name)
def test_every_file_is_labelled_once_and_exists(corpus: Path) -> None:
    names = [e["name"] for e in bench.load_labels(corpus)]
    assert len(names) == len(set(names)), "a file is labelled twice"
    on_disk = {p.name for p in corpus.glob("*.c")}
    assert set(names) == on_disk
    assert len(names) >= 30


@pytest.mark.parametrize(("corpus", "entry"), ENTRIES)
def test_entry_is_well_formed(corpus: Path, entry: dict) -> None:
    lines = (corpus / entry["name"]).read_text().splitlines()
    assert entry["category"] and entry.get("profile") in PROFILES
    assert entry.get("race") or entry.get("clean"), "a clean file says which objects are safe"
    for race in entry.get("race", []):
        assert race["kind"] in KINDS
        assert len(race["contexts"]) == 2 and race["reason"].strip()
        assert race["lines"]
    for group in ("race", "acceptable", "clean"):
        for item in entry.get(group, []):
            assert item["reason"].strip()
            words = {_last_identifier(s) for s in [item["var"], *item.get("aliases", [])]}
            named = []
            for line in item.get("lines", []):
                assert 1 <= line <= len(lines), f"{item['var']}: line {line} out of range"
                text = lines[line - 1]
                named.append(any(re.search(rf"\b{w}\b", text) for w in words))
                # A race's lines may also hold the other party's step that does not name the
                # object (the call that re-arms the DMA into it, the hardware counter read
                # between the two words); every line of a clean object names it.
                assert named[-1] or group == "race", (
                    f"{entry['name']}:{line} does not mention {item['var']}: {text.strip()}"
                )
            assert not named or any(named), f"{entry['name']}: no line mentions {item['var']}"


def test_matching_rule() -> None:
    assert bench.name_matches("rb->head", "rb.head")
    assert bench.name_matches("gps.lat_e7", "gps")
    assert bench.name_matches("slot_state[2]", "slot_state[cur_slot]")
    assert not bench.name_matches("rxq", "rxq.count")  # a whole-struct report is field-blind
    assert not bench.name_matches("rx_head", "rx")


@pytest.mark.parametrize("corpus", bench.CORPORA, ids=lambda c: c.name)
def test_every_program_parses_with_brickguard(corpus: Path) -> None:
    exe = Path(sys.executable).parent / "brickguard"
    if not exe.exists():
        pytest.skip(f"no brickguard executable beside {sys.executable}")
    by_profile: dict[str, list[str]] = {}
    for entry in bench.load_labels(corpus):
        by_profile.setdefault(entry["profile"], []).append(str(corpus / entry["name"]))
    for profile, files in by_profile.items():
        with tempfile.NamedTemporaryFile("w", suffix=".toml") as fh:
            fh.write(bench.config_text(profile, corpus))
            fh.flush()
            proc = subprocess.run(
                [
                    str(exe),
                    "check",
                    *files,
                    "--config",
                    fh.name,
                    "--format",
                    "json",
                    "--select",
                    "BG000",
                    "--fail-on",
                    "never",
                ],
                capture_output=True,
                text=True,
                check=False,
            )
        report = json.loads(proc.stdout)
        assert sorted(Path(f).name for f in report["files"]) == sorted(Path(f).name for f in files)
        bad = [f"{f['file']}:{f['line']}: {f['message']}" for f in report["findings"]]
        assert not bad, "\n".join(bad)
