"""``tokenpilot bench``: an open-loop load generator for any OpenAI-compatible endpoint.

Each workload request is sent at its arrival time (divided by ``rate_scale``) whatever is still
in flight, as a streamed chat completion whose prompt text counts as the request's prompt tokens
(~4 characters per token, shared prefixes as shared text) and whose ``max_tokens`` is its
output tokens. Per request it records TTFT (first content chunk), TPOT, end-to-end latency,
tokens (from the final ``usage``) and errors. Always bounded: by ``max_requests`` and by
``duration`` (launching stops then; stragglers get ``timeout_s`` more at most).
"""

from __future__ import annotations

import asyncio
import json
import math
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field

from tokenpilot.gateway.text import synthetic_prompt
from tokenpilot.gateway.wire import WireClient
from tokenpilot.workload.request import Request

SHORT_PROMPT_TOKENS = 1024  # "short requests" in the summary: prompts up to this size


@dataclass
class Record:
    id: int
    tenant: str
    prompt_tokens: int
    max_tokens: int
    scheduled_s: float  # when it was due, from the start of the run
    status: int = 0  # HTTP status; 0: no response
    ttft_s: float = -1.0
    tpot_s: float = -1.0
    e2e_s: float = -1.0
    completion_tokens: int = 0
    backend: str = ""
    error: str = ""

    @property
    def ok(self) -> bool:
        return self.status == 200 and not self.error


@dataclass
class BenchResult:
    target: str
    wall_s: float
    records: list[Record] = field(default_factory=list)
    interrupted: bool = False  # Ctrl-C: the records are what was measured until then

    def summary(self, ttft_slo_s: float = 1.0, tpot_slo_s: float = 0.1) -> dict:
        return summarize(self.records, self.wall_s, ttft_slo_s, tpot_slo_s)

    def to_dict(self) -> dict:
        return {"target": self.target, "wall_s": self.wall_s, "summary": self.summary(),
                "requests": [asdict(r) for r in self.records]}


def pct(values: Sequence[float], q: float) -> float:
    """The q-th percentile (nearest rank); NaN for no values."""
    if not values:
        return math.nan
    s = sorted(values)
    return s[min(len(s) - 1, max(0, math.ceil(q / 100 * len(s)) - 1))]


def summarize(records: Sequence[Record], wall_s: float, ttft_slo_s: float = 1.0,
              tpot_slo_s: float = 0.1) -> dict:
    ok = [r for r in records if r.ok]
    good = [r for r in ok if r.ttft_s <= ttft_slo_s and r.tpot_s <= tpot_slo_s]
    short = [r.ttft_s for r in ok if r.prompt_tokens <= SHORT_PROMPT_TOKENS]
    ttft = [r.ttft_s for r in ok]
    tpot = [r.tpot_s for r in ok if r.tpot_s >= 0]
    e2e = [r.e2e_s for r in ok]
    wall = max(wall_s, 1e-9)
    # Rates over the arrival window, as the simulator's (tokenpilot.cluster.metrics): the
    # share served times the offered rate, so stragglers in the drain tail do not dilute them.
    due = [r.scheduled_s for r in records]
    window = max(due) - min(due) if len(due) > 1 else 0.0
    per_s = (len(due) - 1) / window / len(due) if window > 0 else 1.0 / wall
    return {
        "requests": len(records), "ok": len(ok),
        "by_status": dict(sorted(Counter(str(r.status) for r in records).items())),
        "errors": sum(1 for r in records if r.error),
        "first_error": _first_errors(records),
        "throughput_rps": len(ok) * per_s,
        "goodput_rps": len(good) * per_s,
        "arrival_window_s": window,
        "throughput_wall_rps": len(ok) / wall,
        "goodput_wall_rps": len(good) / wall,
        "slo": {"ttft_s": ttft_slo_s, "tpot_s": tpot_slo_s},
        "output_tokens_per_s": sum(r.completion_tokens for r in ok) * per_s,
        "ttft_p50_s": pct(ttft, 50), "ttft_p99_s": pct(ttft, 99),
        "short_ttft_p50_s": pct(short, 50), "short_ttft_p99_s": pct(short, 99),
        "tpot_p50_s": pct(tpot, 50), "tpot_p99_s": pct(tpot, 99),
        "e2e_p50_s": pct(e2e, 50), "e2e_p99_s": pct(e2e, 99),
        "wall_s": wall_s,
    }


