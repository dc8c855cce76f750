"""``tokenpilot tradeoff``: every KV option's gain in the fleet beside its loss on a real model.

``run_tradeoff`` runs the baseline (f16 KV, full context) and then each option on its own
llama.cpp server, one at a time (``quality``), simulates the fleet under each option's matching
engine settings (``fleet``), and puts both in one row per option with what the option is good
for and where it breaks (``verdict``). Bounded: once ``max_wall_s`` has passed no further
option is started, and those left are reported as not run.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from tokenpilot.cluster import FleetSpec
from tokenpilot.tradeoff.fleet import FleetSide, simulate_option, window_kv, workloads
from tokenpilot.tradeoff.options import Option, parse_option
from tokenpilot.tradeoff.probe import ProbeError
from tokenpilot.tradeoff.quality import OptionRun, SuiteSpec, compare, run_option
from tokenpilot.workload import WorkloadError

MODEL_CONTEXT = 8192  # SmolLM2's trained context: the "KV memory at a fixed context" figure
# A loss the figures must show before a row says the option breaks something.
PPL_LOSS, KL_LOSS, AGREE_LOSS = 0.01, 0.005, 0.9


@dataclass
class TradeoffConfig:
    model: Path
    fleet: FleetSpec
    options: list[Option]
    suite: SuiteSpec = field(default_factory=SuiteSpec)
    side: FleetSide = field(default_factory=FleetSide)
    threads: int = 1
    max_wall_s: float = 600.0


def run_tradeoff(cfg: TradeoffConfig, log: Callable[[str], None]) -> dict[str, Any]:
    t0 = time.monotonic()

    def progress(option: str, phase: str) -> None:
        log(f"[{time.monotonic() - t0:6.1f}s] {option}: {phase}")

    base_opt = parse_option("f16")
    base, suite = run_option(base_opt, None, cfg.suite, cfg.model, cfg.threads, progress)
    runs: list[tuple[Option, OptionRun | None]] = [(base_opt, base)]
    not_run: dict[str, str] = {}
    for opt in cfg.options:
        if time.monotonic() - t0 > cfg.max_wall_s:
            not_run[opt.name] = f"the run's {cfg.max_wall_s:.0f} s budget was spent before it"
            progress(opt.name, f"not run: {not_run[opt.name]}")
            runs.append((opt, None))
            continue
        try:
            runs.append((opt, run_option(opt, suite, cfg.suite, cfg.model, cfg.threads,
                                         progress)[0]))
        except ProbeError as exc:  # the others still run; the row says why this one did not
            not_run[opt.name] = str(exc)
            progress(opt.name, f"failed: {exc}")
            runs.append((opt, None))
    progress("fleet", f"simulating {cfg.fleet.describe()}")
    try:
        loads = workloads(cfg.fleet, cfg.side)
        fleet_note = ""
    except WorkloadError as exc:
        loads, fleet_note = {}, f"fleet side not run: {exc}"
    rows = []
    for opt, run in runs:
        sim = simulate_option(cfg.fleet, opt, loads, cfg.side) if loads else {}
        rows.append(_row(opt, run, base, sim, cfg, not_run.get(opt.name, "")))
    base_row = rows[0]
    for row in rows:
        _relative(row, base_row)
        row["good_for"], row["breaks"] = verdict(row, base_row, cfg)
    wall = time.monotonic() - t0
    progress("done", f"{len(runs)} servers, {wall:.0f} s")
    return _no_nan({
        "model": str(cfg.model), "threads": cfg.threads, "seed": cfg.suite.seed,
        "suite": {**asdict(cfg.suite), "needle_depths_tokens": [c.depth for c in suite.needles],
                  "passages_read": len(suite.passages), "baseline_ctx": cfg.suite.baseline_ctx},
        "fleet": cfg.fleet.to_dict(), "fleet_side": asdict(cfg.side), "fleet_note": fleet_note,
        "rows": rows, "wall_s": wall,
    })


def _no_nan(v: Any) -> Any:
    """NaN (a figure that could not be measured) as None: strict JSON readers (jq) refuse NaN."""
    if isinstance(v, float) and math.isnan(v):
        return None
    if isinstance(v, dict):
        return {k: _no_nan(x) for k, x in v.items()}
    if isinstance(v, list | tuple):
        return [_no_nan(x) for x in v]
    return v


def _row(opt: Option, run: OptionRun | None, base: OptionRun, sim: dict[str, Any],
         cfg: TradeoffConfig, why_not: str) -> dict[str, Any]:
    row: dict[str, Any] = {"option": opt.name, "kind": opt.kind,
                           "cache_type_k": opt.cache_type_k, "cache_type_v": opt.cache_type_v,
                           "window": opt.window or None, "n_keep": opt.n_keep,
                           "truncate": opt.truncate or None, "ran": run is not None,
                           "fleet": sim}
    if run is None:
        row["not_run"] = why_not
        return row
    q = compare(base, run)
    per_token = run.kv_log.get("kv_bytes_per_token", float("nan"))
    row.update({
        "quality": q,
        "needles": run.needles,
        "cost": {"kv_bytes_per_token": per_token,
                 "kv_mib_at_context": per_token * MODEL_CONTEXT / 2**20,
                 "kv_context": MODEL_CONTEXT,
                 "kv_mib_slot": run.kv_log.get("kv_mib"), "slot_tokens": run.kv_log.get("kv_cells"),
                 # A window or a cut context holds at most its slot, whatever the text's length.
                 "kv_mib_per_request_at_context": per_token * min(
                     MODEL_CONTEXT, opt.context or MODEL_CONTEXT) / 2**20,
                 "prompt_tok_s": run.prompt_tps, "gen_tok_s": run.gen_tps},
        "server_start_s": run.start_s, "wall_s": run.wall_s,
    })
    if run.shift_check is not None:
        sc = dict(run.shift_check)
        sc["simulator"] = window_kv(cfg.fleet, opt, sc["prompt_tokens"], sc["generated"])
        row["context_shift_check"] = sc
    return row


def _relative(row: dict[str, Any], base: dict[str, Any]) -> None:
    """Gains as multiples of the baseline's: capacity x, goodput x per workload."""
    f, b = row.get("fleet") or {}, base.get("fleet") or {}
    if "capacity" in f and b.get("capacity"):
        f["capacity_x"] = f["capacity"] / b["capacity"]
    for name, w in f.items():
        if isinstance(w, dict) and isinstance(b.get(name), dict):
            bg = b[name]["goodput_rps"]
            w["goodput_x"] = w["goodput_rps"] / bg if bg > 0 else float("nan")
    cost, bc = row.get("cost"), base.get("cost")
    if cost and bc:
        cost["kv_bytes_x"] = cost["kv_bytes_per_token"] / bc["kv_bytes_per_token"]


