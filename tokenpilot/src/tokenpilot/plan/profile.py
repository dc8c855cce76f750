"""Step 1 of a plan: how fast one instance of each candidate kind serves each request size.

Buckets: a request falls in the bucket of its prompt length and of its output length, each
cut at powers of four (prompt 256, 1k, 4k, 16k, 64k; output 64, 256, 1k, 4k tokens). Empty
buckets are dropped; each bucket keeps its own requests' sizes, so a probe replays the sizes
the workload really has, not their mean.

The sustainable rate of a bucket on an instance kind is the highest Poisson arrival rate at
which one such instance, fed only that bucket's requests, meets the SLO for the SLO's share
of them (``SLO.attainment``). It is found by a bounded search: a probe is a short simulation
of ``probe_requests(...)`` requests (six batches' worth, 300 to 2,000; sizes drawn from the
bucket, seeded) at a rate. The search starts at 1.25x the instance's analytic capacity for
the bucket's mean shape (``cluster.fleet.instance_capacity``), doubles while that still
meets the SLO (3 times at most), checks that 2% of it meets the SLO at all (else the bucket
is infeasible on this kind: rate 0) and bisects geometrically until the bracket is within
``REL_TOL``. The same unit exponential gaps and sizes are replayed at every probed rate, so
the probes differ only by the rate.

With disaggregation (``side``): a ``prefill`` instance serves the bucket's prompts with one
output token and must meet ``PREFILL_TTFT_SHARE`` of the TTFT less the KV transfer of the
bucket's mean prompt; a ``decode`` instance (prefill free: ``cluster.pd.LandedKV``) serves
the other ``output - 1`` tokens and must meet the TPOT and admit each request within the rest
of the TTFT.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from tokenpilot.cluster.fleet import FleetSpec, InstanceSpec, instance_capacity
from tokenpilot.cluster.pd import LandedKV, Link, transfer_s
from tokenpilot.cluster.sim import FleetSim, simulate
from tokenpilot.costmodel import DoesNotFitError
from tokenpilot.engine import Engine
from tokenpilot.plan.slo import SLO
from tokenpilot.policy.routers import get_router
from tokenpilot.workload.request import Request

PROMPT_EDGES = (256, 1024, 4096, 16384, 65536)
OUTPUT_EDGES = (64, 256, 1024, 4096)
MAX_SIZES = 4000  # sizes kept per bucket for its probes (drawn from with replacement)
REL_TOL = 0.04
LOW_SHARE = 0.02  # of the analytic capacity: a kind that fails here cannot serve the bucket
GROWTHS = 3
PREFILL_TTFT_SHARE = 0.8

Side = Literal["both", "prefill", "decode"]


def _span(lo: int, hi: int | None) -> str:
    def k(x: int) -> str:
        return f"{x // 1024}k" if x >= 1024 and x % 1024 == 0 else str(x)

    return f"{k(lo)}+" if hi is None else f"{k(lo)}-{k(hi)}"


@dataclass(frozen=True)
class Bucket:
    """Requests whose prompt is in ``[prompt_lo, prompt_hi)`` and output in ``[output_lo,
    output_hi)`` (``hi`` None: no upper bound)."""

    index: int
    prompt_lo: int
    prompt_hi: int | None
    output_lo: int
    output_hi: int | None
    count: int
    share: float  # of the workload's requests
    mean_prompt: float
    mean_output: float
    sizes: tuple[tuple[int, int], ...] = field(repr=False, compare=False, default=())

    @property
    def label(self) -> str:
        return (f"prompt {_span(self.prompt_lo, self.prompt_hi)} x output "
                f"{_span(self.output_lo, self.output_hi)}")

    def to_dict(self) -> dict:
        return {"label": self.label, "requests": self.count, "share": self.share,
                "mean_prompt": self.mean_prompt, "mean_output": self.mean_output}


def make_buckets(requests: list[Request], seed: int = 0) -> list[Bucket]:
    prompt = np.fromiter((r.prompt_tokens for r in requests), dtype=np.int64, count=len(requests))
    output = np.fromiter((r.output_tokens for r in requests), dtype=np.int64, count=len(requests))
    pi = np.searchsorted(PROMPT_EDGES, prompt, side="right")
    oi = np.searchsorted(OUTPUT_EDGES, output, side="right")
    key = pi * (len(OUTPUT_EDGES) + 1) + oi
    rng = np.random.default_rng(seed)
    out: list[Bucket] = []
    p_lo = (0, *PROMPT_EDGES)
    o_lo = (0, *OUTPUT_EDGES)
    for k in np.unique(key):
        idx = np.flatnonzero(key == k)
        if idx.size > MAX_SIZES:
            idx = np.sort(rng.choice(idx, MAX_SIZES, replace=False))
        a, b = divmod(int(k), len(OUTPUT_EDGES) + 1)
        count = int((key == k).sum())
        mask = key == k
        out.append(Bucket(
            index=len(out), prompt_lo=p_lo[a],
            prompt_hi=PROMPT_EDGES[a] if a < len(PROMPT_EDGES) else None,
            output_lo=o_lo[b], output_hi=OUTPUT_EDGES[b] if b < len(OUTPUT_EDGES) else None,
            count=count, share=count / len(requests),
            mean_prompt=float(prompt[mask].mean()), mean_output=float(output[mask].mean()),
            sizes=tuple(zip(prompt[idx].tolist(), output[idx].tolist(), strict=True))))
    return out


@dataclass(frozen=True)
class Kind:
    """A candidate instance kind: ``tp`` GPUs of one type serving ``model``."""

    gpu: str
    tp: int
    model: str
    engine: str = "vllm-v1"

    @property
    def label(self) -> str:
        return self.gpu + (f" TP{self.tp}" if self.tp > 1 else "")

    def spec(self, count: int = 1, role: str = "both") -> InstanceSpec:
        return InstanceSpec(gpu=self.gpu, model=self.model, tp=self.tp, count=count,
                            engine=self.engine, role=role)  # type: ignore[arg-type]


@dataclass(frozen=True)
class ProfileTask:
    kind: Kind
    side: Side
    bucket: int
    sizes: tuple[tuple[int, int], ...]
    slo: SLO
    seed: int
    min_requests: int = 300
    max_requests: int = 2000


@dataclass(frozen=True)
class ProfilePoint:
    """One (kind, side, bucket): its sustainable rate (0: it cannot serve the bucket within
    the SLO at any rate), the attainment found at that rate, the probes run, and why not."""

    kind: Kind
    side: Side
    bucket: int
    rate: float
    attainment: float
    probes: int
    note: str = ""

    def to_dict(self) -> dict:
        return {"gpu": self.kind.gpu, "tp": self.kind.tp, "side": self.side,
                "bucket": self.bucket, "rate_rps": self.rate, "attainment": self.attainment,
                "probes": self.probes, "note": self.note}


def probe_requests(batch: int, floor: int, cap: int = 2000) -> int:
    """Requests per probe: enough to cycle the instance's batch several times."""
    return int(min(cap, max(floor, 6 * batch)))


