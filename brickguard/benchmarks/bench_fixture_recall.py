"""Benchmark: recall of the interrupt-race rules (BG1xx) on the fixture cases, both ways.

Run from the repository root, with any checkout's brickguard (to compare versions, run another
checkout's interpreter on this checkout's cases):

    .venv/bin/python brickguard/benchmarks/bench_fixture_recall.py [--cases DIR] [--since REV]

Each case under tests/cases/bg1xx is analysed as tests/test_cases.py does; its `expect:` marks
are the labelled races. Prints expected findings, those found (recall) and unexpected ones, for
every case and for the cases added since REV (the new patterns). A case whose brickguard.toml
the running brickguard cannot read is run on the defaults, and said so.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

from brickguard.analyze import analyze
from brickguard.config import Config, load_config
from brickguard.errors import ConfigError

HERE = Path(__file__).resolve().parent
EXPECT = re.compile(r"expect:\s*(BG\d{3}(?:\s*,\s*BG\d{3})*)")


def cases(root: Path) -> list[Path]:
    return [case for group in sorted(root.glob("bg1[0-9][0-9]")) for case in sorted(group.iterdir())
            if case.suffix == ".c" or (case.is_dir() and any(case.glob("*.c")))]


def expected(case: Path) -> set[tuple[str, int, str]]:
    files = [case] if case.is_file() else sorted(case.rglob("*.[ch]"))
    return {(f.name, n, rule) for f in files
            for n, line in enumerate(f.read_text().splitlines(), start=1)
            if (m := EXPECT.search(line)) for rule in re.split(r"\s*,\s*", m.group(1))
            if rule.startswith("BG1")}


def config(case: Path, root: Path) -> Config:
    folder = case if case.is_dir() else case.parent
    cfg = Config(root=folder)
    if (folder / "brickguard.toml").is_file():
        try:
            cfg = load_config(folder / "brickguard.toml")
        except ConfigError as exc:
            print(f"{case.relative_to(root)}: run on the defaults ({exc})", file=sys.stderr)
    cfg.include = [*cfg.include, root / "include"]
    cfg.jobs = 1
    return cfg


def added_since(rev: str, root: Path) -> set[str]:
    out = subprocess.run(["git", "diff", "--name-only", "--diff-filter=A", rev, "--", "."],
                         cwd=root, capture_output=True, text=True, check=True).stdout
    top = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=root, capture_output=True,
                         text=True, check=True).stdout.strip()
    rel = root.resolve().relative_to(top)
    return {"/".join(Path(p).relative_to(rel).parts[:2]) for p in out.split()}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=Path, default=HERE.parent / "tests" / "cases")
    ap.add_argument("--since", default=None, help="also count the cases added since this git rev")
    args = ap.parse_args()
    new = added_since(args.since, args.cases) if args.since else set()
    totals = {"all cases": [0, 0, 0], f"cases added since {args.since}": [0, 0, 0]}
    for case in cases(args.cases):
        want = expected(case)
        got = {(Path(f.location.file).name, f.location.line, f.rule)
               for f in analyze([case], config(case, args.cases)).findings
               if f.rule.startswith("BG1")}
        keys = ["all cases"] + ([f"cases added since {args.since}"]
                                if "/".join(case.relative_to(args.cases).parts[:2]) in new else [])
        for k in keys:
            totals[k][0] += len(want)
            totals[k][1] += len(want & got)
            totals[k][2] += len(got - want)
    for name, (want, found, extra) in totals.items():
        if want:
            print(f"{name}: {found}/{want} expected findings found (recall {found / want:.1%}), "
                  f"{extra} unexpected")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
