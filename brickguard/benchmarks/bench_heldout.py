"""Recall and precision of brickguard's interrupt-race rules (BG1xx) on a held-out corpus.

The corpus (``heldout_races/`` by default, ``--corpus DIR`` for another one such as
``heldout_races_v2/``; each described in its README.md) was written without reading brickguard's
rules, fixtures or benchmarks; its ``labels.toml`` lists, per program, every real race (a concrete
interleaving breaks the program), the shared objects that are safe, and a few "acceptable" objects
that are a second face of a labelled race.

The script runs the installed ``brickguard check`` CLI (``--brickguard`` picks another one, e.g.
an older checkout's ``.venv/bin/brickguard``) once per program (each file is a program of its own,
with its own ``main``, handlers and priorities; ``--batch``: once per ``[target] profile`` the
labels use, all its files as one program, as earlier versions of this script did), with a
generated ``brickguard.toml`` that adds the corpus' ``include/`` folder, ``--format json`` and
``--select BG0,BG1``.

Matching rule (file + object name):

* A finding's object names are the backticked names in its message (brickguard writes
  `` `rx_head` ``); ``->`` is read as ``.``, spaces, leading ``&``/``*`` and parentheses are
  dropped.
* A name matches a label spelling (its ``var`` or one of its ``aliases``) when it is equal, equal
  once the array indices of both are dropped (``slot_state[2]`` and ``slot_state``), or a field
  of it (a finding on ``gps.lat_e7`` matches the label ``gps``). A finding that names only a whole
  struct does not match a label on one of its fields: that is the field-blind report the rules
  should not make.
* A finding with no backticked name matches a race whose ``lines`` hold the finding's line.
* Labels are tried in the order race, acceptable, clean. A finding matching a race is a true
  finding and detects that race; one matching an acceptable object is counted neither way; any
  other BG1xx finding (on a clean object or on nothing labelled) is a false alarm.
* Recall = races detected / races labelled; precision = true findings / (true + false findings).
  A file brickguard could not parse (a BG000 finding) is reported as not run and its races count
  as missed.

``--check`` exits 1 when recall is below ``--min-recall`` (a percentage) or a file was not run.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
CORPUS = HERE / "heldout_races"
CORPORA = (
    CORPUS,
    HERE / "heldout_races_v2",
    HERE / "heldout_races_v3",
    HERE / "heldout_races_v4",
    HERE / "heldout_races_v5",
    HERE / "heldout_races_v6",
    HERE / "heldout_races_v7",
)
NAME = re.compile(r"`([^`]+)`")
INDEX = re.compile(r"\[[^\]]*\]")


def norm(name: str) -> str:
    name = name.replace("->", ".").replace(" ", "").replace("(", "").replace(")", "")
    return name.lstrip("&*")


def name_matches(found: str, spelling: str) -> bool:
    f, s = norm(found), norm(spelling)
    if f == s or f.startswith(s + "."):
        return True
    f, s = INDEX.sub("", f), INDEX.sub("", s)
    return f == s or f.startswith(s + ".")


@dataclass
class Label:
    file: str
    group: str  # race, acceptable, clean
    var: str
    spellings: list[str]
    lines: list[int]
    category: str
    entry: dict
    findings: list[dict] = field(default_factory=list)

    def matches(self, finding: dict) -> bool:
        names = NAME.findall(finding.get("message", ""))
        if names:
            return any(name_matches(n, s) for n in names for s in self.spellings)
        return self.group == "race" and finding.get("line") in self.lines


def load_labels(corpus: Path = CORPUS) -> list[dict]:
    return tomllib.loads((corpus / "labels.toml").read_text())["file"]


def labels_of(entry: dict) -> list[Label]:
    out = []
    for group in ("race", "acceptable", "clean"):
        for item in entry.get(group, []):
            out.append(
                Label(
                    file=entry["name"],
                    group=group,
                    var=item["var"],
                    spellings=[item["var"], *item.get("aliases", [])],
                    lines=list(item.get("lines", [])),
                    category=entry["category"],
                    entry=item,
                )
            )
    return out


def config_text(profile: str, corpus: Path = CORPUS) -> str:
    include = json.dumps(str(corpus / "include"))
    return (
        "[target]\n"
        'triple = "thumbv7em-none-eabi"\n'
        "word_bits = 32\n"
        f'profile = "{profile}"\n'
        "[build]\n"
        f"include = [{include}]\n"
    )


def run_brickguard(
    exe: str, files: list[Path], profile: str, tmp: Path, corpus: Path = CORPUS
) -> list[dict]:
    """One `brickguard check` over `files`; its findings, or SystemExit with a one-line reason."""
    cfg = tmp / f"brickguard-{profile}.toml"
    cfg.write_text(config_text(profile, corpus))
    cmd = [
        exe,
        "check",
        *map(str, files),
        "--config",
        str(cfg),
        "--format",
        "json",
        "--select",
        "BG0,BG1",
        "--fail-on",
        "never",
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=corpus, check=False)
    try:
        report = json.loads(proc.stdout)
    except json.JSONDecodeError:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["no output"]
        raise SystemExit(
            f"error: `{' '.join(cmd[:2])}` gave no JSON report (exit {proc.returncode}): {tail[0]}"
        ) from None
    return report["findings"]


def describe_brickguard(exe: str) -> str:
    version = subprocess.run([exe, "--version"], capture_output=True, text=True, check=False)
    text = (version.stdout or version.stderr).strip() or "version unknown"
    python = Path(exe).resolve().parent / "python"
    if not python.exists():
        return f"{text} ({exe})"
    where = subprocess.run(
        [str(python), "-c", "import brickguard; print(brickguard.__file__)"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    commit = ""
    if where:
        folder = Path(where).parent
        rev = subprocess.run(
            ["git", "-C", str(folder), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=False,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(folder), "status", "--porcelain", "--", "."],
            capture_output=True,
            text=True,
            check=False,
        ).stdout.strip()
        if rev:
            commit = f", commit {rev}{' + local changes' if dirty else ''}"
    return f"{text} ({exe}{commit})"


def score(entries: list[dict], findings_by_file: dict[str, list[dict]]) -> dict:
    races: list[Label] = []
    false_alarms: list[tuple[str, dict, Label | None]] = []
    not_run: list[str] = []
    cat = defaultdict(lambda: {"races": 0, "found": 0, "true": 0, "false": 0})
    for entry in entries:
        name, category = entry["name"], entry["category"]
        labels = labels_of(entry)
        file_races = [lb for lb in labels if lb.group == "race"]
        races += file_races
        cat[category]["races"] += len(file_races)
        found = findings_by_file.get(name, [])
        if any(f["rule"] == "BG000" for f in found):
            not_run.append(name)
            continue
        for finding in found:
            if not finding["rule"].startswith("BG1"):
                continue
            hit = next((lb for lb in labels if lb.matches(finding)), None)
            if hit is not None and hit.group == "race":
                hit.findings.append(finding)
                cat[category]["true"] += 1
            elif hit is None or hit.group == "clean":
                false_alarms.append((name, finding, hit))
                cat[category]["false"] += 1
        cat[category]["found"] += sum(1 for lb in file_races if lb.findings)
    return {"races": races, "false_alarms": false_alarms, "not_run": not_run, "by_category": cat}


def pct(num: int, den: int) -> str:
    return f"{100.0 * num / den:5.1f}%" if den else "   n/a"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--brickguard",
        default=None,
        help="brickguard executable (default: the one on PATH or beside this Python)",
    )
    ap.add_argument(
        "--corpus",
        type=Path,
        default=CORPUS,
        help="folder holding the programs, labels.toml and include/ (default: heldout_races)",
    )
    ap.add_argument("--check", action="store_true", help="exit 1 below --min-recall")
    ap.add_argument("--min-recall", type=float, default=90.0, help="percent (default 90)")
    ap.add_argument("--batch", action="store_true",
                    help="check all programs of a profile in one run, as one program (their "
                         "`main`s and handlers merged: the old way); default: one run each")
    args = ap.parse_args(argv)

    exe = (
        args.brickguard
        or shutil.which("brickguard")
        or str(Path(sys.executable).parent / "brickguard")
    )
    if not Path(exe).exists() and shutil.which(exe) is None:
        print(f"error: no brickguard executable at {exe}; pass --brickguard PATH", file=sys.stderr)
        return 2
    corpus = args.corpus.resolve()
    if not (corpus / "labels.toml").is_file():
        print(f"error: no labels.toml in {corpus}; pass --corpus DIR", file=sys.stderr)
        return 2
    try:
        entries = load_labels(corpus)
    except (tomllib.TOMLDecodeError, KeyError) as exc:
        print(f"error: {corpus / 'labels.toml'} is not a label file: {exc}", file=sys.stderr)
        return 2
    missing = [e["name"] for e in entries if not (corpus / e["name"]).is_file()]
    if missing:
        print(
            f"error: labels.toml names files that do not exist: {', '.join(missing)}",
            file=sys.stderr,
        )
        return 2

    print(f"brickguard: {describe_brickguard(exe)}")
    started = time.perf_counter()
    findings_by_file: dict[str, list[dict]] = defaultdict(list)
    by_profile: dict[str, list[Path]] = defaultdict(list)
    for entry in entries:
        by_profile[entry.get("profile", "cmsis")].append(corpus / entry["name"])
    with tempfile.TemporaryDirectory(prefix="bg-heldout-") as tmp:
        for profile, files in sorted(by_profile.items()):
            # Each file is a program of its own (its own main, handlers and priorities): checked
            # together they would be one program with one `main` and colliding handlers.
            for group in ([files] if args.batch else [[f] for f in files]):
                for finding in run_brickguard(exe, group, profile, Path(tmp), corpus):
                    findings_by_file[Path(finding["file"]).name].append(finding)
    elapsed = time.perf_counter() - started

    result = score(entries, findings_by_file)
    races, false_alarms, cat = result["races"], result["false_alarms"], result["by_category"]
    n_clean = sum(1 for e in entries if not e.get("race"))
    print(
        f"corpus {corpus.name}: {len(entries)} programs "
        f"({len(entries) - n_clean} racy, {n_clean} clean), "
        f"{len(races)} labelled races; brickguard ran in {elapsed:.1f} s"
    )
    print()
    print(
        f"{'category':<16} {'races':>5} {'found':>5} {'recall':>7} "
        f"{'true':>5} {'false':>5} {'precision':>9}"
    )
    for name in sorted(cat):
        c = cat[name]
        print(
            f"{name:<16} {c['races']:>5} {c['found']:>5} {pct(c['found'], c['races']):>7} "
            f"{c['true']:>5} {c['false']:>5} {pct(c['true'], c['true'] + c['false']):>9}"
        )
    found = sum(c["found"] for c in cat.values())
    true = sum(c["true"] for c in cat.values())
    false = sum(c["false"] for c in cat.values())
    print(
        f"{'total':<16} {len(races):>5} {found:>5} {pct(found, len(races)):>7} "
        f"{true:>5} {false:>5} {pct(true, true + false):>9}"
    )

    print("\nmissed races:")
    for lb in races:
        if not lb.findings:
            print(
                f"  {lb.file}: `{lb.var}` [{lb.entry['kind']}] lines {lb.lines}: "
                f"{lb.entry['reason']}"
            )
    print("\nfalse alarms:")
    for name, finding, hit in false_alarms:
        why = (
            f" (labelled clean: {hit.entry['reason']})"
            if hit is not None
            else " (names nothing labelled a race)"
        )
        print(f"  {name}:{finding['line']} {finding['rule']} {finding['message'][:140]}{why}")
    if result["not_run"]:
        print(f"\nnot run (BG000, does not parse): {', '.join(result['not_run'])}")

    recall = 100.0 * found / len(races) if races else 0.0
    print(
        f"\nrecall {recall:.1f}% ({found}/{len(races)}), "
        f"precision {pct(true, true + false).strip()} "
        f"({true} true, {false} false findings)"
    )
    if args.check and (recall < args.min_recall or result["not_run"]):
        print(
            f"FAIL: recall {recall:.1f}% < {args.min_recall:.1f}% or files not run", file=sys.stderr
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