def _first_errors(records: Sequence[Record]) -> dict[str, str]:
    """The first error message seen for each failing HTTP status (0: no response)."""
    out: dict[str, str] = {}
    for r in records:
        if r.error:
            out.setdefault(str(r.status), r.error)
    return dict(sorted(out.items()))


# What a user can do about each failing status; the bench prints it beside the count.
HINTS = {
    "0": "no response: is the target up, and --timeout long enough?",
    "401": "the target wants an API key: pass --api-key KEY (or set TOKENPILOT_API_KEY)",
    "403": "the API key is not allowed here: check --api-key",
    "404": "check --target (a base URL such as http://127.0.0.1:8080, without /v1) and --model",
    "413": "prompts too large for the target: use a workload with shorter prompts",
    "415": "the target wants another Content-Type",
    "429": "the target rate-limits: lower --rate-scale or raise the tenant's limits",
    "502": "the target's upstream failed; see its logs",
    "503": "the target has no healthy backend (or is overloaded); see its logs",
    # Any other status of the class: what status[0] + "xx" looks up.
    "4xx": "the target refused the requests; see the message",
    "5xx": "the target failed; see its logs",
}


def verdict(summary: dict, max_error_rate: float) -> str | None:
    """Why the run should exit non-zero (None: it should not): no request succeeded, or the
    share of failed requests is above ``max_error_rate``."""
    n, errors = summary["requests"], summary["errors"]
    if n and not summary["ok"]:
        return f"no request succeeded ({n} sent)"
    if n and errors / n > max_error_rate:
        return (f"{errors} of {n} requests failed ({errors / n:.1%}), above --max-error-rate "
                f"{max_error_rate:g}")
    return None


async def _one(client: WireClient, rec: Record, body: bytes, headers: dict[str, str]) -> None:
    start = time.perf_counter()
    first = last = 0.0
    try:
        resp = await client.request("POST", "/v1/chat/completions", body, headers)
        rec.status = resp.status
        rec.backend = resp.headers.get("x-tokenpilot-backend", "")
        if resp.status != 200:
            err = await resp.read()
            rec.error = _error_message(err, resp.status)
            return
        tail = b""
        async for chunk in resp.iter_chunks():
            now = time.perf_counter()
            if not first and _has_token(chunk):
                first = now
            last = now
            window = tail + chunk
            cut = window.rfind(b"\n\n")
            if cut >= 0:
                done, tail = window[:cut], window[cut + 2:]
                if b'"usage":{' in done:
                    rec.completion_tokens = _usage(done)
                if b'"error"' in done:
                    rec.error = _error_message(done.split(b"data: ")[-1], 200)
            else:
                tail = window
    except (TimeoutError, OSError) as exc:
        rec.error = f"{type(exc).__name__}: {exc}"
        return
    end = time.perf_counter()
    rec.e2e_s = end - start
    if first:
        rec.ttft_s = first - start
        n = rec.completion_tokens
        rec.tpot_s = (last - first) / (n - 1) if n > 1 else 0.0
    elif not rec.error:
        rec.error = "the stream carried no tokens"


def _has_token(chunk: bytes) -> bool:
    """Does the chunk carry generated text (not just the role, or an empty first delta)?"""
    stripped = chunk.replace(b'"content":""', b"").replace(b'"text":""', b"")
    return b'"content":"' in stripped or b'"text":"' in stripped


def _usage(events: bytes) -> int:
    for event in events.split(b"\n\n"):
        if b'"usage":{' in event:
            try:
                return int(json.loads(event[event.find(b"{"):])["usage"]["completion_tokens"])
            except (ValueError, KeyError, TypeError):
                return 0
    return 0


def _error_message(raw: bytes, status: int) -> str:
    try:
        return str(json.loads(raw[raw.find(b"{"):])["error"]["message"])[:200]
    except (ValueError, KeyError, TypeError):
        return f"HTTP {status}"