def verdict(row: dict[str, Any], base: dict[str, Any], cfg: TradeoffConfig) -> tuple[str, str]:
    """(what the option is good for, where it breaks), from the row's own figures."""
    if not row["ran"]:
        return "not run", f"not run: {row['not_run']}"
    if row is base:
        return "the reference", "its KV grows with every token of context"
    f = row.get("fleet") or {}
    gains = []
    if f.get("capacity_x", 1.0) > 1.05:
        gains.append(f"{f['capacity_x']:.1f}x capacity at {cfg.side.context} tokens")
    for name in ("conv", "long-doc"):
        w = f.get(name)
        if isinstance(w, dict) and w.get("goodput_x", 1.0) > 1.05:
            gains.append(f"{name} goodput {w['goodput_x']:.1f}x")
    cost = row["cost"]
    if cost.get("kv_bytes_x", 1.0) < 0.95:
        gains.append(f"{cost['kv_bytes_x']:.2f}x KV bytes/token")
    q = row["quality"]
    losses = []
    if (q["ppl_ratio"] > 1 + PPL_LOSS or q["mean_kl"] > KL_LOSS
            or q["greedy_agreement"] < AGREE_LOSS):
        losses.append(f"perplexity {100 * (q['ppl_ratio'] - 1):+.1f}%, KL {q['mean_kl']:.3f}, "
                      f"greedy agreement {100 * q['greedy_agreement']:.0f}%")
    bd, od = base["quality"]["needle_by_depth"], q["needle_by_depth"]
    lost = [d for d in od if od[d] < bd.get(d, 0.0)]
    if lost:
        first = min(lost)
        past = [od[d] for d in od if d >= first]
        base_past = [bd[d] for d in bd if d >= first]
        losses.append(f"needle accuracy {100 * sum(past) / len(past):.0f}% past depth {first} "
                      f"tokens (baseline {100 * sum(base_past) / len(base_past):.0f}%)")
    good = "; ".join(gains) or "no gain in this fleet and workload"
    deepest = max(od) if od else 0
    broke = "; ".join(losses) or (f"no loss measured (passages of {cfg.suite.context}+"
                                  f"{cfg.suite.reference} tokens, needles to depth {deepest})")
    return good, broke


# ---- rendering --------------------------------------------------------------------------
def _f(v: Any, fmt: str) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    return format(v, fmt)


