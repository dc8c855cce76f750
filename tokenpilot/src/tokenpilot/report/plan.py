"""The HTML report of ``tokenpilot plan``: the verdict, the candidates' table, the plot of
cost against attainment, the fleet file; and of ``plan --check``: the runs by scale."""

from __future__ import annotations

import html
import json
from pathlib import Path

from tokenpilot.report.html import _STYLE, html_table


def _page(title: str, body: list[str]) -> str:
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}"
            f"</title><style>{_STYLE}</style></head><body><h1>{html.escape(title)}</h1>"
            + "\n".join(body) + "</body></html>")


def _p(key: str, value: object) -> str:
    return f"<p><b>{html.escape(key)}</b>: {html.escape(str(value))}</p>"


def write_plan_report(out_dir: Path | str, doc: dict, fleet_yaml: str) -> Path:
    """``index.html``, ``plan.json``, ``fleet.yaml`` and ``cost_attainment.png``."""
    from tokenpilot.report.plots import cost_attainment  # matplotlib is slow to import

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    (out / "plan.json").write_text(json.dumps(doc, indent=2, default=str))
    if fleet_yaml:
        (out / "fleet.yaml").write_text(fleet_yaml, encoding="utf-8")
    plot = cost_attainment(doc["candidates"], doc["slo"]["attainment"],
                           out / "cost_attainment.png")
    slo = doc["slo"]
    body = [_p("workload", f"{doc['workload']}: {doc['requests']} requests at "
                           f"{doc['rate_rps']:.2f} req/s"),
            _p("SLO", f"TTFT <= {slo['ttft_s']:g}s, TPOT <= {slo['tpot_s'] * 1e3:g}ms for "
                      f"{slo['attainment']:.1%} of requests"),
            _p("plan", doc["verdict"])]
    if doc.get("saving"):
        base = doc["baseline"]
        body.append(_p("best single-GPU-type fleet", f"{base['fleet']} at "
                       f"${base['cost_per_hour']:.2f}/h; saving "
                       f"${doc['saving']['per_hour']:.2f}/h ({doc['saving']['share']:.1%})"))
    for h in (doc.get("chosen") or {}).get("history", []):
        body.append(f"<p class='note'>resized: {html.escape(h)}</p>")
    head = ["fleet", "from", "$/h", "$/Mtok", "attainment", "vs target (pts)", "SLO",
            "TTFT p99 ms", "TPOT p99 ms"]
    rows = [[("* " if c["chosen"] else "") + c["fleet"], c["source"],
             f"{c['cost_per_hour']:.2f}", f"{c['cost_per_million_tokens']:.3f}",
             f"{c['attainment'] * 100:.2f}%", f"{c['margin'] * 100:+.2f}",
             "met" if c["meets"] else "MISSED", f"{c['ttft_p99_s'] * 1e3:.0f}",
             f"{c['tpot_p99_s'] * 1e3:.1f}"] for c in doc["candidates"]]
    body += ["<h2>Candidates, each simulated on the whole workload</h2>",
             html_table(head, rows),
             f"<h2>Cost against attainment</h2><img src='{plot.name}' alt='cost vs attainment'>"]
    if fleet_yaml:
        body.append("<h2>Fleet file</h2><p><a href='fleet.yaml'>fleet.yaml</a> "
                    "(tokenpilot simulate --fleet fleet.yaml)</p>"
                    f"<pre>{html.escape(fleet_yaml)}</pre>")
    body.append("<p>Every figure: <a href='plan.json'>plan.json</a>.</p>")
    index = out / "index.html"
    index.write_text(_page("tokenpilot plan", body), encoding="utf-8")
    return index


def write_headroom_report(out_dir: Path | str, doc: dict) -> Path:
    """``index.html`` and ``headroom.json`` of ``plan --check``."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    (out / "headroom.json").write_text(json.dumps(doc, indent=2, default=str))
    rows = [[f"{r['scale']:.3f}x", f"{r['scale'] * doc['rate_rps']:.2f}",
             f"{r['attainment'] * 100:.2f}%", "met" if r["meets"] else "MISSED",
             f"{r['ttft_p99_s'] * 1e3:.0f}", f"{r['tpot_p99_s'] * 1e3:.1f}"]
            for r in doc["runs"]]
    sat = doc["saturates_first"]
    body = [_p("fleet", doc["fleet"]), _p("workload", doc["workload"]),
            _p("headroom", f"{doc['headroom']:.3f}x the workload's rate"),
            _p("saturates first", "-" if sat is None else f"{sat['kind']} ({sat['role']})"),
            html_table(["scale", "req/s", "attainment", "SLO", "TTFT p99 ms", "TPOT p99 ms"],
                       rows)]
    index = out / "index.html"
    index.write_text(_page("tokenpilot plan --check", body), encoding="utf-8")
    return index
