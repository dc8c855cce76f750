"""The audit's figures from ``Call`` records: where the tokens go, what they cost, how much of
each prompt repeats and a prefix cache reuses, what oversized inputs and what-ifs would save.

Definitions (the tests compute each by hand on constructed transcripts):

- **parts**: each prompt segment's tokens under its part (``parts``); a backend-reported prompt
  count above the segments' sum is ``template`` (chat template, framing); below it the
  segments are scaled down to it. Output tokens are ``output``.
- **cost**: each request priced by the cost model ``tokenpilot cost`` uses
  (``estimate_request`` at ``batch``): prefill seconds for the whole prompt, decode seconds for
  the output; money is the instance's price for that time (decode at a 1/batch share). A
  part's prefill money is the request's prefill money times its share of the prompt tokens.
- **repetition**: tokens of a request's prompt in segments equal (by hash) to a segment of the
  previous request of its conversation.
- **prefix-cache reuse**: the longest common prefix with the previous request's prompt (equal
  segments, then the equal leading characters of the first differing one; for a hashed log,
  or the leading equal 512-token blocks), floored to whole cache blocks of ``cache_block``
  tokens and at most the prompt less one token. The first differing segment is where reuse
  *breaks*; *moving* its changing lines (those absent from the other version) to the end of
  the prompt gives the reuse a stable block would get, and the prefill time saved.
- **oversized**: a document or tool result over ``oversize`` tokens, counted once per prompt
  it is in; sent as the top ``top_k`` of its ``ceil(t / chunk)`` chunks of ``chunk`` tokens it
  would be ``min(t, top_k * chunk)`` tokens; as a summary, ``min(t, summary)``.
- **what-ifs**: history capped at ``history_turns`` turns (system prompt, tools and the first
  user message kept; a turn is an assistant message and what follows it up to the next
  assistant message); documents capped at ``doc_cap`` tokens; the changing block moved to the
  end (prefix cache). Savings are tokens, seconds and money per run, whole prompts prefilled
  (no prefix cache) except for the move.
"""

from __future__ import annotations

import math
from collections import Counter as Tally
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tokenpilot.audit.parts import PROMPT_PARTS, digest
from tokenpilot.audit.read import Call, Segment
from tokenpilot.costmodel import decode_seconds, estimate_request

# "template": a backend's count above the segments' (chat template, framing); "unlogged": the
# prompt of a request logged without its body (``bodies: false``).
PARTS_WITH_TEMPLATE = (*PROMPT_PARTS, "template", "unlogged")


@dataclass(frozen=True)
class Options:
    batch: int = 1
    cache_block: int = 16
    oversize: int = 2000
    top_k: int = 4
    chunk: int = 512
    summary: int = 256
    history_turns: int = 8
    doc_cap: int = 1000


@dataclass(frozen=True)
class Price:
    """One request's cost: seconds and money per phase, and the bound each phase hits."""

    prefill_s: float
    decode_s: float
    prefill_usd: float | None
    decode_usd: float | None
    prefill_bound: str
    decode_bound: str


class Pricer:
    """Prices requests with one cost model per model name (``None``: the model is unknown or
    does not fit; said once, by ``problem``)."""

    def __init__(self, make: Callable[[str], Any], batch: int,
                 problem: Callable[[str, str], None]) -> None:
        self.make = make  # model name -> CostModel (raises ValueError/KeyError with a reason)
        self.batch = batch
        self.problem = problem
        self._cms: dict[str, Any] = {}
        self._prices: dict[tuple[str, int, int], Price] = {}
        self._prefill: dict[tuple[str, int, int], float] = {}
        self.unpriced: Tally[str] = Tally()

    def model(self, name: str | None, where: str) -> Any:
        key = name or ""
        if key not in self._cms:
            try:
                self._cms[key] = self.make(key)
            except (KeyError, ValueError) as e:
                why = e.args[0] if isinstance(e, KeyError) and e.args else e
                self.problem("model", f"{where}: {why}; its requests are audited for tokens, "
                             "not priced (pass --model)")
                self._cms[key] = None
        cm = self._cms[key]
        if cm is None:
            self.unpriced[key] += 1
        return cm

    def price(self, name: str, cm: Any, prompt: int, output: int) -> Price:
        key = (name, prompt, output)
        p = self._prices.get(key)
        if p is None:
            rc = estimate_request(cm, max(1, prompt), max(1, output), self.batch)
            decode = rc.total_s - rc.prefill_s
            per_s = rc.price_per_hour / 3600 if rc.price_per_hour is not None else None
            p = self._prices[key] = Price(
                rc.prefill_s, decode, per_s * rc.prefill_s if per_s is not None else None,
                per_s * decode / self.batch if per_s is not None else None,
                rc.prefill_bound, rc.decode_bound)
        return p

    def prefill(self, name: str, cm: Any, prompt: int, cached: int) -> float:
        """Prefill seconds of ``prompt`` tokens of which the first ``cached`` are cached."""
        key = (name, prompt, cached)
        t = self._prefill.get(key)
        if t is None:
            # ``prefill_time``'s value, without building the iteration's report.
            t = self._prefill[key] = cm.iteration_time([(max(1, prompt - cached), cached)])
        return t

    def phases(self, name: str, cm: Any, prompt: int, output: int) -> tuple[float, float]:
        """(prefill, decode) seconds of a request, as ``price`` has them, without the bounds
        (the what-ifs price many shortened prompts)."""
        prompt = max(1, prompt)
        return (self.prefill(name, cm, prompt, 0),
                decode_seconds(cm, prompt, max(1, output), self.batch))

    @staticmethod
    def per_second(cm: Any) -> float | None:
        p = cm.gpu.price_per_hour
        return p * cm.tp / 3600 if p is not None else None


