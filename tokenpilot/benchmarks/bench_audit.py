"""``tokenpilot audit``'s speed target: 100,000 logged requests audited in under 30 s.

1. A gateway request log (``log: {bodies: hashed}``) of ``--n`` requests: ``--n / 10`` agent
   conversations of 10 turns each, interleaved in time as a day of traffic is, each turn
   resending the whole conversation (system prompt, tools, a user task, then an assistant
   message and a tool result per turn); a third of the conversations carry a clock in their
   system prompt, so it changes every turn. Records have the gateway's keys (the
   ``accesslog.RequestLog`` layout: access-log fields, per-message rows, 512-token block
   hashes).
2. JSON lines of OpenAI request bodies (text, counted here at ~4 chars/token) for
   ``--n-bodies`` requests of the same shape.

Each is timed as the command a user runs (``python -m tokenpilot.cli audit FILE --format
json``, a process of its own, import time included). The machine may be shared: a calibration
figure (seconds for a fixed pure-Python loop; lower is a faster or less loaded machine) is
printed before and after.

    python benchmarks/bench_audit.py [--n 100000] [--n-bodies 20000]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
import timeit
from pathlib import Path

TARGET_S = 30.0
TURNS = 10
MODEL = "llama-3.1-8b"


def calibration() -> float:
    """Seconds for 1M steps of an empty Python loop: the machine's speed just now."""
    return min(timeit.repeat("for i in range(10): pass", number=100000, repeat=5))


def _h(rng: random.Random) -> str:
    return f"{rng.getrandbits(64):016x}"


