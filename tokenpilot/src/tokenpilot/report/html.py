"""The HTML report of a comparison: the table, then the plots as PNGs beside ``index.html``."""

from __future__ import annotations

import html
import json
import os
import re
from collections.abc import Sequence
from pathlib import Path

from tokenpilot.cluster.metrics import FleetMetrics
from tokenpilot.cluster.sim import SimResult
from tokenpilot.report.tables import compare_rows

# No fixed page width: the tables are wider than a text column, and a 1400 px window must show
# every column (the table scrolls sideways, inside its own box, only on a narrower one).
_STYLE = ("body{font-family:system-ui,sans-serif;margin:1.5em 2em;color:#222}"
          "pre{background:#f6f6f6;padding:1em;overflow-x:auto;font-size:12px;white-space:pre-wrap}"
          ".wide{overflow-x:auto}table{border-collapse:collapse;font-size:13px}"
          "th,td{padding:2px 6px;text-align:right;white-space:nowrap}"
          # Headers wrap ("TTFT p50 / ms" on two lines): the columns are as wide as their
          # numbers, so a 1400 px window shows the whole comparison table.
          "th{white-space:normal;vertical-align:bottom}"
          "th:first-child,td:first-child{text-align:left}thead th{border-bottom:1px solid #999}"
          "tbody tr:nth-child(even){background:#f6f6f6}p.note{font-size:13px;color:#555}"
          "img{max-width:100%}")


def html_table(head: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    cells = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in r) + "</tr>"
                    for r in rows)
    return ("<div class='wide'><table><thead><tr>"
            + "".join(f"<th>{html.escape(h)}</th>" for h in head)
            + f"</tr></thead><tbody>{cells}</tbody></table></div>")


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name) or "router"


def check_report_dir(out_dir: Path | str) -> str | None:
    """Why a report cannot be written into ``out_dir`` (None: it can), asked before a long run
    so that a mistyped path fails in a second, not after every simulation. Creates the folder."""
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        return f"{out} exists and is not a folder; --report names a folder for index.html"
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        return f"cannot create {out}: {exc.strerror or exc}"
    if not os.access(out, os.W_OK | os.X_OK):
        return f"cannot write into {out}: permission denied"
    return None


def write_report(out_dir: Path | str, sims: Sequence[SimResult], metrics: Sequence[FleetMetrics],
                 title: str = "tokenpilot fleet comparison", context: dict | None = None,
                 summary: str | None = None) -> Path:
    """Write ``index.html``, ``metrics.json`` and the PNG plots into ``out_dir``.

    ``summary`` (a scenario's own table, as text) replaces the comparison table: one table of
    the runs per page, not the same figures twice; metrics.json holds every figure."""
    from tokenpilot.report.plots import instance_series, latency_cdfs  # matplotlib is slow

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    slo = (metrics[0].slo_ttft_s, metrics[0].slo_tpot_s) if metrics else (None, None)
    images = [("Latency CDFs", latency_cdfs(sims, out / "latency_cdf.png", *slo))]
    for sim in sims:
        path = instance_series(sim, out / f"instances_{_slug(sim.router)}.png")
        images.append((f"Per-instance load and KV use: {sim.router}", path))
    ctx = context or {}
    (out / "metrics.json").write_text(json.dumps(
        {**ctx, "runs": [m.to_dict() for m in metrics]}, indent=2, default=str))
    parts = [f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}"
             f"</title><style>{_STYLE}</style></head><body><h1>{html.escape(title)}</h1>"]
    for key, value in ctx.items():
        parts.append(f"<p><b>{html.escape(str(key))}</b>: {html.escape(str(value))}</p>")
    if summary is not None:
        parts.append(f"<pre>{html.escape(summary)}</pre>")
    else:
        head, rows, note = compare_rows(metrics)
        parts.append(html_table(head, rows))
        parts.append(f"<p class='note'>{html.escape(note)}</p>")
    for caption, path in images:
        parts.append(f"<h2>{html.escape(caption)}</h2><img src='{html.escape(path.name)}' "
                     f"alt='{html.escape(caption)}'>")
    parts.append("<p>Definitions: see <code>tokenpilot.cluster.metrics</code>. Raw figures: "
                 "<a href='metrics.json'>metrics.json</a>.</p></body></html>")
    index = out / "index.html"
    index.write_text("\n".join(parts), encoding="utf-8")
    return index
