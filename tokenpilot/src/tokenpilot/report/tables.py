"""Plain-text tables for the terminal and the JSON shape of a run (``--format json``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tokenpilot.cluster.metrics import FleetMetrics, by_gpu


def _ms(x: float) -> str:
    return "-" if x != x else (f"{x * 1e3:.0f}ms" if x < 10 else f"{x:.1f}s")


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
    rows = []
    for m in metrics:
        rows.append([
            m.router, f"{m.goodput_rps:.2f}", f"{m.slo_attainment * 100:.1f}%",
            f"{m.throughput_rps:.2f}", _ms(m.ttft["p50"]), _ms(m.ttft["p99"]),
            _ms(m.tpot["p50"]), _ms(m.tpot["p99"]), _ms(m.e2e["p99"]),
            f"{m.kv_hit_rate * 100:.1f}%", m.preempt_recompute + m.preempt_swap,
            f"{m.imbalance_requests:.2f}", f"{m.imbalance_tokens:.2f}", f"{m.fake_balance:+.2f}",
            f"{m.makespan_s:.0f}s",
        ])
    head = ["router", "goodput/s", "SLO met", "req/s", "TTFT p50", "TTFT p99", "TPOT p50",
            "TPOT p99", "E2E p99", "KV hit", "preempt", "imb req", "imb tok", "fake bal",
            "makespan"]
    slo = ""
    if metrics:
        m = metrics[0]
        slo = (f"\ngoodput: requests/s with TTFT <= {m.slo_ttft_s:g}s and TPOT <= "
               f"{m.slo_tpot_s * 1e3:g}ms, goodput and throughput over the "
               f"{m.arrival_window_s:.0f}s arrival window (not the makespan); imb = max/mean "
               "per instance (requests; tokens normalised by instance speed); "
               "fake bal = imb tok - imb req")
    return table(head, rows) + slo


def simulate_text(d: dict) -> str:
    """The human rendering of one run's JSON (``metrics_json``)."""
    m = d["metrics"]
    out = [f"fleet {d['fleet']['name']}: {d['fleet_desc']}",
           f"workload {d['workload']}: {m['requests']} requests at {d['rate_rps']:.2f} req/s "
           f"(fleet capacity ~{d['capacity_rps']:.1f} req/s, load {d['load']:.2f})",
           f"router {m['router']}  simulated {m['makespan_s']:.0f}s in {m['wall_s']:.1f}s", ""]
    rows = [[k, _ms(m[k]["p50"]), _ms(m[k]["p90"]), _ms(m[k]["p99"]), _ms(m[k]["mean"])]
            for k in ("ttft", "tpot", "itl", "e2e")]
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
    rows = [[i["name"], i["requests"], f"{i['token_load_s']:.0f}s",
             f"{i['utilisation'] * 100:.0f}%", f"{i['compute_bound_frac'] * 100:.0f}%",
             f"{i['memory_bound_frac'] * 100:.0f}%", _ms(i["ttft_p99"]),
             f"{i['kv_hit_rate'] * 100:.0f}%", i["preemptions"]] for i in m["instances"]]
    out.append(table(["instance", "requests", "load", "util", "compute", "bandwidth",
                      "TTFT p99", "KV hit", "preempt"], rows))
    return "\n".join(out)


def metrics_json(m: FleetMetrics, **context: Any) -> dict:
    """The JSON document of one run: the context (fleet, workload, rate) plus the metrics."""
    return {**context, "metrics": m.to_dict(), "by_gpu": by_gpu(m)}