def write_log(path: Path, n: int, seed: int = 1) -> int:
    """``n`` request-log records (hashed bodies); returns the file's size in bytes."""
    rng = random.Random(seed)
    convs = []
    for c in range(max(1, n // TURNS)):
        clock = c % 3 == 0
        sys_tokens = rng.randint(300, 3000)
        convs.append({"tenant": f"t{c % 7}", "sys": _h(rng), "sys_tokens": sys_tokens,
                      "clock": clock, "tools": _h(rng), "tool_tokens": rng.randint(100, 900),
                      "user": _h(rng), "user_tokens": rng.randint(20, 3000), "rows": [],
                      "blocks": [_h(rng)[:12] for _ in range(40)], "turn": 0})
    order = [c for c in range(len(convs)) for _ in range(TURNS)][:n]
    rng.shuffle(order)
    # Keep each conversation's turns in order: the k-th time conversation c comes up is its
    # turn k (the shuffle only interleaves conversations).
    t = 0.0
    with open(path, "w", encoding="utf-8") as f:
        for c in order:
            cv = convs[c]
            t += rng.expovariate(1.2)
            sys_hash = _h(rng) if cv["clock"] else cv["sys"]
            rows = [{"role": "system", "part": "system", "tokens": cv["sys_tokens"],
                     "chars": cv["sys_tokens"] * 4, "hash": sys_hash},
                    {"role": "user", "part": "documents" if cv["user_tokens"] >= 1000
                     else "history", "tokens": cv["user_tokens"],
                     "chars": cv["user_tokens"] * 4, "hash": cv["user"]}, *cv["rows"]]
            prompt = cv["tool_tokens"] + sum(r["tokens"] for r in rows) + 5 * len(rows)
            out = rng.randint(10, 400)
            nblocks = min(len(cv["blocks"]), prompt // 512)
            blocks = cv["blocks"][:nblocks] if not cv["clock"] else [
                _h(rng)[:12] for _ in range(nblocks)]
            rec = {"ts": round(1.8e9 + t, 3), "arrival_s": t, "method": "POST",
                   "path": "/v1/chat/completions", "status": 200, "reason": "success",
                   "tenant": cv["tenant"], "model": MODEL, "backend": f"h100-{c % 4}",
                   "stream": True, "prompt_tokens": prompt, "output_tokens": out,
                   "cached_tokens": 0 if cv["clock"] else (nblocks * 512 if cv["turn"] else 0),
                   "ttft_s": 0.05 + prompt / 2e5, "tpot_s": 0.012, "latency_s": 0.05 + out * 0.012,
                   "tools": {"n": 6, "tokens": cv["tool_tokens"], "chars": cv["tool_tokens"] * 4,
                             "hash": cv["tools"]},
                   "messages": rows, "block_tokens": 512, "blocks": blocks}
            f.write(json.dumps(rec, separators=(",", ":")) + "\n")
            result = rng.randint(50, 4000)
            cv["rows"] += [{"role": "assistant", "part": "history", "tokens": out,
                            "chars": out * 4, "hash": _h(rng)},
                           {"role": "tool", "part": "tool_results", "tokens": result,
                            "chars": result * 4, "hash": _h(rng)}]
            cv["turn"] += 1
    return path.stat().st_size


def write_bodies(path: Path, n: int, seed: int = 2) -> int:
    """``n`` OpenAI request bodies (with text) of agent conversations; the file's size."""
    rng = random.Random(seed)
    words = [f"w{i}" for i in range(500)]

    def text(tokens: int) -> str:
        return " ".join(rng.choice(words) for _ in range(max(1, tokens * 4 // 4)))[:tokens * 4]

    with open(path, "w", encoding="utf-8") as f:
        for c in range(max(1, n // TURNS)):
            system = text(rng.randint(300, 2000))
            msgs = [{"role": "user", "content": text(rng.randint(20, 1500))}]
            for turn in range(TURNS):
                head = f"Current time: 09:{turn:02d}\n" if c % 3 == 0 else ""
                f.write(json.dumps({"model": MODEL, "messages": [
                    {"role": "system", "content": head + system}, *msgs]}) + "\n")
                msgs += [{"role": "assistant", "content": text(rng.randint(10, 200))},
                         {"role": "tool", "tool_call_id": str(turn),
                          "content": text(rng.randint(50, 2500))}]
    return path.stat().st_size


def _child_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def timed_audit(path: Path) -> tuple[float, float, dict]:
    """(wall seconds, CPU seconds, the audit's JSON) of one ``tokenpilot audit`` process."""
    t0, c0 = time.perf_counter(), _child_cpu()
    r = subprocess.run([sys.executable, "-m", "tokenpilot.cli", "audit", str(path), "--format",
                        "json"], capture_output=True, text=True, check=False)
    wall, cpu = time.perf_counter() - t0, _child_cpu() - c0
    if r.returncode:
        raise SystemExit(f"audit failed: {r.stderr}")
    return wall, cpu, json.loads(r.stdout)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=100000)
    ap.add_argument("--n-bodies", type=int, default=20000)
    args = ap.parse_args()
    print(f"calibration: {calibration():.4f}s for 1M loop steps (min of 5)")
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "requests.jsonl"
        size = write_log(log, args.n)
        wall, cpu, d = timed_audit(log)
        ok = wall < TARGET_S and d["requests"] == args.n
        print(f"request log: {d['requests']:,} requests ({size / 2**20:.0f} MiB, hashed bodies)"
              f" audited in {wall:.1f} s wall ({d['requests'] / wall:,.0f}/s), {cpu:.1f} s CPU; "
              f"target < {TARGET_S:.0f} s wall: {'met' if ok else 'MISSED'}; load average "
              f"{os.getloadavg()[0]:.1f}")
        print(f"  {d['headlines'][2] if len(d['headlines']) > 2 else ''}")
        log.unlink()
        bodies = Path(tmp) / "bodies.jsonl"
        size = write_bodies(bodies, args.n_bodies)
        wall, cpu, d = timed_audit(bodies)
        print(f"request bodies: {d['requests']:,} requests ({size / 2**20:.0f} MiB of text) "
              f"audited in {wall:.1f} s wall ({d['requests'] / wall:,.0f}/s), {cpu:.1f} s CPU")
    print(f"calibration: {calibration():.4f}s for 1M loop steps (min of 5)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
