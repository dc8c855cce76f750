"""What the Splitwise prefill timings themselves say: repetition, spread, monotonicity, and how
the held-out TP8 prefill error (``calibration_report.py``) splits over the measured shapes.

Read from ``../shared/fidelity/splitwise_llama2_70b_a100.csv``; nothing is fitted here but the
held-out fit the report runs (``calibrate --fit-phases`` on TP2+TP4). Printed per tp:

1. Per shape (prompt x batch): the distinct measurements (rows identical in every column are one
   measurement listed in two sweeps and are counted once), mean, coefficient of variation,
   range, time per prompt and per 1,000 tokens; the repeats of the shapes spread over 4%.
2. The noise yardstick: the 512x1 prefill was re-measured in 7 sweeps (its token_size varies,
   which a prefill does not see): the spread of those 7 sweep means, next to the repeats' spread.
3. Batched against one prompt of the same tokens (512 x B against (512 B) x 1: the same linear
   layer FLOPs and all-reduce bytes, B times fewer attention pairs in the batched one): the ratio
   and how many standard errors it is from 1.
4. Time per prompt along the batch: every decrease, with its Welch t statistic (per-prompt means
   of neighbouring batch sizes over their standard errors).
5. Across tp: each shape's time at tp 8 over tp 4 and at tp 4 over tp 2; then whether the time
   is affine in 1/tp, A + B/tp, as every bandwidth and compute term of a roofline is (the
   sharded work goes as 1/tp, ring all-reduce bytes as (tp-1)/tp = 1 - 1/tp, replicated and
   host work is constant): then (T2 - T4) / (T4 - T8) is exactly 2, and a latency that grows
   with tp (log2 tp or tp - 1 steps) only raises it above 2.
6. The held-out fit's signed error per shape at tp 4 (in-sample) and tp 8 (held out), and each
   shape's share of the tp 8 prefill MAPE in points (rows as the report counts them), then the
   MAPE with the duplicated rows counted once.

Usage: python benchmarks/splitwise_data.py
"""

from __future__ import annotations

import csv
import math
import statistics as st
import sys
from collections import defaultdict

from tokenpilot.calibrate.phases import fit_phases, phase_ms, prefill_floor_ms, read_phases
from tokenpilot.costmodel import CostModel
from tokenpilot.fidelity import HELD_OUT_FIT, HELD_OUT_TP, SPLITWISE, fidelity_dir
from tokenpilot.hardware import get_gpu
from tokenpilot.models import get_model

GPU, MODEL = "a100-80gb", "llama-2-70b"
Shape = tuple[int, int]  # (prompt tokens, batch)
SPREAD = 0.04  # a shape whose repeats' cv exceeds this has its values listed


