"""The audit as a document (the JSON ``--format json`` prints) and as the plain-text summary a
developer reads in ten seconds, headlines first."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from tokenpilot.audit.analyze import (
    PARTS_WITH_TEMPLATE,
    Options,
    Pricer,
    Row,
    oversize_savings,
)

PART_NAMES = {"system": "system prompt", "tools": "tool definitions",
              "history": "conversation history", "tool_results": "tool results",
              "documents": "attached documents", "template": "chat template and framing",
              "unlogged": "not logged (bodies: false)",
              "output": "output"}
MAX_CALL_ROWS = 5000  # per-request rows in the JSON up to this many requests
TOP = 5


def _cut_saving(pricer: Pricer | None, row: Row, cut: int) -> tuple[float, float, float | None]:
    """(prefill s, total s, money) saved by sending ``cut`` fewer prompt tokens."""
    old = row.price
    if pricer is None or old is None:
        return 0.0, 0.0, None
    c = row.call
    pre, dec = pricer.phases(c.model or "", pricer.model(c.model, c.where),
                             c.prompt_tokens - cut, c.output_tokens)
    saved = old.prefill_s + old.decode_s - pre - dec
    money = None if row.usd_per_s is None else row.usd_per_s * (
        old.prefill_s - pre + (old.decode_s - dec) / pricer.batch)
    return old.prefill_s - pre, saved, money


class _Sum:
    """Tokens, seconds and money saved, summed over requests."""

    def __init__(self, money: bool) -> None:
        self.tokens = 0
        self.prefill_s = 0.0
        self.seconds = 0.0
        self.usd: float | None = 0.0 if money else None

    def add(self, tokens: int, saving: tuple[float, float, float | None]) -> None:
        self.tokens += tokens
        self.prefill_s += saving[0]
        self.seconds += saving[1]
        if saving[2] is not None and self.usd is not None:
            self.usd += saving[2]

    def to_dict(self, runs: int, prompt: int) -> dict[str, Any]:
        return {"tokens_saved": self.tokens, "tokens_saved_per_run": self.tokens / runs,
                "share_of_prompt_tokens": self.tokens / prompt if prompt else 0.0,
                "prefill_s_saved": self.prefill_s, "seconds_saved": self.seconds,
                "seconds_saved_per_run": self.seconds / runs, "usd_saved": self.usd,
                "usd_saved_per_run": None if self.usd is None else self.usd / runs}


def _bounds(rows: list[Row], phase: str) -> dict[str, float]:
    """Each bound's share of the phase's time, over the priced requests."""
    t: dict[str, float] = defaultdict(float)
    for r in rows:
        p = r.price
        if p is not None:
            t[getattr(p, f"{phase}_bound")] += getattr(p, f"{phase}_s")
    total = sum(t.values())
    return {k: v / total for k, v in sorted(t.items(), key=lambda kv: -kv[1])} if total else {}


def build(rows: list[Row], pricer: Pricer | None, opt: Options, meta: dict[str, Any]
          ) -> dict[str, Any]:
    """The whole audit as one JSON-ready document."""
    n = len(rows)
    runs = max(1, len({r.call.run for r in rows}))
    prompt = sum(r.call.prompt_tokens for r in rows)
    output = sum(r.call.output_tokens for r in rows)
    priced = [r for r in rows if r.price is not None]
    money = all(r.price.prefill_usd is not None for r in priced) and bool(priced)

    def usd(x: float | None) -> float | None:
        return x if money else None

    # ---- parts: tokens, and money (a request's prefill pro rata, the output's decode) ----
    tok_of = dict.fromkeys((*PARTS_WITH_TEMPLATE, "output"), 0.0)
    usd_of = dict.fromkeys(tok_of, 0.0)
    for r in rows:
        p = r.price
        share = (p.prefill_usd or 0.0) / max(1, r.call.prompt_tokens) if p is not None else 0.0
        for part, tok in r.parts.items():
            if tok:
                tok_of[part] += tok
                if p is not None:
                    usd_of[part] += (p.decode_usd or 0.0) if part == "output" else share * tok
    parts = {part: {"tokens": round(tok, 3),
                    "share_of_prompt": tok / prompt if prompt and part != "output" else None,
                    "usd": usd(usd_of[part])} for part, tok in tok_of.items()}
    # ---- cost ----
    pre_s = sum(r.price.prefill_s for r in priced)  # type: ignore[union-attr]
    dec_s = sum(r.price.decode_s for r in priced)  # type: ignore[union-attr]
    pre_usd = sum(r.price.prefill_usd or 0.0 for r in priced)  # type: ignore[union-attr]
    dec_usd = sum(r.price.decode_usd or 0.0 for r in priced)  # type: ignore[union-attr]
    cost = {"priced_requests": len(priced), "prefill_s": pre_s, "decode_s": dec_s,
            "prefill_usd": usd(pre_usd), "decode_usd": usd(dec_usd),
            "usd": usd(pre_usd + dec_usd),
            "prefill_share_of_time": pre_s / (pre_s + dec_s) if pre_s + dec_s else None,
            "prefill_bound": _bounds(priced, "prefill"), "decode_bound": _bounds(priced, "decode"),
            "per_request": {"prefill_s": pre_s / len(priced) if priced else None,
                            "decode_s": dec_s / len(priced) if priced else None,
                            "usd": usd((pre_usd + dec_usd) / len(priced)) if priced else None},
            "prefill_s_with_prefix_cache": sum(r.prefill_cached_s or 0.0 for r in priced)}
    # ---- repetition and the prefix cache ----
    measured = [r.call.cached_tokens for r in rows if r.call.cached_tokens is not None]
    followups = [r for r in rows if r.prev]
    breaks: dict[tuple, dict[str, Any]] = {}
    for r in followups:
        b = r.brk
        if b is None:
            continue
        key = (b.index, b.role, b.part, b.line)
        e = breaks.get(key)
        if e is None:
            e = breaks[key] = {"first": r.call.where, "message": b.message, "role": b.role,
                               "part": b.part, "line": b.line, "text": b.text, "requests": 0,
                               "tokens_lost": 0, "prefill_s_lost": 0.0, "usd_lost": None}
        e["requests"] += 1
        e["tokens_lost"] += r.reuse_moved - r.reuse
        e["prefill_s_lost"] += r.move_saved_s
        if money and r.usd_per_s is not None:
            e["usd_lost"] = (e["usd_lost"] or 0.0) + r.move_saved_s * r.usd_per_s
    top_breaks = sorted(breaks.values(), key=lambda e: (-e["tokens_lost"], -e["requests"]))
    for e in top_breaks:
        e["share_of_followups"] = e["requests"] / len(followups)
    later_prompt = sum(r.call.prompt_tokens for r in followups)
    repeated = sum(r.repeated for r in rows)
    reuse = sum(r.reuse for r in rows)
    rep = {"followup_requests": len(followups), "followup_prompt_tokens": later_prompt,
           "repeated_tokens": repeated,
           "repeated_share": repeated / later_prompt if later_prompt else 0.0,
           "reusable_tokens": reuse, "reusable_share": reuse / prompt if prompt else 0.0,
           "reusable_share_of_repeated": reuse / repeated if repeated else None,
           "reusable_tokens_if_moved": sum(r.reuse_moved for r in rows),
           "cache_block_tokens": opt.cache_block,
           "measured_cached_tokens": sum(measured) if measured else None,
           "measured_requests": len(measured),
           "breaks": top_breaks[:TOP]}
    # ---- oversized inputs ----
    items: dict[str, dict[str, Any]] = {}
    chunked, summarized = _Sum(money), _Sum(money)
    for r in rows:
        d_chunk = d_sum = 0
        for s in r.oversized:
            nchunks, sc, ss = oversize_savings(s.tokens, opt)
            d_chunk += sc
            d_sum += ss
            e = items.get(s.hash)
            if e is None:
                e = items[s.hash] = {"first": r.call.where, "part": s.part, "role": s.role,
                                     "tokens": s.tokens, "chunks": nchunks, "prompts": 0,
                                     "chunked_tokens_saved": 0, "summary_tokens_saved": 0}
            e["prompts"] += 1
            e["chunked_tokens_saved"] += sc
            e["summary_tokens_saved"] += ss
        if d_chunk:
            chunked.add(d_chunk, _cut_saving(pricer, r, d_chunk))
        if d_sum:
            summarized.add(d_sum, _cut_saving(pricer, r, d_sum))
    oversized = {
        "threshold_tokens": opt.oversize,
        "assumption": (f"a document or tool result over {opt.oversize} tokens is split into "
                       f"chunks of {opt.chunk} tokens and only the top {opt.top_k} are sent "
                       f"(at most {opt.top_k * opt.chunk} tokens), or replaced by a "
                       f"{opt.summary}-token summary; counted in every prompt that carries it"),
        "inputs": len(items),
        "items": sorted(items.values(), key=lambda e: -e["chunked_tokens_saved"])[:TOP * 2],
        "chunked": chunked.to_dict(runs, prompt),
        "summary": summarized.to_dict(runs, prompt)}
    # ---- what-ifs ----
    hist, docs, move = _Sum(money), _Sum(money), _Sum(money)
    for r in rows:
        if r.history_cut:
            hist.add(r.history_cut, _cut_saving(pricer, r, r.history_cut))
        if r.doc_cut:
            docs.add(r.doc_cut, _cut_saving(pricer, r, r.doc_cut))
        if r.reuse_moved > r.reuse:
            rate = r.usd_per_s if money else None
            move.add(r.reuse_moved - r.reuse, (r.move_saved_s, r.move_saved_s,
                                               None if rate is None else r.move_saved_s * rate))
    what_if = [
        {"name": f"cap history at {opt.history_turns} turns", **hist.to_dict(runs, prompt)},
        {"name": f"cap documents at {opt.doc_cap} tokens", **docs.to_dict(runs, prompt)},
        {"name": "move the changing block to the end (prefix cache)",
         "note": "tokens: prompt tokens a prefix cache would reuse besides; seconds: prefill",
         **move.to_dict(runs, prompt)}]
    doc = {**meta, "models_priced": sorted({r.call.model or "" for r in priced}),
           "requests": n, "runs": runs, "options": vars(opt),
           "tokens": {"prompt": prompt, "output": output, "parts": parts},
           "cost": cost, "repetition": rep, "oversized": oversized, "what_if": what_if}
    if n <= MAX_CALL_ROWS:
        doc["calls"] = [_call_row(r) for r in rows]
    doc["headlines"] = headlines(doc)
    return doc


def _call_row(r: Row) -> dict[str, Any]:
    c, p = r.call, r.price
    return {"where": c.where, "run": c.run, "model": c.model, "prompt_tokens": c.prompt_tokens,
            "output_tokens": c.output_tokens, "output_known": c.output_known,
            "parts": {k: round(v, 3) for k, v in r.parts.items() if v},
            "repeated_tokens": r.repeated, "reusable_tokens": r.reuse,
            "reusable_tokens_if_moved": r.reuse_moved, "cached_tokens": c.cached_tokens,
            "prefill_s": p.prefill_s if p else None, "decode_s": p.decode_s if p else None,
            "prefill_usd": p.prefill_usd if p else None, "decode_usd": p.decode_usd if p else None,
            "prefill_s_with_prefix_cache": r.prefill_cached_s,
            "measured_ttft_s": c.ttft_s, "measured_tpot_s": c.tpot_s}


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{x * 100:.0f}%"


def _usd(x: float | None) -> str:
    if x is None:
        return "no price"
    return f"${x:.4f}" if abs(x) < 1 else f"${x:,.2f}"


def _secs(x: float) -> str:
    return f"{x * 1e3:.0f} ms" if x < 1 else f"{x:,.1f} s"


def headlines(d: dict[str, Any]) -> list[str]:
    """The few sentences that say where the tokens go and what to change, biggest first."""
    out = []
    t, c, rep = d["tokens"], d["cost"], d["repetition"]
    prompt = t["prompt"]
    est = "" if d.get("exact") else " (estimated: ~4 chars/token)"
    line = (f"{d['requests']:,} requests in {d['runs']:,} run(s): {prompt:,} prompt and "
            f"{t['output']:,} output tokens{est}.")
    if c["priced_requests"]:
        share = c["prefill_share_of_time"] or 0.0
        pb = next(iter(c["prefill_bound"]), "-")
        db = next(iter(c["decode_bound"]), "-")
        line += (f" On {d.get('gpu')}: {_usd(c['usd'])}, prefill {_pct(share)} of the time "
                 f"({pb}-bound), decode {_pct(1 - share)} ({db}-bound).")
    out.append(line)
    ranked = sorted(((k, v) for k, v in t["parts"].items() if k != "output" and v["tokens"]),
                    key=lambda kv: -kv[1]["tokens"])
    if ranked:
        k, v = ranked[0]
        more = "".join(f", {_pct(v2['share_of_prompt'])} {PART_NAMES[k2]}"
                       for k2, v2 in ranked[1:3])
        out.append(f"{_pct(v['share_of_prompt'])} of your prompt tokens are {PART_NAMES[k]}"
                   f"{more}.")
    if rep["followup_requests"]:
        brk = rep["breaks"][0] if rep["breaks"] else None
        if brk and brk["tokens_lost"] > 0 and (brk["share_of_followups"] >= 0.5
                                               or brk["tokens_lost"] >= 0.05 * prompt):
            where = PART_NAMES.get(brk["part"], brk["part"]) + (
                f" (message {brk['message']})" if brk["message"] else "")
            at = (f" at line {brk['line']} ({brk['text'].strip()[:40]!r})" if brk["line"]
                  else " (a hashed log has no lines: log bodies: full to see where)")
            when = ("every turn" if brk["share_of_followups"] >= 0.999
                    else f"in {_pct(brk['share_of_followups'])} of turns")
            per = brk["tokens_lost"] / brk["requests"]
            out.append(f"Your {where} changes {when}{at}, so a "
                       f"prefix cache reuses nothing after it: moving that to the end would "
                       f"reuse {per:,.0f} more tokens per turn ({_secs(brk['prefill_s_lost'])} "
                       f"prefill, {_usd(brk['usd_lost'])} in all).")
        else:
            out.append(f"{_pct(rep['repeated_share'])} of follow-up prompts repeat the previous "
                       f"turn; a prefix cache can reuse {_pct(rep['reusable_share'])} of all "
                       "prompt tokens.")
    o = d["oversized"]
    if o["inputs"]:
        ch = o["chunked"]
        out.append(f"{o['inputs']:,} input(s) over {o['threshold_tokens']:,} tokens: sending the "
                   f"top {d['options']['top_k']} chunks would save {ch['tokens_saved']:,} "
                   f"tokens ({_pct(ch['share_of_prompt_tokens'])}, {_usd(ch['usd_saved'])}).")
    best = max(d["what_if"], key=lambda w: w["tokens_saved"])
    if best["tokens_saved"]:
        out.append(f"What-if '{best['name']}': {best['tokens_saved_per_run']:,.0f} tokens and "
                   f"{_usd(best['usd_saved_per_run'])} saved per run.")
    if d.get("problems"):
        out.append(f"{sum(d['skipped'].values())} record(s) not audited; see 'problems'.")
    return out


def render_text(d: dict[str, Any]) -> str:
    """The plain-text summary: headlines, then the tables behind them."""
    lines = [*d["headlines"], ""]
    t, c = d["tokens"], d["cost"]
    lines.append(f"tokens by part ({d['token_counts']}):")
    for k, v in t["parts"].items():
        if v["tokens"]:
            lines.append(f"  {PART_NAMES[k]:<26} {v['tokens']:>14,.0f}  "
                         f"{_pct(v['share_of_prompt']):>5}  {_usd(v['usd'])}")
    if c["priced_requests"]:
        pr = c["per_request"]
        models = d.get("model") or ", ".join(d.get("models_priced") or ()) or "-"
        lines.append(f"cost ({models} on {d.get('gpu')}, batch "
                     f"{d['options']['batch']}; {c['priced_requests']:,} request(s) priced):")
        lines.append(f"  prefill {_secs(c['prefill_s'])} {_usd(c['prefill_usd'])}  "
                     f"({_secs(pr['prefill_s'])} per request; "
                     + ", ".join(f"{_pct(v)} {k}-bound" for k, v in c["prefill_bound"].items())
                     + ")")
        lines.append(f"  decode  {_secs(c['decode_s'])} {_usd(c['decode_usd'])}  "
                     f"({_secs(pr['decode_s'])} per request; "
                     + ", ".join(f"{_pct(v)} {k}-bound" for k, v in c["decode_bound"].items())
                     + ")")
        lines.append(f"  prefill with a prefix cache: {_secs(c['prefill_s_with_prefix_cache'])}")
    rep = d["repetition"]
    if rep["followup_requests"]:
        lines.append(f"repetition over {rep['followup_requests']:,} follow-up request(s): "
                     f"{rep['repeated_tokens']:,} tokens repeat the previous turn "
                     f"({_pct(rep['repeated_share'])}); a prefix cache reuses "
                     f"{rep['reusable_tokens']:,} ({_pct(rep['reusable_share'])} of all prompt "
                     f"tokens), {rep['reusable_tokens_if_moved']:,} with the changing block moved"
                     + (f"; the backends reported {rep['measured_cached_tokens']:,} cached"
                        if rep["measured_cached_tokens"] is not None else ""))
        for b in rep["breaks"]:
            at = f" line {b['line']}: {b['text'].strip()[:50]!r}" if b["line"] else ""
            msg = f"message {b['message']}" if b["message"] else "the tool definitions"
            lines.append(f"  reuse breaks at {msg} ({b['role']}){at} in "
                         f"{b['requests']:,} request(s), first {b['first']}; "
                         f"{b['tokens_lost']:,} tokens lost")
    o = d["oversized"]
    if o["inputs"]:
        lines.append(f"oversized inputs ({o['assumption']}):")
        for e in o["items"][:TOP]:
            lines.append(f"  {e['part']} of {e['tokens']:,} tokens ({e['chunks']} chunks) in "
                         f"{e['prompts']} prompt(s), first {e['first']}: top-k saves "
                         f"{e['chunked_tokens_saved']:,}, a summary {e['summary_tokens_saved']:,}")
    lines.append("what-ifs (per run):")
    for w in d["what_if"]:
        lines.append(f"  {w['name']:<52} {w['tokens_saved_per_run']:>12,.0f} tokens  "
                     f"{_secs(w['seconds_saved_per_run'])}  {_usd(w['usd_saved_per_run'])}")
    if d.get("problems"):
        lines.append("problems:")
        lines += [f"  {p}" for p in d["problems"]]
    return "\n".join(lines)
