"""The HTML report of ``tokenpilot audit --report DIR``: the headlines, the tables, and PNG
plots beside ``index.html`` (nothing loaded from elsewhere), with ``audit.json``."""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

from tokenpilot.audit.analyze import PARTS_WITH_TEMPLATE, Row
from tokenpilot.audit.report import PART_NAMES, render_text
from tokenpilot.report.html import html_table
from tokenpilot.report.plan import _page

COLORS = {"system": "#4c72b0", "tools": "#8172b3", "history": "#55a868",
          "tool_results": "#c44e52", "documents": "#dd8452", "template": "#937860",
          "unlogged": "#bbbbbb", "output": "#222222"}
MAX_BARS = 400  # requests drawn one bar each; more are averaged into this many bins


def _bins(n: int) -> list[tuple[int, int]]:
    if n <= MAX_BARS:
        return [(i, i + 1) for i in range(n)]
    step = n / MAX_BARS
    return [(int(i * step), int((i + 1) * step)) for i in range(MAX_BARS)]


def _plots(out: Path, rows: list[Row]) -> list[str]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    names = []
    bins = _bins(len(rows))
    x = np.arange(len(bins))
    # 1. Tokens per request by part, stacked.
    fig, ax = plt.subplots(figsize=(10, 4))
    bottom = np.zeros(len(bins))
    for part in (*PARTS_WITH_TEMPLATE, "output"):
        y = np.array([np.mean([r.parts[part] for r in rows[a:b]]) for a, b in bins])
        if y.any():
            ax.bar(x, y, bottom=bottom, width=1.0, color=COLORS[part], label=PART_NAMES[part])
            bottom += y
    ax.set_xlabel("request (in order)" + (" (mean per bin)" if len(bins) < len(rows) else ""))
    ax.set_ylabel("tokens")
    ax.set_title("Tokens per request, by part of the prompt")
    ax.set_ylim(0, max(1.0, float(bottom.max())) * 1.3)  # room for the legend above the bars
    ax.legend(fontsize=8, ncol=4, loc="upper left")
    fig.tight_layout()
    fig.savefig(out / "parts.png", dpi=90)
    plt.close(fig)
    names.append("parts.png")
    # 2. Prefill vs decode seconds per request; 3. prompt tokens vs what a prefix cache reuses.
    priced = [r for r in rows if r.price is not None]
    if priced:
        pb = _bins(len(priced))

        def mean(f: Any) -> Any:
            return np.array([np.mean([f(r) for r in priced[a:b]]) for a, b in pb])

        pre = mean(lambda r: r.price.prefill_s)
        names.append(_bars_and_step(
            plt, out / "phases.png", "Prefill and decode time per request",
            "seconds (cost model)", np.arange(len(pb)),
            [(pre, 0, "#4c72b0", "prefill (whole prompt)"),
             (mean(lambda r: r.price.decode_s), pre, "#dd8452", "decode")],
            (mean(lambda r: r.prefill_cached_s or 0.0), "#222222",
             "prefill with a prefix cache")))

    def per_bin(f: Any) -> Any:
        return np.array([np.mean([f(r) for r in rows[a:b]]) for a, b in bins])

    names.append(_bars_and_step(
        plt, out / "cache.png", "Prefix-cache reuse per request", "tokens", x,
        [(per_bin(lambda r: r.call.prompt_tokens), 0, "#cccccc", "prompt tokens"),
         (per_bin(lambda r: r.reuse), 0, "#55a868", "reusable by a prefix cache")],
        (per_bin(lambda r: r.reuse_moved), "#c44e52", "reusable with the changing block moved")))
    return names


def _bars_and_step(plt: Any, path: Path, title: str, ylabel: str, x: Any,
                   bars: list[tuple[Any, Any, str, str]], step: tuple[Any, str, str]) -> str:
    """One plot: ``bars`` (heights, bottoms, colour, label) and a ``step`` line over them."""
    fig, ax = plt.subplots(figsize=(10, 3.5))
    for y, bottom, color, label in bars:
        ax.bar(x, y, bottom=bottom, width=1.0, color=color, label=label)
    ax.step(x, step[0], where="mid", color=step[1], label=step[2])
    ax.set_xlabel("request")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path.name


def _fmt(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:,.4g}"
    return f"{v:,}" if isinstance(v, int) else str(v)


def write_audit_report(out_dir: Path | str, doc: dict[str, Any], rows: list[Row]) -> Path:
    """``index.html``, ``audit.json`` and the PNG plots in ``out_dir``; the page's path."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    (out / "audit.json").write_text(json.dumps(doc, indent=1, default=str))
    body = ["<p class='note'>" + "<br>".join(html.escape(h) for h in doc["headlines"]) + "</p>"]
    parts = doc["tokens"]["parts"]
    body.append("<h2>Tokens and cost by part</h2>" + html_table(
        ["part", "tokens", "share of prompt", "$"],
        [[PART_NAMES[k], _fmt(round(v["tokens"])), _fmt(v["share_of_prompt"]), _fmt(v["usd"])]
         for k, v in parts.items() if v["tokens"]]))
    c = doc["cost"]
    body.append("<h2>Prefill and decode</h2>" + html_table(
        ["phase", "seconds", "$", "bound (share of time)"],
        [["prefill", _fmt(c["prefill_s"]), _fmt(c["prefill_usd"]),
          ", ".join(f"{k} {v:.0%}" for k, v in c["prefill_bound"].items())],
         ["decode", _fmt(c["decode_s"]), _fmt(c["decode_usd"]),
          ", ".join(f"{k} {v:.0%}" for k, v in c["decode_bound"].items())]]))
    rep = doc["repetition"]
    body.append("<h2>Repetition and the prefix cache</h2>" + html_table(
        ["first request", "message", "role", "line", "text", "requests", "tokens lost",
         "prefill s lost", "$ lost"],
        [[b["first"], _fmt(b["message"]), b["role"], _fmt(b["line"]), b["text"],
          str(b["requests"]), _fmt(b["tokens_lost"]), _fmt(b["prefill_s_lost"]),
          _fmt(b["usd_lost"])] for b in rep["breaks"]]))
    o = doc["oversized"]
    body.append(f"<h2>Oversized inputs</h2><p class='note'>{html.escape(o['assumption'])}</p>"
                + html_table(["first", "part", "tokens", "chunks", "prompts",
                              "top-k saves (tokens)", "summary saves (tokens)"],
                             [[e["first"], e["part"], _fmt(e["tokens"]), str(e["chunks"]),
                               str(e["prompts"]), _fmt(e["chunked_tokens_saved"]),
                               _fmt(e["summary_tokens_saved"])] for e in o["items"]]))
    body.append("<h2>What-ifs</h2>" + html_table(
        ["what-if", "tokens saved per run", "seconds saved per run", "$ saved per run"],
        [[w["name"], _fmt(w["tokens_saved_per_run"]), _fmt(w["seconds_saved_per_run"]),
          _fmt(w["usd_saved_per_run"])] for w in doc["what_if"]]))
    body += [f"<p><img src='{n}' alt='{n}'></p>" for n in _plots(out, rows)]
    body.append("<h2>Summary</h2><pre>" + html.escape(render_text(doc)) + "</pre>")
    page = out / "index.html"
    page.write_text(_page("tokenpilot audit", body))
    return page
