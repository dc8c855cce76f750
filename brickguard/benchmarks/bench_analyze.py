"""Benchmark: analyze() on a generated 100-file, 50,000-line firmware project (target: < 60 s).

Run from the repository root:

    .venv/bin/python brickguard/benchmarks/bench_analyze.py [--files 100] [--lines 50000] [--jobs 2]

Each generated file has shared buffers and counters, an interrupt handler, task functions with
loops, branches, switches and critical sections, and calls into the other files, so the front end,
the call graph and every interrupt rule do real work. Prints files, lines, findings and seconds.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from brickguard.analyze import analyze
from brickguard.config import Config

HEADER = """#ifndef BENCH_H
#define BENCH_H
#include <stdint.h>
#include <stddef.h>
static inline void __disable_irq(void) { __asm volatile("cpsid i" ::: "memory"); }
static inline void __enable_irq(void) { __asm volatile("cpsie i" ::: "memory"); }
void *memcpy(void *dst, const void *src, size_t n);
%s
#endif
"""

UNIT_HEAD = """#include "bench.h"

volatile uint8_t buf_{i}[64];
volatile uint32_t head_{i};
uint32_t count_{i};
volatile uint64_t ticks_{i};
static const uint16_t table_{i}[8] = {{1, 2, 3, 4, 5, 6, 7, 8}};
struct rec_{i} {{ uint32_t a; uint32_t b; uint8_t tag; }};
struct rec_{i} last_{i};

void TIM{i}_IRQHandler(void)
{{
    buf_{i}[head_{i} & 63u] = (uint8_t)table_{i}[head_{i} & 7u];
    head_{i}++;
    count_{i} += 2u;
    ticks_{i}++;
    last_{i}.a = head_{i};
}}
"""

FUNC = """
uint32_t work_{i}_{j}(uint32_t n)
{{
    uint32_t acc = 0;
    struct rec_{i} r;
    for (uint32_t k = 0; k < n; k++) {{
        if ((k & 1u) == 0u) {{
            acc += buf_{i}[k & 63u];
        }} else {{
            acc ^= table_{i}[k & 7u];
        }}
        switch (k & 3u) {{
        case 0:
            acc += (uint32_t)k * 3u;
            break;
        case 1:
            __disable_irq();
            acc += head_{i};
            count_{i}++;
            __enable_irq();
            break;
        default:
            acc -= 1u;
            break;
        }}
    }}
    while (acc > 1000u) {{
        acc = acc / 2u;
    }}
    r = last_{i};
    acc += r.a + (uint32_t)ticks_{i};
    return acc + {callee}(acc & 15u);
}}
"""


def generate(root: Path, files: int, lines: int) -> int:
    per_file = lines // files
    func_lines = FUNC.count("\n")
    head_lines = UNIT_HEAD.count("\n")
    funcs = max(1, (per_file - head_lines - 12) // func_lines)
    protos = []
    for i in range(files):
        protos += [f"uint32_t work_{i}_{j}(uint32_t n);" for j in range(funcs)]
    protos.append("uint32_t leaf(uint32_t n);")
    (root / "bench.h").write_text(HEADER % "\n".join(protos))
    total = 0
    for i in range(files):
        parts = [UNIT_HEAD.format(i=i)]
        for j in range(funcs):
            nxt = (i + 1) % files
            callee = f"work_{nxt}_{j + 1}" if j + 1 < funcs else "leaf"
            parts.append(FUNC.format(i=i, j=j, callee=callee))
        if i == 0:
            parts.append("\nuint32_t leaf(uint32_t n) { return n + 1u; }\n")
            parts.append("\nint main(void)\n{\n    for (;;) {\n        (void)work_0_0(8u);\n"
                         "    }\n}\n")
        text = "".join(parts)
        # Pad with comment lines to the exact size asked for.
        missing = per_file - text.count("\n")
        text += "".join(f"/* padding {k} */\n" for k in range(max(0, missing)))
        (root / f"unit_{i:03d}.c").write_text(text)
        total += text.count("\n")
    return total


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", type=int, default=100)
    ap.add_argument("--lines", type=int, default=50_000)
    ap.add_argument("--jobs", type=int, default=2, help="parser processes (0 = one per CPU)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bg-bench-") as tmp:
        root = Path(tmp)
        lines = generate(root, args.files, args.lines)
        cfg = Config(root=root, include=[root], jobs=args.jobs)
        start = time.perf_counter()
        result = analyze([root], cfg)
        seconds = time.perf_counter() - start
    by_rule: dict[str, int] = {}
    for f in result.findings:
        by_rule[f.rule] = by_rule.get(f.rule, 0) + 1
    print(f"files {len(result.files)}  lines {lines}  jobs {args.jobs}  seconds {seconds:.2f}")
    print(f"findings {len(result.findings)}  by rule {dict(sorted(by_rule.items()))}")
    verdict = "ok" if seconds < 60 else "MISSED"
    print(f"lines/second {lines / seconds:,.0f}  target < 60 s: {verdict}")


if __name__ == "__main__":
    main()