async def replay(target: str, requests: Sequence[Request], *, model: str | None = None,
                 rate_scale: float = 1.0, duration_s: float = 60.0, max_requests: int = 1000,
                 api_key: str | None = None, timeout_s: float = 60.0,
                 max_connections: int = 1024,
                 progress: Callable[[int, int], None] | None = None) -> BenchResult:
    """Replay ``requests`` open-loop against ``target`` (a base URL); ``progress(sent,
    total)`` after each request is sent. Cancelled (Ctrl-C), it returns what it measured so
    far, ``interrupted`` set, the unanswered requests marked."""
    if rate_scale <= 0:
        raise ValueError(f"rate_scale must be positive, got {rate_scale}")
    todo = [r for r in requests[:max_requests] if r.arrival / rate_scale <= duration_s]
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    post_headers = {**headers, "Content-Type": "application/json"}
    async with WireClient(target, max_connections, timeout_s) as client:
        if model is None:
            resp = await client.request("GET", "/v1/models", None, headers)
            data = await resp.json() if resp.status == 200 else {}
            ids = [m.get("id") for m in data.get("data") or []]
            if not ids:
                raise OSError(f"{target}/v1/models lists no model (HTTP {resp.status}); "
                              "pass --model")
            model = ids[0]
        t0 = time.perf_counter()
        tasks: list[asyncio.Task] = []
        records: list[Record] = []
        pending: set[asyncio.Task] = set()
        interrupted = False
        why = f"no answer within {timeout_s:g} s"
        try:
            for k, r in enumerate(todo):
                due = t0 + r.arrival / rate_scale
                delay = due - time.perf_counter()
                if delay > 0:
                    await asyncio.sleep(delay)
                rec = Record(r.id, r.tenant, r.prompt_tokens, r.output_tokens,
                             r.arrival / rate_scale)
                text = synthetic_prompt(r.prompt_tokens, r.prefix_hashes, r.prefix_block_tokens)
                body = json.dumps({"model": model,
                                   "messages": [{"role": "user", "content": text}],
                                   "max_tokens": r.output_tokens, "stream": True,
                                   "stream_options": {"include_usage": True}}).encode()
                records.append(rec)
                tasks.append(asyncio.create_task(_one(client, rec, body, post_headers)))
                if progress is not None:
                    progress(k + 1, len(todo))
            if tasks:
                _, pending = await asyncio.wait(tasks, timeout=timeout_s)
        except asyncio.CancelledError:  # Ctrl-C: keep what was measured so far
            interrupted, why = True, "interrupted before its answer"
            pending = {t for t in tasks if not t.done()}
        for t in pending:
            t.cancel()
        for rec, t in zip(records, tasks, strict=True):
            if t in pending:
                rec.error = why
        await asyncio.gather(*pending, return_exceptions=True)
        wall = time.perf_counter() - t0
    return BenchResult(target, wall, records, interrupted)


def render(summary: dict, title: str = "") -> str:
    s = summary
    ms = lambda x: "n/a" if x != x else f"{x * 1e3:.1f} ms"  # noqa: E731 - NaN-safe
    lines = [title] if title else []
    lines += [
        f"requests      {s['requests']}  ok {s['ok']}  errors {s['errors']}",
        f"throughput    {s['throughput_rps']:.2f} req/s   goodput {s['goodput_rps']:.2f} req/s "
        f"(TTFT <= {s['slo']['ttft_s']:g} s, TPOT <= {s['slo']['tpot_s']:g} s)",
        f"              over the {s['arrival_window_s']:.1f} s arrival window; over the "
        f"{s['wall_s']:.1f} s run (drain included): {s['throughput_wall_rps']:.2f} and "
        f"{s['goodput_wall_rps']:.2f} req/s",
        f"tokens out    {s['output_tokens_per_s']:.0f} tok/s",
        f"TTFT          p50 {ms(s['ttft_p50_s'])}  p99 {ms(s['ttft_p99_s'])}  "
        f"short p99 {ms(s['short_ttft_p99_s'])}",
        f"TPOT          p50 {ms(s['tpot_p50_s'])}  p99 {ms(s['tpot_p99_s'])}",
        f"end-to-end    p50 {ms(s['e2e_p50_s'])}  p99 {ms(s['e2e_p99_s'])}",
        "",
        status_table(s),
    ]
    return "\n".join(lines)


def status_table(s: dict) -> str:
    """Responses by HTTP status, with the first error of each failing one and what to do."""
    n = max(s["requests"], 1)
    rows = [("status", "requests", "share", "first error / what to do")]
    for status, count in s["by_status"].items():
        note = ""
        if status in s["first_error"]:
            note = s["first_error"][status][:90]
            hint = HINTS.get(status) or HINTS.get(status[0] + "xx", "")
            note += f" -> {hint}" if hint else ""
        rows.append((status if status != "0" else "none", str(count), f"{count / n:.0%}", note))
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    return "\n".join(f"{r[0]:<{widths[0]}}  {r[1]:>{widths[1]}}  {r[2]:>{widths[2]}}  {r[3]}"
                     .rstrip() for r in rows)