def measurements(path) -> tuple[dict[int, dict[Shape, list[float]]], dict[int, dict[int, list]],
                                 dict[int, int]]:
    """Per tp: shape -> distinct prompt_time values; the 512x1 prefills per token_size sweep;
    how many rows repeat an earlier row exactly."""
    seen: set[tuple[str, ...]] = set()
    shapes: dict[int, dict[Shape, list[float]]] = defaultdict(lambda: defaultdict(list))
    sweeps: dict[int, dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    dups: dict[int, int] = defaultdict(int)
    with path.open(newline="") as f:
        for r in csv.DictReader(f):
            tp, p, b = int(r["tensor_parallel"]), int(r["prompt_size"]), int(r["batch_size"])
            key = tuple(r.values())
            if key in seen:
                dups[tp] += 1
                continue
            seen.add(key)
            shapes[tp][(p, b)].append(float(r["prompt_time"]))
            if (p, b) == (512, 1):
                sweeps[tp][int(r["token_size"])].append(float(r["prompt_time"]))
    return shapes, sweeps, dups


def sem(v: list[float]) -> float:
    return st.stdev(v) / math.sqrt(len(v))


def welch_t(a: list[float], b: list[float]) -> float:
    return (st.mean(a) - st.mean(b)) / math.hypot(sem(a), sem(b))


def per_tp(tp: int, shapes: dict[Shape, list[float]], sweeps: dict[int, list[float]]) -> None:
    print(f"\n== tp{tp}")
    print(f"  {'shape':>9} {'n':>3} {'mean ms':>8} {'cv':>6} {'min':>8} {'max':>8} "
          f"{'ms/prompt':>9} {'ms/1k tok':>9}")
    for (p, b), v in sorted(shapes.items()):
        m = st.mean(v)
        print(f"  {p:>5}x{b:<3} {len(v):>3} {m:8.1f} {100 * st.stdev(v) / m:5.1f}% {min(v):8.1f} "
              f"{max(v):8.1f} {m / b:9.1f} {1e3 * m / (p * b):9.1f}")
    spread = [f"{p}x{b} " + "/".join(f"{x:.0f}" for x in sorted(v))
              for (p, b), v in sorted(shapes.items()) if st.stdev(v) > SPREAD * st.mean(v)]
    print(f"  repeats spread over {100 * SPREAD:.0f}% (cv), sorted ms: " + ("; ".join(spread)
                                                                         or "none"))
    means = [st.mean(v) for v in sweeps.values()]
    within = st.mean([st.stdev(v) / st.mean(v) for v in sweeps.values()])
    print(f"  noise: 512x1 in {len(means)} sweeps: sweep means {min(means):.1f}-{max(means):.1f} ms"
          f" (sd {100 * st.stdev(means) / st.mean(means):.1f}% of the mean); repeats within a "
          f"sweep: cv {100 * within:.1f}% on average")
    out = []
    for b in (2, 4, 8, 16):
        batched, single = shapes.get((512, b)), shapes.get((512 * b, 1))
        if batched and single:
            r = st.mean(batched) / st.mean(single)
            se = r * math.hypot(sem(batched) / st.mean(batched), sem(single) / st.mean(single))
            out.append(f"512x{b}/{512 * b}x1 {r:.2f} ({(r - 1) / se:+.0f} se)")
    print("  batched / one prompt of the same tokens: " + ", ".join(out))
    # The same 2048 -> 4096 -> 8192 tokens reached by more prompts or by longer ones: what each
    # added 512 tokens costs (the linear layers' FLOPs and all-reduce bytes are the same).
    mean = {s: st.mean(v) for s, v in shapes.items()}
    steps = [(512 * a, 512 * c, (mean[(512, c)] - mean[(512, a)]) / (c - a),
              (mean[(512 * c, 1)] - mean[(512 * a, 1)]) / (c - a))
             for a, c in ((2, 4), (4, 8), (8, 16))
             if {(512, a), (512, c), (512 * a, 1), (512 * c, 1)} <= mean.keys()]
    print("  ms per added 512 tokens, by more prompts / by a longer prompt: " + ", ".join(
        f"{t0}->{t1} tokens {by_batch:.0f} / {by_length:.0f}"
        for t0, t1, by_batch, by_length in steps))
    batches = sorted(b for p, b in shapes if p == 512)
    drops = []
    for b0, b1 in zip(batches, batches[1:], strict=False):
        a = [x / b0 for x in shapes[(512, b0)]]
        c = [x / b1 for x in shapes[(512, b1)]]
        if st.mean(c) < st.mean(a):
            drops.append(f"b{b0} {st.mean(a):.1f} -> b{b1} {st.mean(c):.1f} ms "
                         f"(t {welch_t(a, c):.1f}; b{b1}'s repeats {min(c):.1f}-{max(c):.1f})")
    print("  time per prompt falls with the batch: " + ("; ".join(drops) or "never"))


def across_tp(shapes: dict[int, dict[Shape, list[float]]]) -> None:
    print("\n== across tp: time at the higher tp over the lower, per shape")
    common = sorted(set(shapes[2]) & set(shapes[4]) & set(shapes[8]))
    for hi, lo in ((8, 4), (4, 2)):
        ratios = {s: st.mean(shapes[hi][s]) / st.mean(shapes[lo][s]) for s in common}
        if lo == 2:  # tp2's 512x64 is faster than the roofline allows: not a measurement of it
            ratios.pop((512, 64), None)
        vals = list(ratios.values())
        print(f"  tp{hi}/tp{lo}: {min(vals):.2f}-{max(vals):.2f} (mean {st.mean(vals):.2f}, sd "
              f"{st.stdev(vals):.2f}); " + " ".join(f"{p}x{b} {r:.2f}"
                                                   for (p, b), r in ratios.items()))


def affine_test(shapes: dict[int, dict[Shape, list[float]]]) -> None:
    """(T2 - T4) / (T4 - T8) per shape: 2 when the time is affine in 1/tp (module doc, 5)."""
    print("\n== is the time affine in 1/tp? (T2 - T4) / (T4 - T8), 2.0 if so (+- one standard "
          "error), and tp4 against the line through tp2 and tp8")
    common = sorted((set(shapes[2]) & set(shapes[4]) & set(shapes[8])) - {(512, 64)})
    for p, b in common:
        t = {tp: (st.mean(shapes[tp][(p, b)]), sem(shapes[tp][(p, b)])) for tp in (2, 4, 8)}
        d1, d2 = t[2][0] - t[4][0], t[4][0] - t[8][0]
        se = abs(d1 / d2) * math.hypot(math.hypot(t[2][1], t[4][1]) / d1,
                                        math.hypot(t[4][1], t[8][1]) / d2)
        line = t[2][0] - (t[2][0] - t[8][0]) * 2 / 3  # 1/4 is 2/3 of the way from 1/2 to 1/8
        print(f"  {p:>5}x{b:<3} {p * b:>6} tokens  ratio {d1 / d2:5.2f} +- {se:4.2f}   tp4 "
              f"{100 * (t[4][0] / line - 1):+5.1f}% off the line")


def held_out(path, dups: dict[int, int]) -> None:
    fit = fit_phases(read_phases(path, HELD_OUT_FIT), GPU, MODEL)
    cal = fit.calibration
    print(f"\n== the held-out fit (tp {'+'.join(map(str, HELD_OUT_FIT))}): flops_eff "
          f"{cal.flops_eff:.2f} attn_eff {cal.attn_eff:.2f} link_eff {cal.link_eff:.2f} "
          f"allreduce_latency {cal.allreduce_latency_s * 1e6:.0f} us step "
          f"{cal.step_overhead_s * 1e3:.2f} ms")
    cms = {tp: CostModel(get_model(MODEL), get_gpu(GPU), tp, calibration=cal)
           for tp in (*HELD_OUT_FIT, HELD_OUT_TP)}
    rows = read_phases(path, (4, HELD_OUT_TP))
    err: dict[tuple[int, Shape], list[float]] = defaultdict(list)
    distinct: dict[tuple[int, Shape], set] = defaultdict(set)
    for r in rows:
        if r.prompt_ms < prefill_floor_ms(MODEL, GPU, r.tp, r.prompt, r.batch):
            continue
        e = phase_ms(cms[r.tp], r.prompt, r.batch, r.tokens)[0] / r.prompt_ms - 1
        err[(r.tp, (r.prompt, r.batch))].append(e)
        distinct[(r.tp, (r.prompt, r.batch))].add((r.tokens, r.prompt_ms, r.token_ms))
    n8 = sum(len(v) for (tp, _), v in err.items() if tp == HELD_OUT_TP)
    print(f"  {'shape':>9} {'tp4 err':>8} {'tp8 err':>8} {'tp8 rows':>8} {'MAPE pts':>8}")
    for s in sorted({s for _, s in err}):
        e4, e8 = err.get((4, s), []), err.get((HELD_OUT_TP, s), [])
        pts = 100 * sum(abs(e) for e in e8) / n8
        print(f"  {s[0]:>5}x{s[1]:<3} {100 * st.mean(e4):+7.1f}% {100 * st.mean(e8):+7.1f}% "
              f"{len(e8):>8} {pts:8.1f}")
    mape = 100 * sum(abs(e) for (tp, _), v in err.items() if tp == HELD_OUT_TP for e in v) / n8
    print(f"  tp{HELD_OUT_TP} prefill MAPE {mape:.1f}% over {n8} rows (the report's figure); "
          f"{dups[HELD_OUT_TP]} of them repeat an earlier row in every column")
    # Once per distinct measurement: a shape's rows share their error when they share the time.
    once = [abs(phase_ms(cms[tp], s[0], s[1])[0] / ms - 1)
            for (tp, s), meas in distinct.items() if tp == HELD_OUT_TP for _, ms, _ in meas]
    print(f"  counted once per distinct measurement: {100 * sum(once) / len(once):.1f}% over "
          f"{len(once)} rows (a diagnosis, not the target's figure)")


def main() -> None:
    folder = fidelity_dir()
    if folder is None:
        sys.exit("no shared/fidelity folder beside the repository")
    path = folder / SPLITWISE
    shapes, sweeps, dups = measurements(path)
    print(f"{path}: prefill (prompt_time) per shape; {sum(dups.values())} rows repeat an earlier "
          "row in every column (one measurement listed in two sweeps), counted once here")
    for tp in sorted(shapes):
        per_tp(tp, shapes[tp], sweeps[tp])
    across_tp(shapes)
    affine_test(shapes)
    held_out(path, dups)


if __name__ == "__main__":
    main()
