"""The quality side: one real llama.cpp server per option, the same texts for each.

The suite (``build_suite``) is tokenized once, by the baseline's server, so every option reads
the very same token ids:

- passages: ``passages`` paragraphs of CPython's docs, each cut into ``context`` tokens and a
  reference continuation of ``reference`` tokens; the server continues each context greedily
  for ``greedy`` tokens, then reads the reference teacher-forced (``probe.Probe.forced``);
- needle documents: ``needle_docs`` filler documents of ``doc_tokens`` tokens, each holding one
  needle per depth (depth = tokens between the needle and the question); each needle is asked
  for at the end of its own request, the document being the shared prefix.

What an option changes: the server's KV cache types; for ``window-N`` the slot context is N with
context shift on, and the prompt is what that slot would hold (``options.context_shift``:
llama.cpp refuses a prompt longer than its slot, so the server's own rule is applied by the
client, and ``check_context_shift`` holds the rule against the server); for ``truncate-N`` the
slot context is N and the document's start is cut so prompt and answer fit.
"""

from __future__ import annotations

import math
import random
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tokenpilot.llamafleet import LlamaFleet, LlamaServerSpec
from tokenpilot.tradeoff.options import Option, context_shift
from tokenpilot.tradeoff.probe import Probe, ProbeError, answered
from tokenpilot.tradeoff.texts import needles, paragraphs, pick

ANSWER_TOKENS = 6  # a 4-digit code is 4 tokens (SmolLM2 splits digits) plus a space and a dot
ProgressFn = Callable[[str, str], None]  # (option, phase)


