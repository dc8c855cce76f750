"""Round-robin vs tokenpilot's size-class router on a real llama.cpp fleet (SmolLM2, CPU).

Three llama.cpp servers (2, 2 and 4 slots; 1024, 1024 and 2048 tokens of context per request)
behind the gateway. The workload mixes many short chat prompts (~30 tokens, 16 out) with a few
prompts near the small servers' context limit (~400 tokens, 8 out). A long prompt's prefill takes
the whole server for a second or more on one CPU thread, so a short request that lands behind it
misses its TTFT. Measured: short-request p50/p99 TTFT and goodput (requests per second that met
their TTFT SLO), for each router on the very same fleet and workload shape.

    python benchmarks/bench_llama_fleet.py [--seconds 12] [--short-rate 2] [--long-every 3]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import time

import httpx

from tokenpilot.config_section import from_mapping
from tokenpilot.gateway.app import create_app
from tokenpilot.gateway.config import GatewayConfig
from tokenpilot.gateway.runner import ServerPool
from tokenpilot.llamafleet import LlamaFleet, LlamaServerSpec, LlamaUnavailable
from tokenpilot.policy import IsolationPolicy, SizeClassRouter, make_router
from tokenpilot.tokenize_gguf import GGUFTokenizer

SPECS = [LlamaServerSpec(2, 1024), LlamaServerSpec(2, 1024), LlamaServerSpec(4, 2048)]
SLO_S = {"short": 1.0, "long": 10.0}
WORDS = "river stone cloud market signal harbor engine garden lantern copper meadow window"
WORDS_LIST = WORDS.split()


def text(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(WORDS_LIST) for _ in range(words))


def workload(seconds: float, short_rate: float, long_every: float, seed: int, salt: int
             ) -> list[tuple[float, str, dict]]:
    """(arrival s, class, body); arrivals from ``seed``, prompt words also from ``salt`` so a
    second run does not hit the first run's prompt cache."""
    times, words = random.Random(seed), random.Random(seed * 1000 + salt)
    out, t = [], 0.0
    while True:
        t += times.expovariate(short_rate)
        if t >= seconds:
            break
        out.append((t, "short", {"messages": [{"role": "user", "content": text(words, 25)}],
                                 "max_tokens": 16}))
    t = long_every / 2
    while t < seconds:
        out.append((t, "long", {"messages": [{"role": "user", "content": text(words, 400)}],
                                "max_tokens": 8}))
        t += long_every
    return sorted(out, key=lambda x: x[0])


async def one(c: httpx.AsyncClient, body: dict) -> tuple[float | None, int, str]:
    t0 = time.perf_counter()
    body = {**body, "stream": True, "temperature": 0, "seed": 1, "ignore_eos": True}
    ttft = None
    try:
        async with c.stream("POST", "/v1/chat/completions", json=body) as r:
            if r.status_code != 200:
                await r.aread()
                return None, r.status_code, ""
            async for line in r.aiter_lines():
                if ttft is None and line.startswith("data: {") and '"content"' in line:
                    ttft = time.perf_counter() - t0
            return ttft, 200, r.headers.get("x-tokenpilot-backend", "")
    except httpx.HTTPError:
        return None, 0, ""


async def run(url: str, work: list) -> list[tuple[str, float | None, int, str]]:
    async with httpx.AsyncClient(base_url=url, timeout=120) as c:
        start = time.perf_counter()

        async def fire(at: float, cls: str, body: dict) -> tuple[str, float | None, int, str]:
            await asyncio.sleep(max(0.0, start + at - time.perf_counter()))
            return (cls, *await one(c, body))

        return await asyncio.gather(*(fire(*w) for w in work))


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")


def summarise(name: str, results: list, seconds: float) -> dict:
    short = [r[1] for r in results if r[0] == "short" and r[1] is not None]
    good = sum(1 for cls, ttft, code, _ in results if code == 200 and ttft is not None
               and ttft <= SLO_S[cls])
    longs_at = sorted({r[3] for r in results if r[0] == "long" and r[3]})
    return {"router": name, "requests": len(results),
            "errors": sum(1 for r in results if r[2] != 200),
            "short_p50_ttft_s": round(pct(short, 0.5), 3),
            "short_p99_ttft_s": round(pct(short, 0.99), 3),
            "goodput_rps": round(good / seconds, 2), "met_slo": good,
            "long_went_to": longs_at}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=12.0)
    ap.add_argument("--short-rate", type=float, default=2.0, help="short requests per second")
    ap.add_argument("--long-every", type=float, default=3.0, help="seconds between long ones")
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    try:
        fleet = LlamaFleet(SPECS)
    except LlamaUnavailable as exc:
        print(f"skipped: {exc}", file=sys.stderr)
        return 0
    tok = GGUFTokenizer(fleet.model)
    routers = {
        "round-robin": make_router("round-robin"),
        "size-class(earliest-completion)": SizeClassRouter(
            make_router("earliest-completion"), IsolationPolicy(long_threshold=256)),
    }
    rows = []
    with fleet, ServerPool() as pool:
        print(f"fleet: {[s.name for s in fleet.servers]}", file=sys.stderr)
        for salt, (name, router) in enumerate(routers.items()):
            cfg = from_mapping(GatewayConfig, {"backends": fleet.backend_configs(),
                                               "tokenizer": str(fleet.model),
                                               "health": {"interval_ms": 200}}, "gateway config")
            gw = pool.start(create_app(cfg, router))
            work = workload(args.seconds, args.short_rate, args.long_every, args.seed, salt)
            longs = [b for _, c, b in work if c == "long"]
            print(f"{name}: {len(work)} requests, {len(longs)} long of ~"
                  f"{tok.count_chat(longs[0]['messages']) if longs else 0} tokens",
                  file=sys.stderr)
            rows.append(summarise(name, asyncio.run(run(gw.url, work)), args.seconds))
            print(json.dumps(rows[-1]), flush=True)
            pool.stop(gw)
            time.sleep(1.0)  # let the servers drain before the next router
    return 0


if __name__ == "__main__":
    sys.exit(main())