@dataclass
class Break:
    """Where a request's prefix-cache reuse ends: segment ``index`` of its prompt."""

    index: int
    message: int | None  # its 1-based number among the messages (None: the tool definitions)
    role: str
    part: str
    line: int | None  # 1-based line of that segment's text where it first differs
    text: str  # that line (shortened), or ""


@dataclass
class Row:
    """One request's figures."""

    call: Call
    parts: dict[str, float]
    repeated: int = 0
    reuse: int = 0
    reuse_moved: int = 0
    brk: Break | None = None
    prev: bool = False  # an earlier request of its conversation exists
    price: Price | None = None
    usd_per_s: float | None = None  # the instance's price per second
    prefill_cached_s: float | None = None
    move_saved_s: float = 0.0
    oversized: list[Segment] = field(default_factory=list)
    history_cut: int = 0
    doc_cut: int = 0


def common_prefix(a: list[Segment], b: list[Segment],
                  count: Callable[[str], int]) -> tuple[int, Break | None, int]:
    """Tokens of ``b``'s prompt equal to the start of ``a``'s, where they stop being, and the
    tokens of the whole segments among them."""
    tok = 0
    for k, (x, y) in enumerate(zip(a, b, strict=False)):
        if x is y or x.hash == y.hash:
            tok += y.tokens
            continue
        whole = tok
        line, shown = None, ""
        if x.text is not None and y.text is not None:
            cp = _common_chars(x.text, y.text)
            tok += count(y.text[:cp]) if cp else 0
            line = y.text.count("\n", 0, cp) + 1
            shown = y.text.split("\n")[line - 1][:80]
        tools = 1 if b and b[0].part == "tools" else 0
        return tok, Break(k, None if k < tools else k - tools + 1, y.role, y.part, line,
                          shown), whole
    return tok, None, tok