@dataclass(frozen=True)
class SuiteSpec:
    passages: int = 3
    context: int = 48
    reference: int = 16
    greedy: int = 16
    top_k: int = 20
    needle_docs: int = 1
    doc_tokens: int = 640
    depths: tuple[float, ...] = (0.1, 0.45, 0.9)  # as shares of the document, from its end
    seed: int = 0

    @property
    def baseline_ctx(self) -> int:
        """The baseline's slot: a document, its longest question and the answer fit."""
        need = max(self.doc_tokens + 48 + ANSWER_TOKENS, self.context + self.reference + 8,
                   self.context + self.greedy + 8)
        return -(-need // 64) * 64


@dataclass
class NeedleCase:
    depth: int  # tokens between the needle's end and the question
    code: str
    prompt: list[int]  # document + question


@dataclass
class Suite:
    spec: SuiteSpec
    passages: list[tuple[list[int], list[int]]]  # (context, reference)
    needles: list[NeedleCase]


def build_suite(probe: Probe, spec: SuiteSpec) -> Suite:
    rng = random.Random(spec.seed)
    paras = paragraphs()
    need = spec.context + spec.reference
    passages = []
    for text in pick(paras, len(paras), rng):
        toks = probe.tokenize(text)
        if len(toks) >= need:
            passages.append((toks[:spec.context], toks[spec.context:need]))
            if len(passages) == spec.passages:
                break
    used = set(range(len(passages)))
    cases = []
    filler_pool = [p for i, p in enumerate(paras) if i not in used]
    for _ in range(spec.needle_docs):
        filler: list[int] = []
        for text in pick(filler_pool, 60, rng):
            filler += probe.tokenize(" " + text)
            if len(filler) >= spec.doc_tokens:
                break
        n = len(spec.depths)
        ns = needles(n, rng)
        facts = [probe.tokenize(x.fact) for x in ns]
        body = spec.doc_tokens - sum(len(f) for f in facts)
        cuts = sorted(((body - round(d * body)), k) for k, d in enumerate(spec.depths))
        doc: list[int] = []
        pos, where = 0, {}
        for cut, k in cuts:
            doc += filler[pos:cut] + facts[k]
            where[k] = len(doc)
            pos = cut
        doc += filler[pos:body]
        for k, x in enumerate(ns):
            cases.append(NeedleCase(len(doc) - where[k], x.code, doc + probe.tokenize(x.question)))
    cases.sort(key=lambda c: c.depth)
    return Suite(spec, passages, cases)


def prompt_for(option: Option, prompt: list[int], room: int) -> list[int]:
    """The prompt an option's server reads, leaving ``room`` tokens for the answer."""
    if option.window:
        return context_shift(prompt, option.window - room, option.n_keep)
    if option.truncate:
        return prompt[-(option.truncate - room):] if len(prompt) > option.truncate - room \
            else prompt
    return prompt


@dataclass
class OptionRun:
    """What one option's server answered, and its costs as it reported them."""

    option: str
    forced: list[list[Any]] = field(default_factory=list)  # per passage: ForcedToken list
    greedy: list[list[int]] = field(default_factory=list)
    needles: list[dict[str, Any]] = field(default_factory=list)
    kv_log: dict[str, float] = field(default_factory=dict)
    prompt_tps: float = float("nan")
    gen_tps: float = float("nan")
    start_s: float = 0.0
    wall_s: float = 0.0
    shift_check: dict[str, Any] | None = None


def server_spec(option: Option, spec: SuiteSpec, threads: int) -> LlamaServerSpec:
    return LlamaServerSpec(
        slots=1, ctx=option.context or spec.baseline_ctx, threads=threads,
        name=option.name.replace("_", ""), cache_type_k=option.cache_type_k,
        cache_type_v=option.cache_type_v, flash_attn="on", ctx_shift=bool(option.window),
        n_keep=option.n_keep, log_info=True)


KV_LINE = re.compile(r"llama_kv_cache: size = +([\d.]+) MiB \( *(\d+) cells")


def kv_from_log(log: str) -> dict[str, float]:
    """The KV cache llama.cpp allocated, from its own log line: MiB and cells (tokens)."""
    m = KV_LINE.search(log)
    if not m:
        return {}
    mib, cells = float(m.group(1)), int(m.group(2))
    return {"kv_mib": mib, "kv_cells": cells, "kv_bytes_per_token": mib * 2**20 / cells}


def run_option(option: Option, suite: Suite | None, spec: SuiteSpec, model: Path,
               threads: int, progress: ProgressFn, start_timeout: float = 120.0,
               ) -> tuple[OptionRun, Suite]:
    """Start the option's server, read the suite (built here if ``suite`` is None: the
    baseline), stop the server."""
    run = OptionRun(option.name)
    t0 = time.monotonic()
    progress(option.name, "starting llama.cpp")
    fleet = LlamaFleet([server_spec(option, spec, threads)], model=model)
    try:
        fleet.start(timeout=start_timeout)
    except (RuntimeError, TimeoutError) as exc:
        raise ProbeError(f"option {option.name}: the llama.cpp server did not start "
                         f"({_why(str(exc), option)})") from None
    run.start_s = time.monotonic() - t0
    probe = Probe(fleet.urls[0])
    try:
        if suite is None:
            progress(option.name, "building the texts")
            suite = build_suite(probe, spec)
        for k, (ctx, ref) in enumerate(suite.passages):
            progress(option.name, f"passage {k + 1}/{len(suite.passages)}: greedy "
                     f"{spec.greedy} + forced {len(ref)} tokens")
            run.greedy.append(probe.greedy(ctx, spec.greedy))
            run.forced.append(probe.forced(ctx, ref, spec.top_k))
        for k, case in enumerate(suite.needles):
            progress(option.name, f"needle {k + 1}/{len(suite.needles)} at depth {case.depth}")
            prompt = prompt_for(option, case.prompt, ANSWER_TOKENS + 1)
            text = probe.answer(prompt, ANSWER_TOKENS)
            run.needles.append({"depth": case.depth, "code": case.code, "answer": text.strip(),
                                "correct": answered(text, case.code),
                                "prompt_tokens": len(prompt)})
        if option.window:
            progress(option.name, "context shift check")
            # The last needle prompt is in the slot's cache: a prompt that nearly fills the slot
            # costs little, and a short generation then crosses the slot's end.
            last = prompt_for(option, suite.needles[-1].prompt, ANSWER_TOKENS + 1)
            run.shift_check = check_context_shift(probe, option, last[:option.window - 24],
                                                  fleet.servers[0].log_path)
        run.prompt_tps = probe.prefill.prompt_tps
        run.gen_tps = probe.decode.predicted_tps
        run.kv_log = kv_from_log(fleet.servers[0].log_tail(10**6))
    finally:
        probe.close()
        fleet.stop()
    run.wall_s = time.monotonic() - t0
    return run, suite


def _why(text: str, option: Option) -> str:
    last = [ln for ln in text.splitlines() if ln.strip()]
    reason = last[-1].strip() if last else text
    if option.cache_type_v not in ("f16", "bf16", "f32"):
        reason += (f"; a quantized V cache ({option.cache_type_v}) needs flash attention, which "
                   "this llama.cpp build may not support for that type")
    return reason


SHIFT_LINE = re.compile(r"context shift, n_keep = (\d+), n_left = (\d+), n_discard = (\d+)")


def check_context_shift(probe: Probe, option: Option, prompt: list[int],
                        log_path: Path) -> dict[str, Any]:
    """Hold ``options.context_shift`` against the server: generate past the slot's end, then
    ask whether the slot's KV holds exactly the tokens the rule says it keeps.

    The server reports how much of a new prompt it found in the slot's cache (``cache_n``): a
    prompt of the rule's kept tokens must match all but the last (always recomputed). The
    simulator's sliding window would keep the last N tokens instead; how many of those the slot
    still holds is reported beside it."""
    n = option.window
    out = probe.complete(prompt, max(n - len(prompt), 0) + 24, ignore_eos=True,
                         n_keep=option.n_keep)
    gen = list(out.get("tokens") or [])
    stream = prompt + gen[:-1]  # the last generated token is sampled, never decoded
    kept = context_shift(stream, n, option.n_keep)
    again = probe.complete(kept, 1)
    cache_n = int(again.get("timings", {}).get("cache_n", -1))
    shifts = SHIFT_LINE.findall(log_path.read_text(errors="replace"))
    # Positions the rule keeps, against those a sliding window of the last n - 1 keeps.
    pos = set(context_shift(list(range(len(stream))), n, option.n_keep))
    window_pos = set(range(max(len(stream) - (n - 1), 0), len(stream)))
    return {
        "prompt_tokens": len(prompt), "generated": len(gen),
        "tokens_through_slot": len(stream), "rule_kept": len(kept),
        "server_cache_n": cache_n, "matches": cache_n == len(kept) - 1,
        "server_shifts": [{"n_keep": int(a), "n_left": int(b), "n_discard": int(c)}
                          for a, b, c in shifts],
        "truncated": bool(out.get("truncated")),
        "sim_window_kept": len(window_pos),
        "sim_window_positions_held": len(window_pos & pos),
    }


# ---- figures against the baseline -------------------------------------------------------
def kl_lower_bound(p_top: dict[int, float], q_top: dict[int, float]) -> float:
    """KL(baseline || option) over the tokens both top-k lists name plus one bucket for the
    rest of the vocabulary: merging outcomes never raises a KL, so this is a lower bound of the
    full divergence (exactly 0 for identical distributions)."""
    both = [t for t in p_top if t in q_top]
    kl, pm, qm = 0.0, 0.0, 0.0
    for t in both:
        p, q = math.exp(p_top[t]), math.exp(q_top[t])
        kl += p * (p_top[t] - q_top[t])
        pm += p
        qm += q
    pr, qr = max(1.0 - pm, 0.0), max(1.0 - qm, 1e-12)
    if pr > 0:
        kl += pr * math.log(pr / qr)
    return max(kl, 0.0)


def compare(base: OptionRun, run: OptionRun) -> dict[str, Any]:
    """The option's quality figures against the baseline's run on the same suite."""
    lp_b = [t.logprob for ts in base.forced for t in ts]
    lp_o = [t.logprob for ts in run.forced for t in ts]
    mean_b, mean_o = sum(lp_b) / len(lp_b), sum(lp_o) / len(lp_o)
    kls = [kl_lower_bound(b.top, o.top) for bs, os_ in zip(base.forced, run.forced, strict=True)
           for b, o in zip(bs, os_, strict=True)]
    agree, same_pos, total = 0, 0, 0
    for gb, go in zip(base.greedy, run.greedy, strict=True):
        k = 0
        while k < min(len(gb), len(go)) and gb[k] == go[k]:
            k += 1
        agree += k
        same_pos += sum(1 for a, b in zip(gb, go, strict=False) if a == b)
        total += len(gb)
    by_depth: dict[int, list[bool]] = {}
    for nd in run.needles:
        by_depth.setdefault(nd["depth"], []).append(nd["correct"])
    return {
        "loglik_per_token": mean_o, "loglik_per_token_baseline": mean_b,
        "ppl": math.exp(-mean_o), "ppl_ratio": math.exp(mean_b - mean_o),
        "mean_kl": sum(kls) / len(kls), "max_kl": max(kls),
        "greedy_agreement": agree / total if total else float("nan"),
        "greedy_same_position": same_pos / total if total else float("nan"),
        "needle_accuracy": (sum(nd["correct"] for nd in run.needles) / len(run.needles)
                            if run.needles else float("nan")),
        "needle_by_depth": {d: sum(v) / len(v) for d, v in sorted(by_depth.items())},
    }
