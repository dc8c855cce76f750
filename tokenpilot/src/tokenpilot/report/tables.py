"""Plain-text tables for the terminal and the JSON shape of a run (``--format json``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tokenpilot.cluster.metrics import FleetMetrics, by_gpu


def unit(seconds: Sequence[float]) -> tuple[str, Callable[[float], str]]:
    """One unit for a row or column of durations: s from 10 s up, else ms (with a decimal
    below 100 ms); the unit's name and the cell formatter."""
    finite = [abs(x) for x in seconds if x == x]
    top = max(finite, default=0.0)
    if top >= 10:
        return "s", lambda x: "-" if x != x else f"{x:.1f}"
    digits = 1 if top < 0.1 else 0
    return "ms", lambda x: "-" if x != x else f"{x * 1e3:.{digits}f}"


def _column(label: str, values: Sequence[float]) -> tuple[str, list[str]]:
    name, fmt = unit(values)
    return f"{label} {name}", [fmt(v) for v in values]


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """Columns sized to their widest cell; the first column left-aligned, the rest right."""
    cells = [list(map(str, headers))] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[k]) for r in cells) for k in range(len(headers))]
    lines = []
    for j, r in enumerate(cells):
        lines.append("  ".join(c.ljust(w) if k == 0 else c.rjust(w)
                               for k, (c, w) in enumerate(zip(r, widths, strict=True))))
        if j == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def compare_table(metrics: Sequence[FleetMetrics]) -> str:
    """One row per router: the figures that tell routers apart."""
    head, rows, note = compare_rows(metrics)
    return table(head, rows) + (f"\n{note}" if note else "")


def compare_rows(metrics: Sequence[FleetMetrics]) -> tuple[list[str], list[list[str]], str]:
    """``compare_table``'s header, rows (cells as text) and footnote, for text and HTML."""
    latency = [("TTFT p50", lambda m: m.ttft["p50"]), ("TTFT p99", lambda m: m.ttft["p99"]),
               ("TPOT p50", lambda m: m.tpot["p50"]), ("TPOT p99", lambda m: m.tpot["p99"]),
               ("E2E p99", lambda m: m.e2e["p99"])]
    cols = [_column(label, [get(m) for m in metrics]) for label, get in latency]
    rows = []
    for k, m in enumerate(metrics):
        rows.append([
            m.router, f"{m.goodput_rps:.2f}", f"{m.slo_attainment * 100:.1f}%",
            f"{m.throughput_rps:.2f}", *(c[1][k] for c in cols),
            f"{m.kv_hit_rate * 100:.1f}%", m.preempt_recompute + m.preempt_swap,
            f"{m.imbalance_requests:.2f}", f"{m.imbalance_tokens:.2f}", f"{m.fake_balance:+.2f}",
            f"{m.makespan_s:.0f}",
        ])
    head = ["router", "goodput/s", "SLO met", "req/s", *(c[0] for c in cols), "KV hit",
            "preempt", "imb req", "imb tok", "fake bal", "makespan s"]
    slo = ""
    if metrics:
        m = metrics[0]
        slo = (f"goodput: requests/s with TTFT <= {m.slo_ttft_s:g}s and TPOT <= "
               f"{m.slo_tpot_s * 1e3:g}ms; SLO met: the share of all requests (rejected ones "
               "count as misses) that meet both; goodput and req/s over the "
               f"{m.arrival_window_s:.0f}s arrival window (not the makespan); imb = max/mean "
               "per instance (requests; tokens normalised by instance speed); "
               "fake bal = imb tok - imb req")
    return head, [[str(c) for c in r] for r in rows], slo


def simulate_text(d: dict) -> str:
    """The human rendering of one run's JSON (``metrics_json``)."""
    m = d["metrics"]
    out = [f"fleet {d['fleet']['name']}: {d['fleet_desc']}",
           f"workload {d['workload']}: {m['requests']} requests at {d['rate_rps']:.2f} req/s "
           f"(fleet capacity ~{d['capacity_rps']:.1f} req/s, load {d['load']:.2f})",
           f"router {m['router']}  simulated {m['makespan_s']:.0f}s in {m['wall_s']:.1f}s", ""]
    rows = []
    for k in ("ttft", "tpot", "itl", "e2e"):
        values = [m[k][q] for q in ("p50", "p90", "p99", "mean")]
        name, fmt = unit(values)
        rows.append([f"{k} ({name})", *map(fmt, values)])
    out += [table(["latency", "p50", "p90", "p99", "mean"], rows), ""]
    out.append(f"served {m['served']}/{m['requests']}  throughput {m['throughput_rps']:.2f} req/s, "
               f"{m['output_tokens_per_s']:.0f} output tok/s  goodput {m['goodput_rps']:.2f} req/s "
               f"({m['slo_attainment'] * 100:.1f}% within TTFT {m['slo_ttft_s']:g}s, "
               f"TPOT {m['slo_tpot_s'] * 1e3:g}ms)")
    out.append(f"  rates over the {m['arrival_window_s']:.0f}s arrival window; over the "
               f"{m['makespan_s']:.0f}s makespan (drain included): throughput "
               f"{m['throughput_makespan_rps']:.2f}, goodput {m['goodput_makespan_rps']:.2f} req/s")
    out.append(f"KV hit rate {m['kv_hit_rate'] * 100:.1f}%  preemptions {m['preempt_recompute']} "
               f"recompute, {m['preempt_swap']} swap ({m['swap_out_tokens']} tokens swapped out)")
    out.append(f"imbalance: requests {m['imbalance_requests']:.2f}, tokens "
               f"{m['imbalance_tokens']:.2f} (max/mean; CV {m['cv_requests']:.2f} / "
               f"{m['cv_tokens']:.2f}); fake-balance index {m['fake_balance']:+.2f}")
    if m["admission_rejected"]:
        out.append("admission rejected: " + ", ".join(
            f"{k} {v}" for k, v in sorted(m["admission_rejected"].items())))
    out.append("")
    p99_head, p99 = _column("TTFT p99", [i["ttft_p99"] for i in m["instances"]])
    rows = [[i["name"], i["requests"], f"{i['token_load_s']:.0f}",
             f"{i['utilisation'] * 100:.0f}%", f"{i['compute_bound_frac'] * 100:.0f}%",
             f"{i['memory_bound_frac'] * 100:.0f}%", p99[k],
             f"{i['kv_hit_rate'] * 100:.0f}%", i["preemptions"]]
            for k, i in enumerate(m["instances"])]
    out.append(table(["instance", "requests", "load s", "util", "compute", "bandwidth",
                      p99_head, "KV hit", "preempt"], rows))
    out.append(INSTANCE_NOTE)
    return "\n".join(out)


INSTANCE_NOTE = (
    "load: seconds of full-speed work routed to the instance (its tokens over its speed for "
    "the workload's mean request); util: busy time over the makespan; compute / bandwidth: the "
    "shares of busy time spent in compute-bound and memory-bandwidth-bound iterations")


def metrics_json(m: FleetMetrics, **context: Any) -> dict:
    """The JSON document of one run: the context (fleet, workload, rate) plus the metrics."""
    return {**context, "metrics": m.to_dict(), "by_gpu": by_gpu(m)}