def _common_chars(x: str, y: str) -> int:
    n = min(len(x), len(y))
    lo, hi = 0, n  # binary search on prefix equality: fast on long equal heads
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if x[:mid] == y[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _moved(a: list[Segment], b: list[Segment], k: int,
           count: Callable[[str], int]) -> tuple[list[Segment], list[Segment]]:
    """``a`` and ``b`` with the lines of their segment ``k`` that differ between the two
    taken out (moved to the end of the prompt, where they no longer break the prefix); a
    hashed segment (no text) is taken as stable."""
    x, y = a[k], b[k]
    if x.text is None or y.text is None:
        return a, [*b[:k], x, *b[k + 1:]]
    la, lb = x.text.split("\n"), y.text.split("\n")
    sa, sb = set(la), set(lb)
    ta = "\n".join(s for s in la if s in sb)
    tb = "\n".join(s for s in lb if s in sa)

    def seg(s: Segment, t: str) -> Segment:
        return Segment(s.part, s.role, count(t), digest(f"{s.role}\0{t}"), t)

    return [*a[:k], seg(x, ta), *a[k + 1:]], [*b[:k], seg(y, tb), *b[k + 1:]]


def _floor(tokens: int, prompt: int, block: int) -> int:
    return min(tokens // block * block, (prompt - 1) // block * block)


def _block_prefix(a: Call, b: Call) -> int:
    if not a.blocks or not b.blocks:
        return 0
    n = 0
    for x, y in zip(a.blocks, b.blocks, strict=False):
        if x != y:
            break
        n += 1
    return n * b.block_tokens


def analyze(calls: list[Call], pricer: Pricer | None, count: Callable[[str], int],
            opt: Options) -> list[Row]:
    """The per-request figures, in the calls' order."""
    rows: list[Row] = []
    last: dict[str, Call] = {}
    cms: dict[str | None, Any] = {}
    for c in calls:
        segs = c.segments
        parts = dict.fromkeys(PARTS_WITH_TEMPLATE, 0.0)
        counted = doc_cut = 0
        oversized = []
        assistants = []
        over, cap = opt.oversize, opt.doc_cap
        lim = min(over, cap)
        for i, s in enumerate(segs):  # one pass: it runs for every message of every request
            t, part = s.tokens, s.part
            counted += t
            parts[part] += t
            if s.role == "assistant":
                assistants.append(i)
            if t > lim:
                if t > over and part in ("documents", "tool_results"):
                    oversized.append(s)
                if t > cap and part == "documents":
                    doc_cut += t - cap
        if counted > c.prompt_tokens:
            scale = c.prompt_tokens / counted
            for k in PROMPT_PARTS:
                parts[k] *= scale
        parts["template" if segs else "unlogged"] = float(max(0, c.prompt_tokens - counted))
        parts["output"] = float(c.output_tokens)
        row = Row(c, parts, oversized=oversized, doc_cut=doc_cut)
        prev = last.get(c.run)
        last[c.run] = c
        if prev is not None and segs:
            row.prev = True
            tok, brk, whole = common_prefix(prev.segments, segs, count)
            # Repeated: the equal leading segments, and any later one the previous prompt had.
            k = brk.index if brk is not None else len(segs)
            rest = {s.hash for s in prev.segments[k:]}
            row.repeated = whole + (sum(s.tokens for s in segs[k:] if s.hash in rest)
                                    if rest else 0)
            if brk is not None:
                tok = max(tok, _block_prefix(prev, c))
            row.reuse = _floor(tok, c.prompt_tokens, opt.cache_block)
            row.brk = brk
            row.reuse_moved = row.reuse
            if brk is not None and brk.index < len(prev.segments):
                ma, mb = _moved(prev.segments, segs, brk.index, count)
                moved = common_prefix(ma, mb, count)[0]
                row.reuse_moved = max(row.reuse, _floor(moved, c.prompt_tokens,
                                                        opt.cache_block))
        if len(assistants) > opt.history_turns:
            row.history_cut = _history_cut(segs, assistants, opt.history_turns)
        if pricer is not None:
            if c.model not in cms:
                cms[c.model] = pricer.model(c.model, c.where)
            cm = cms[c.model]
            if cm is not None:
                name = c.model or ""
                row.price = pricer.price(name, cm, c.prompt_tokens, c.output_tokens)
                row.usd_per_s = pricer.per_second(cm)
                row.prefill_cached_s = pricer.prefill(name, cm, c.prompt_tokens, row.reuse)
                if row.reuse_moved > row.reuse:
                    row.move_saved_s = row.prefill_cached_s - pricer.prefill(
                        name, cm, c.prompt_tokens, row.reuse_moved)
            else:
                cms[c.model] = None
        rows.append(row)
    return rows


def _history_cut(segs: list[Segment], starts: list[int], turns: int) -> int:
    """Tokens dropped by keeping only the last ``turns`` turns (module doc) of a prompt whose
    assistant messages are at ``starts``."""
    if len(starts) <= turns:
        return 0
    cut = starts[-turns] if turns else len(segs)
    first_user = next((i for i, s in enumerate(segs) if s.role == "user"), -1)
    return sum(s.tokens for i, s in enumerate(segs[:cut])
               if s.part not in ("system", "tools") and i != first_user)


def oversize_savings(seg_tokens: int, opt: Options) -> tuple[int, int, int]:
    """(chunks N, tokens saved as the top-k of N chunks, tokens saved as a summary)."""
    n = math.ceil(seg_tokens / opt.chunk)
    return (n, seg_tokens - min(seg_tokens, opt.top_k * opt.chunk),
            seg_tokens - min(seg_tokens, opt.summary))
