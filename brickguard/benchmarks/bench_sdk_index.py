"""Benchmark: index 100 generated headers holding 20,000 macros (target < 10 s), then load the
cached index (target < 1 s). Prints both times; generates everything in a temporary folder.

    python brickguard/benchmarks/bench_sdk_index.py [--headers 100] [--macros 20000]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from brickguard.sdk.cache import LoadInfo, load_index
from brickguard.sdk.spec import resolve_sdk


def generate(folder: Path, headers: int, macros: int) -> None:
    per = macros // headers
    for h in range(headers):
        lines = [f"#ifndef PERIPH{h}_H", f"#define PERIPH{h}_H", "#include <stdint.h>"]
        lines.append(f"typedef struct {{ volatile uint32_t CR; volatile uint32_t SR; "
                     f"volatile uint32_t DR{h}; }} PERIPH{h}_TypeDef;")
        lines.append(f"typedef enum {{ P{h}_MODE_A, P{h}_MODE_B, P{h}_MODE_C }} P{h}_Mode;")
        lines.append(f"int P{h}_Init(PERIPH{h}_TypeDef *p, P{h}_Mode mode, uint32_t flags);")
        lines.append(f"void P{h}_Write(PERIPH{h}_TypeDef *p, const uint8_t *data, uint16_t n);")
        for m in range(per - 2):
            lines.append(f"#define P{h}_REG_BIT_{m} (1UL << {m % 32})")
        lines.append(f"#define P{h}_SET(P, V) ((P)->CR |= (V))")
        lines.append(f"#define P{h}_GET(P) ((P)->SR)")
        lines.append("#endif")
        (folder / f"periph{h}.h").write_text("\n".join(lines) + "\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--headers", type=int, default=100)
    ap.add_argument("--macros", type=int, default=20000)
    opts = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        inc, cache = Path(tmp) / "include", Path(tmp) / "cache"
        inc.mkdir()
        generate(inc, opts.headers, opts.macros)
        spec = resolve_sdk(inc, "bench", "1")
        info: list[LoadInfo] = []
        t0 = time.perf_counter()
        index = load_index(spec, cache, info=info)
        t1 = time.perf_counter()
        again = load_index(spec, cache, info=info)
        t2 = time.perf_counter()
        assert not info[0].hit and info[1].hit and again.counts() == index.counts()
        counts = index.counts()
        print(f"headers {counts['headers']}, macros {counts['macros']}, "
              f"functions {counts['functions']}, enum constants {counts['enum_constants']}")
        print(f"index build: {t1 - t0:.2f} s (target < 10 s)")
        print(f"cached load: {t2 - t1:.3f} s (target < 1 s)")


if __name__ == "__main__":
    main()
