"""Benchmark: every rule plus MISRA on a generated 100-file project, against cppcheck's MISRA
addon alone on the same files.

Run from the repository root:

    .venv/bin/python brickguard/benchmarks/bench_all_rules.py [--files 100] [--lines 50000]

The project comes from bench_analyze.py's generator (interrupt handlers, tasks, critical sections,
cross-file calls). brickguard runs with a data cache on (so BG501/BG502 work too) and MISRA on;
cppcheck starts alongside the libclang parse, so the first figure is not the sum of the two.
Prints both wall times, the findings per rule family, and the cppcheck command line.
"""

from __future__ import annotations

import argparse
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_analyze import generate  # noqa: E402

from brickguard.analyze import analyze, collect_sources  # noqa: E402
from brickguard.config import Config  # noqa: E402
from brickguard.misra import cppcheck_command  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", type=int, default=100)
    ap.add_argument("--lines", type=int, default=50_000)
    ap.add_argument("--jobs", type=int, default=2, help="processes for libclang and cppcheck")
    args = ap.parse_args()
    if shutil.which("cppcheck") is None:
        sys.exit("cppcheck is not installed: the MISRA half of this benchmark needs it")
    with tempfile.TemporaryDirectory(prefix="bg-bench-all-") as tmp:
        root = Path(tmp)
        lines = generate(root, args.files, args.lines)
        cfg = Config(root=root, include=[root], jobs=args.jobs, misra=True, dcache=True)
        start = time.perf_counter()
        result = analyze([root], cfg)
        ours = time.perf_counter() - start

        files = [str(f) for f in collect_sources([root])]
        with tempfile.TemporaryDirectory(prefix="bg-bench-cppcheck-") as build:
            cmd = cppcheck_command(files, cfg, Path(build))
            start = time.perf_counter()
            subprocess.run(cmd, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            alone = time.perf_counter() - start
    families: dict[str, int] = {}
    for f in result.findings:
        key = "MISRA" if f.rule.startswith("MISRA") else f.rule
        families[key] = families.get(key, 0) + 1
    shown = [*cmd[: cmd.index(files[0])], f"<{len(files)} files>"]
    print(f"files {len(files)}  lines {lines}  jobs {args.jobs}")
    print(f"brickguard, all rules + MISRA:  {ours:.2f} s  ({len(result.rules)} rules described)")
    print(f"cppcheck MISRA addon alone:     {alone:.2f} s")
    print(f"overhead of brickguard's own rules: {ours - alone:+.2f} s "
          f"({ours / alone:.2f}x the MISRA run alone)")
    print(f"findings {len(result.findings)}  by rule {dict(sorted(families.items()))}")
    print("cppcheck command:", shlex.join(shown))
    print("brickguard command: brickguard check --misra <folder>  ([dma] dcache = true)")


if __name__ == "__main__":
    main()