def attainment(results, slo_ttft: float, slo_tpot: float, wait_s: float | None = None) -> float:
    """The share of ``results`` (RequestResult) meeting TTFT and TPOT (and, if given, a wait
    until first scheduled of at most ``wait_s``); rejected ones count as misses."""
    good = 0
    for r in results:
        if r.rejected or r.first_token - r.arrival > slo_ttft or r.tpot > slo_tpot:
            continue
        if wait_s is not None and r.first_scheduled - r.arrival > wait_s:
            continue
        good += 1
    return good / max(len(results), 1)


def profile(_shared: object, task: ProfileTask) -> ProfilePoint:
    """The sustainable rate of one (kind, side, bucket) (module doc). A sweep task."""
    kind, slo = task.kind, task.slo
    spec = kind.spec()
    try:
        cm = spec.cost_model()
        spec.check_fits(cm)
    except (DoesNotFitError, ValueError) as exc:
        return ProfilePoint(kind, task.side, task.bucket, 0.0, 0.0, 0, f"does not fit: {exc}")
    rng = np.random.default_rng(task.seed)
    sizes = np.asarray(task.sizes, dtype=np.int64)
    mp, mo = (float(x) for x in sizes.mean(axis=0))
    footprint = mp + mo / 2
    batch = max(1, min(int(spec.max_num_seqs or 1), int(cm.kv_capacity_tokens // footprint)))
    n = probe_requests(batch, task.min_requests, task.max_requests)
    pick = sizes[rng.integers(0, len(sizes), n)]
    gaps = np.cumsum(rng.exponential(1.0, n))
    gaps -= gaps[0]
    if task.side == "prefill":
        ttft = PREFILL_TTFT_SHARE * slo.ttft_s - transfer_s(int(mp), cm, Link())
        if ttft <= 0:
            return ProfilePoint(kind, task.side, task.bucket, 0.0, 0.0, 0,
                                "the KV transfer alone exceeds the TTFT")
        cap = instance_capacity(spec, mp, 1, cm)

        def run(rate: float) -> float:
            reqs = [Request(i, float(gaps[i]) / rate, int(pick[i, 0]), 1) for i in range(n)]
            sim = simulate(FleetSpec("probe", (spec,)), reqs, get_router("round-robin"))
            return attainment(sim.results.values(), ttft, math.inf)
    elif task.side == "decode":
        landed = LandedKV(cm)
        cfg = spec.engine_config(record_token_times=False)
        out = np.maximum(pick[:, 1] - 1, 1)
        step = cm.decode_time(batch, int(batch * footprint))
        cap = batch / (max(mo - 1, 1) * step)
        wait = (1 - PREFILL_TTFT_SHARE) * slo.ttft_s

        def run(rate: float) -> float:
            engine = Engine(landed, cfg, name="probe")
            loop = FleetSim([engine], get_router("round-robin"), lag=True)
            for i in range(n):
                loop.arrive(Request(i, float(gaps[i]) / rate, int(pick[i, 0]), int(out[i])))
            loop.drain()
            return attainment(loop.results.values(), math.inf, slo.tpot_s, wait)
    else:
        cap = instance_capacity(spec, mp, mo, cm)

        def run(rate: float) -> float:
            reqs = [Request(i, float(gaps[i]) / rate, int(pick[i, 0]), int(pick[i, 1]))
                    for i in range(n)]
            sim = simulate(FleetSpec("probe", (spec,)), reqs, get_router("round-robin"))
            return attainment(sim.results.values(), slo.ttft_s, slo.tpot_s)

    rate, att, probes = search_rate(run, cap, slo.attainment)
    note = "" if rate > 0 else (f"meets the SLO for only {att:.1%} of the bucket's requests even "
                                f"at {LOW_SHARE:.0%} of its capacity")
    return ProfilePoint(kind, task.side, task.bucket, rate, att, probes, note)


def search_rate(run, capacity: float, target: float) -> tuple[float, float, int]:
    """The highest rate at which ``run(rate)`` (an attainment) is at least ``target``: (rate,
    its attainment, probes run); rate 0 when even ``LOW_SHARE`` of ``capacity`` fails."""
    probes = 0

    def ok(rate: float) -> tuple[bool, float]:
        nonlocal probes
        probes += 1
        a = run(rate)
        return a >= target, a

    hi = 1.25 * capacity
    good, a_hi = ok(hi)
    if good:
        for _ in range(GROWTHS):
            lo, a_lo = hi, a_hi
            hi *= 2
            good, a_hi = ok(hi)
            if not good:
                break
        else:
            return hi, a_hi, probes
    else:
        lo = LOW_SHARE * capacity
        good, a_lo = ok(lo)
        if not good:
            return 0.0, a_lo, probes
    while hi / lo > 1 + REL_TOL:
        mid = math.sqrt(lo * hi)
        good, a = ok(mid)
        if good:
            lo, a_lo = mid, a
        else:
            hi = mid
    return lo, a_lo, probes


def profile_tasks(kinds: list[Kind], buckets: list[Bucket], slo: SLO, sides: list[Side],
                  seed: int = 0, max_requests: int = 2000) -> list[ProfileTask]:
    """One task per (kind, side, bucket), each with its own seed (deterministic)."""
    tasks = []
    for ki, kind in enumerate(kinds):
        for si, side in enumerate(sides):
            for b in buckets:
                tasks.append(ProfileTask(kind, side, b.index, b.sizes, slo,
                                         seed=seed * 1_000_003 + (ki * 7 + si) * 1009 + b.index,
                                         max_requests=max_requests))
    return tasks
