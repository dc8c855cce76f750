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
from collections.abc import Sequence
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
    return {
        "requests": len(records), "ok": len(ok),
        "by_status": dict(sorted(Counter(str(r.status) for r in records).items())),
        "errors": sum(1 for r in records if r.error),
        "throughput_rps": len(ok) / wall,
        "goodput_rps": len(good) / wall,
        "slo": {"ttft_s": ttft_slo_s, "tpot_s": tpot_slo_s},
        "output_tokens_per_s": sum(r.completion_tokens for r in ok) / wall,
        "ttft_p50_s": pct(ttft, 50), "ttft_p99_s": pct(ttft, 99),
        "short_ttft_p99_s": pct(short, 99),
        "tpot_p50_s": pct(tpot, 50), "tpot_p99_s": pct(tpot, 99),
        "e2e_p50_s": pct(e2e, 50), "e2e_p99_s": pct(e2e, 99),
        "wall_s": wall_s,
    }


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
                 max_connections: int = 1024) -> BenchResult:
    """Replay ``requests`` open-loop against ``target`` (a base URL)."""
    if rate_scale <= 0:
        raise ValueError(f"rate_scale must be positive, got {rate_scale}")
    todo = [r for r in requests[:max_requests] if r.arrival / rate_scale <= duration_s]
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
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
        tasks, records = [], []
        for r in todo:
            due = t0 + r.arrival / rate_scale
            delay = due - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            rec = Record(r.id, r.tenant, r.prompt_tokens, r.output_tokens, r.arrival / rate_scale)
            text = synthetic_prompt(r.prompt_tokens, r.prefix_hashes, r.prefix_block_tokens)
            body = json.dumps({"model": model, "messages": [{"role": "user", "content": text}],
                               "max_tokens": r.output_tokens, "stream": True,
                               "stream_options": {"include_usage": True}}).encode()
            records.append(rec)
            tasks.append(asyncio.create_task(_one(client, rec, body, headers)))
        if tasks:
            _, pending = await asyncio.wait(tasks, timeout=timeout_s)
            for t in pending:
                t.cancel()
            for rec, t in zip(records, tasks, strict=True):
                if t in pending:
                    rec.error = f"no answer within {timeout_s:g} s"
            await asyncio.gather(*pending, return_exceptions=True)
        wall = time.perf_counter() - t0
    return BenchResult(target, wall, records)


def render(summary: dict, title: str = "") -> str:
    s = summary
    ms = lambda x: "n/a" if x != x else f"{x * 1e3:.1f} ms"  # noqa: E731 - NaN-safe
    lines = [title] if title else []
    lines += [
        f"requests      {s['requests']}  ok {s['ok']}  by status {s['by_status']}  "
        f"errors {s['errors']}",
        f"throughput    {s['throughput_rps']:.2f} req/s   goodput {s['goodput_rps']:.2f} req/s "
        f"(TTFT <= {s['slo']['ttft_s']:g} s, TPOT <= {s['slo']['tpot_s']:g} s)",
        f"tokens out    {s['output_tokens_per_s']:.0f} tok/s",
        f"TTFT          p50 {ms(s['ttft_p50_s'])}  p99 {ms(s['ttft_p99_s'])}  "
        f"short p99 {ms(s['short_ttft_p99_s'])}",
        f"TPOT          p50 {ms(s['tpot_p50_s'])}  p99 {ms(s['tpot_p99_s'])}",
        f"end-to-end    p50 {ms(s['e2e_p50_s'])}  p99 {ms(s['e2e_p99_s'])}",
    ]
    return "\n".join(lines)