def render(d: dict[str, Any]) -> str:
    from tokenpilot.report.tables import table

    heads = ["option", "KV B/tok", "KV MiB@8k", "prompt t/s", "gen t/s", "capacity x",
             "conv goodput x", "doc goodput x", "doc TTFT p99 s", "ppl ratio", "mean KL",
             "greedy agree", "needle by depth"]
    body = []
    for r in d["rows"]:
        f, c, q = r.get("fleet") or {}, r.get("cost") or {}, r.get("quality") or {}
        conv, doc = f.get("conv") or {}, f.get("long-doc") or {}
        needle = " ".join(f"{k}:{100 * v:.0f}%" for k, v in q.get("needle_by_depth", {}).items())
        body.append([r["option"], _f(c.get("kv_bytes_per_token"), ".0f"),
                     _f(c.get("kv_mib_per_request_at_context"), ".1f"),
                     _f(c.get("prompt_tok_s"), ".1f"), _f(c.get("gen_tok_s"), ".1f"),
                     _f(f.get("capacity_x"), ".2f"), _f(conv.get("goodput_x"), ".2f"),
                     _f(doc.get("goodput_x"), ".2f"), _f(doc.get("ttft_p99_s"), ".1f"),
                     _f(q.get("ppl_ratio"), ".3f"), _f(q.get("mean_kl"), ".4f"),
                     _f(q.get("greedy_agreement"), ".0%"), needle or "-"])
    side = d["fleet_side"]
    lines = [f"tokenpilot tradeoff: {Path(d['model']).name} on llama.cpp ({d['threads']} "
             f"thread(s)); fleet {d['fleet'].get('name')} at {side['load']:g}x the baseline's "
             "capacity", "", table(heads, body), ""]
    for r in d["rows"]:
        lines.append(f"{r['option']}: good for {r['good_for']}; breaks: {r['breaks']}")
        sc = r.get("context_shift_check")
        if sc:
            sim = sc["simulator"]
            lines.append(
                f"  context shift check: {sc['tokens_through_slot']} tokens through a "
                f"{r['window']}-token slot; llama.cpp's rule keeps {sc['rule_kept']}, the "
                f"server's cache matched {sc['server_cache_n']} of them "
                f"({'agrees' if sc['matches'] else 'DISAGREES'}); the simulator's window "
                f"holds {sim['sim_kv_tokens_end']} KV tokens (peak {sim['sim_kv_tokens_peak']}),"
                f" of which {sc['sim_window_positions_held']} positions are ones llama.cpp keeps")
    s = d["suite"]
    lines += ["", f"quality: {s['passages_read']} passages ({s['context']} tokens of context, "
              f"{s['reference']} reference tokens teacher-forced, {s['greedy']} greedy), "
              f"{len(s['needle_depths_tokens'])} needles at depths {s['needle_depths_tokens']} "
              f"tokens of a {s['doc_tokens']}-token document; KL is over the top-{s['top_k']} "
              "tokens plus the rest (a lower bound); greedy agreement = tokens identical to the "
              "baseline's before the first difference",
              f"fleet: capacity = requests of {side['context']} tokens whose KV fits at once; "
              f"goodput at TTFT <= {side['slo_ttft']:g} s and TPOT <= {side['slo_tpot']:g} s; "
              f"conv = Azure conv trace ({side['conv_requests']} requests), doc = "
              f"{side['doc_requests']} documents of ~{side['doc_prompt']} tokens",
              f"wall time {d['wall_s']:.0f} s"]
    if d.get("fleet_note"):
        lines.append(d["fleet_note"])
    return "\n".join(lines)


def write_report(d: dict[str, Any], folder: Path) -> list[Path]:
    """tradeoff.json, tradeoff.txt and tradeoff.png in ``folder``."""
    import json

    folder.mkdir(parents=True, exist_ok=True)
    paths = [folder / "tradeoff.json", folder / "tradeoff.txt", folder / "tradeoff.png"]
    paths[0].write_text(json.dumps(d, indent=2, default=str) + "\n")
    paths[1].write_text(render(d) + "\n")
    plot(d, paths[2])
    return paths


def plot(d: dict[str, Any], path: Path) -> None:
    """Gain (capacity and goodput multiples) beside loss (needle accuracy by depth, and the
    perplexity ratio in each label)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [r for r in d["rows"] if r["ran"]]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.5))
    names = [r["option"] for r in rows]
    series = [("capacity", lambda f: f.get("capacity_x")),
              ("conv goodput", lambda f: (f.get("conv") or {}).get("goodput_x")),
              ("long-doc goodput", lambda f: (f.get("long-doc") or {}).get("goodput_x"))]
    width = 0.8 / len(series)
    for k, (label, get) in enumerate(series):
        vals = [get(r.get("fleet") or {}) or 0.0 for r in rows]
        ax1.bar([i + k * width for i in range(len(rows))], vals, width, label=label)
    ax1.axhline(1.0, color="grey", lw=0.8)
    ax1.set_xticks([i + width for i in range(len(rows))], names, rotation=20)
    ax1.set_ylabel("x the f16 baseline")
    ax1.set_title("gain: fleet simulator")
    ax1.legend()
    styles, markers = ("-", "--", ":", "-."), "os^Dvx*"
    for k, r in enumerate(rows):
        q = r["quality"]
        depths = list(q["needle_by_depth"])
        # Equal curves are common (every option that keeps the needles): each is nudged by
        # a point or two so that none hides another.
        nudge = 1.5 * (k - (len(rows) - 1) / 2)
        ax2.plot([int(x) for x in depths],
                 [100 * q["needle_by_depth"][x] + nudge for x in depths],
                 ls=styles[k % len(styles)], marker=markers[k % len(markers)],
                 label=f"{r['option']} (ppl x{q['ppl_ratio']:.3f}, "
                 f"agree {100 * q['greedy_agreement']:.0f}%)")
    ax2.set_xlabel("needle depth (tokens before the question; curves nudged apart)")
    ax2.set_ylabel("retrieval accuracy %")
    ax2.set_ylim(-5, 105)
    ax2.set_title("loss: SmolLM2 on llama.cpp")
    ax2.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
