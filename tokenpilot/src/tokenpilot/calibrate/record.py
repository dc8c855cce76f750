"""Record a per-request log from a live OpenAI-compatible server (a llama.cpp server here).

Each request is sent open-loop at its arrival time as a streamed ``/v1/completions`` call whose
prompt is plain words (about one token each) and whose ``max_tokens`` is its output length, with
``ignore_eos`` so the server generates exactly that many, and ``cache_prompt`` off so no prompt
reuses a slot's earlier KV. The log keeps what the server reports (``usage``: prompt and output
tokens) and what the client saw: arrival (send time), first token and last token times, on one
``perf_counter`` clock. Bounded: ``len(requests)`` requests, each with ``timeout_s`` at most.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import Callable, Sequence
from typing import Any

import httpx

from tokenpilot.workload.request import Request

_WORDS = ("time people way year day thing man world life hand part child eye woman place work "
         "week case point number group problem fact water room mother area money story month "
         "lot right study book job word business issue side kind head house service friend "
         "father power hour game line end member law car city name team minute idea kid body "
         "back parent face level office door health person art war history party result change "
         "morning reason research girl guy moment air teacher force education")
WORDS = tuple(_WORDS.split())


class RecordError(RuntimeError):
    """A request failed or the server's answer was not what a log needs."""


def prompt_text(tokens: int, seed: int) -> str:
    """About ``tokens`` tokens of plain words, different for every seed (no shared prefix)."""
    rng = random.Random(seed)
    return " ".join(rng.choice(WORDS) for _ in range(max(1, tokens)))


async def _one(client: httpx.AsyncClient, req: Request, t0: float, model: str,
               timeout_s: float) -> dict[str, Any]:
    try:
        return await _send(client, req, t0, model, timeout_s)
    except httpx.HTTPError as exc:
        raise RecordError(f"request {req.id}: {type(exc).__name__}: {exc}") from None


async def _send(client: httpx.AsyncClient, req: Request, t0: float, model: str,
                timeout_s: float) -> dict[str, Any]:
    body = {"model": model, "prompt": prompt_text(req.prompt_tokens, req.id),
            "max_tokens": req.output_tokens, "stream": True,
            "stream_options": {"include_usage": True}, "ignore_eos": True,
            "cache_prompt": False, "temperature": 0, "seed": req.id}
    sent = time.perf_counter()
    first = last = 0.0
    usage: dict[str, Any] = {}
    async with client.stream("POST", "/v1/completions", json=body, timeout=timeout_s) as resp:
        if resp.status_code != 200:
            text = (await resp.aread()).decode(errors="replace")[:200]
            raise RecordError(f"request {req.id}: HTTP {resp.status_code}: {text}")
        async for line in resp.aiter_lines():
            if not line.startswith("data: ") or line == "data: [DONE]":
                continue
            event = json.loads(line[6:])
            now = time.perf_counter()
            if any(c.get("text") for c in event.get("choices") or ()):
                first = first or now
                last = now
            if event.get("usage"):
                usage = event["usage"]
    if not first or not usage:
        raise RecordError(f"request {req.id}: the stream carried no tokens or no usage")
    out = int(usage["completion_tokens"])
    ttft = first - sent
    return {"arrival_s": round(sent - t0, 6), "prompt_tokens": int(usage["prompt_tokens"]),
            "output_tokens": out, "ttft_s": round(ttft, 6),
            "tpot_s": round((last - first) / (out - 1), 6) if out > 1 else 0.0,
            "first_token_s": round(first - t0, 6), "finish_s": round(last - t0, 6)}


async def record(url: str, requests: Sequence[Request], model: str = "smollm2",
                 timeout_s: float = 120.0, warmup: bool = True,
                 on_start: Callable[[float], None] | None = None) -> list[dict[str, Any]]:
    """Send ``requests`` to ``url`` at their arrival times; one log record per request.
    ``on_start`` is told the ``perf_counter`` instant the log's times count from."""
    # No keep-alive: a pooled connection the server has just closed would fail a request.
    limits = httpx.Limits(max_connections=len(requests) + 4, max_keepalive_connections=0)
    async with httpx.AsyncClient(base_url=url, limits=limits) as client:
        if warmup:  # the first request of a fresh server pays one-off costs (allocations)
            await _one(client, Request(-1, 0.0, 16, 4), time.perf_counter(), model, timeout_s)
        t0 = time.perf_counter()
        if on_start is not None:
            on_start(t0)
        tasks = []
        for r in requests:
            delay = t0 + r.arrival - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            tasks.append(asyncio.create_task(_one(client, r, t0, model, timeout_s)))
        return list(await asyncio.gather(*tasks))


def record_log(url: str, requests: Sequence[Request], **kw: Any) -> list[dict[str, Any]]:
    return asyncio.run(record(url, requests, **kw))


PROBE = Request(-2, 0.0, 32, 16)


def probe(url: str, model: str = "smollm2", timeout_s: float = 120.0) -> dict[str, Any]:
    """One request alone on the server (32 prompt words, 16 tokens out): how fast the machine
    is right now. On a shared CPU it drifts between runs; the harness prints it beside each."""
    async def go() -> dict[str, Any]:
        async with httpx.AsyncClient(base_url=url) as client:
            return await _one(client, PROBE, time.perf_counter(), model, timeout_s)

    return asyncio.run(go())


def poisson_requests(n: int, rate: float, prompt: tuple[int, int], output: tuple[int, int],
                     seed: int) -> list[Request]:
    """``n`` Poisson arrivals at ``rate`` req/s, lengths uniform in the given [lo, hi] ranges."""
    rng = random.Random(seed)
    t, out = 0.0, []
    for i in range(n):
        out.append(Request(i, t, rng.randint(*prompt), rng.randint(*output)))
        t += rng.expovariate(rate)
    return out
