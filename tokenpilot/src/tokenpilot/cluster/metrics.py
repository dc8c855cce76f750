"""Figures of a fleet run: latency percentiles, goodput, KV hits, utilisation, imbalance.

Definitions (all times in seconds; "served" requests are those not rejected):

- TTFT = first token - arrival; TPOT = (finish - first token) / (output - 1), for outputs of
  two tokens or more; end-to-end = finish - arrival.
- Inter-token latency (ITL): percentiles over *tokens*, each decode token's gap taken as its
  request's mean gap (TPOT). The engine jumps over decode runs in closed form and does not
  record single gaps, so ITL is TPOT weighted by the tokens each request produced: long
  answers count for more, as they do for a user watching a stream.
- Arrival window = last arrival - first arrival; the offered rate is (requests - 1) / window,
  as ``workload.mean_rate`` has it. Throughput = the served share of the requests times the
  offered rate (so output tokens per second likewise); goodput = the share with TTFT <=
  ``slo_ttft`` and TPOT <= ``slo_tpot`` times the offered rate; rejected requests never count.
  Over the arrival window, not the makespan: one straggler finishing late must not halve them
  (a fleet serving all 3,000 requests of a 58.6 req/s workload within SLO has goodput 58.6).
- Makespan = last finish - first arrival, the drain tail included; ``throughput_makespan_rps``
  and ``goodput_makespan_rps`` are the same counts per second of it, for the record. With one
  request, or all arriving at once, the window is empty and the makespan stands in for it.
- KV hit rate = prompt tokens found in the prefix cache at first admission / prompt tokens.
- Utilisation of an instance = busy time / makespan, split into compute-bound and
  bandwidth-bound time by which side of the roofline each iteration hit.
- Token load of an instance = (prompt + output tokens routed to it) / its speed, where speed
  is the instance's saturated tokens/s for the workload's mean request (see
  ``tokenpilot.cluster.fleet``): seconds of full-speed work it was given. On identical
  instances this is just tokens.
- Imbalance by requests = max / mean of per-instance request counts; imbalance by tokens =
  max / mean of per-instance token load; 1.0 is perfect balance for both. ``cv_requests`` and
  ``cv_tokens`` are the coefficients of variation of the same two vectors.
- Fake-balance index = imbalance by tokens - imbalance by requests. Positive when request
  counts look even but the work is not (round-robin on a mixed fleet: counts equal, slow
  GPUs drowning); near zero or negative for a router that sends more requests to faster GPUs.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np

from tokenpilot.cluster.sim import SimResult

PERCENTILES = (50, 90, 99)


@dataclass
class InstanceMetrics:
    name: str
    gpu: str
    requests: int
    tokens: int
    token_load_s: float
    utilisation: float
    compute_bound_frac: float  # of the instance's busy time
    memory_bound_frac: float
    ttft_p99: float
    kv_hit_rate: float
    preemptions: int


@dataclass
class FleetMetrics:
    router: str
    requests: int
    served: int
    rejected: int
    makespan_s: float
    ttft: dict[str, float]
    tpot: dict[str, float]
    itl: dict[str, float]
    e2e: dict[str, float]
    throughput_rps: float  # over the arrival window (module docstring)
    output_tokens_per_s: float
    goodput_rps: float
    arrival_window_s: float
    throughput_makespan_rps: float
    goodput_makespan_rps: float
    slo_attainment: float  # fraction of all requests meeting both SLOs
    slo_ttft_s: float
    slo_tpot_s: float
    kv_hit_rate: float
    preempt_recompute: int
    preempt_swap: int
    swap_out_tokens: int
    imbalance_requests: float
    imbalance_tokens: float
    cv_requests: float
    cv_tokens: float
    fake_balance: float
    wall_s: float
    instances: list[InstanceMetrics] = field(default_factory=list)
    admission_rejected: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict:
        return asdict(self)


def _pcts(x: np.ndarray, weights: np.ndarray | None = None) -> dict[str, float]:
    if x.size == 0:
        return {f"p{p}": float("nan") for p in PERCENTILES} | {"mean": float("nan")}
    if weights is None:
        vals = np.percentile(x, PERCENTILES)
        mean = float(x.mean())
    else:
        order = np.argsort(x, kind="stable")
        xs, cw = x[order], np.cumsum(weights[order])
        vals = [xs[min(np.searchsorted(cw, p / 100 * cw[-1]), xs.size - 1)] for p in PERCENTILES]
        mean = float((x * weights).sum() / weights.sum())
    return {f"p{p}": float(v) for p, v in zip(PERCENTILES, vals, strict=True)} | {"mean": mean}


def _ratio_max_mean(v: np.ndarray) -> float:
    m = v.mean()
    return float(v.max() / m) if m > 0 else 1.0


def _cv(v: np.ndarray) -> float:
    m = v.mean()
    return float(v.std() / m) if m > 0 else 0.0


def compute_metrics(sim: SimResult, slo_ttft: float = 1.0, slo_tpot: float = 0.1) -> FleetMetrics:
    """The fleet's figures under a TTFT and a TPOT SLO (module docstring has the definitions)."""
    res = sim.results
    n_inst = len(sim.names)
    ids = np.fromiter(res.keys(), dtype=np.int64, count=len(res))
    cols = [(r.arrival, r.first_token, r.finish, r.prompt_tokens, r.output_tokens,
             r.cached_tokens, 0 if r.rejected else 1) for r in res.values()]
    a = np.array(cols, dtype=float).reshape(-1, 7)
    arrival, first, finish, prompt, output, cached, ok = a.T
    ok = ok.astype(bool)
    inst = np.array([sim.placed.get(int(i), -1) for i in ids], dtype=np.int64)
    ttft = first - arrival
    e2e = finish - arrival
    multi = ok & (output > 1)
    tpot = np.zeros_like(ttft)
    tpot[multi] = (finish[multi] - first[multi]) / (output[multi] - 1)
    served = int(ok.sum())
    if served:
        makespan = float(finish[ok].max() - arrival.min())
    else:
        makespan = 0.0
    span = makespan if makespan > 0 else float("nan")
    good = ok & (ttft <= slo_ttft) & (tpot <= slo_tpot)
    window = float(arrival.max() - arrival.min()) if arrival.size > 1 else 0.0
    # Counts -> per second: the offered rate per request over the window, else the makespan.
    per_s = (arrival.size - 1) / window / arrival.size if window > 0 else 1.0 / span
    # Per instance. A disaggregated request counts on its prefill instance (its prompt and
    # first token) and on its decode instance (the whole context it holds there).
    counts = np.bincount(inst[inst >= 0], minlength=n_inst).astype(float)
    tok = np.bincount(inst[inst >= 0], weights=(prompt + output)[inst >= 0], minlength=n_inst)
    pre = np.array([sim.prefilled_on.get(int(i), -1) for i in ids], dtype=np.int64)
    if sim.prefilled_on:
        on = pre >= 0
        counts += np.bincount(pre[on], minlength=n_inst)
        tok += np.bincount(pre[on], weights=(prompt + 1)[on], minlength=n_inst)
    speeds = np.array(sim.speeds, dtype=float)
    load = tok / speeds
    instances = []
    for k in range(n_inst):
        st = sim.stats[k]
        mine = ok & ((inst == k) | (pre == k))
        busy = st.busy_s
        hits = st.prefix_hit_tokens + st.prefix_miss_tokens
        instances.append(InstanceMetrics(
            name=sim.names[k], gpu=sim.gpus[k], requests=int(counts[k]), tokens=int(tok[k]),
            token_load_s=float(load[k]),
            utilisation=busy / makespan if makespan > 0 else 0.0,
            compute_bound_frac=st.compute_bound_s / busy if busy else 0.0,
            memory_bound_frac=st.memory_bound_s / busy if busy else 0.0,
            ttft_p99=float(np.percentile(ttft[mine], 99)) if mine.any() else float("nan"),
            kv_hit_rate=st.prefix_hit_tokens / hits if hits else 0.0,
            preemptions=st.preempt_recompute + st.preempt_swap,
        ))
    imb_r, imb_t = _ratio_max_mean(counts), _ratio_max_mean(load)
    p_served = prompt[ok].sum()
    return FleetMetrics(
        router=sim.router, requests=len(res), served=served, rejected=len(res) - served,
        makespan_s=makespan,
        ttft=_pcts(ttft[ok]), tpot=_pcts(tpot[multi]),
        itl=_pcts(tpot[multi], output[multi] - 1), e2e=_pcts(e2e[ok]),
        throughput_rps=served * per_s, output_tokens_per_s=float(output[ok].sum()) * per_s,
        goodput_rps=float(good.sum()) * per_s, arrival_window_s=window,
        throughput_makespan_rps=served / span, goodput_makespan_rps=float(good.sum()) / span,
        slo_attainment=float(good.mean()) if len(res) else 0.0,
        slo_ttft_s=slo_ttft, slo_tpot_s=slo_tpot,
        kv_hit_rate=float(cached[ok].sum() / p_served) if p_served else 0.0,
        preempt_recompute=sum(s.preempt_recompute for s in sim.stats),
        preempt_swap=sum(s.preempt_swap for s in sim.stats),
        swap_out_tokens=sum(s.swap_out_tokens for s in sim.stats),
        imbalance_requests=imb_r, imbalance_tokens=imb_t,
        cv_requests=_cv(counts), cv_tokens=_cv(load), fake_balance=imb_t - imb_r,
        wall_s=sim.wall_s, instances=instances, admission_rejected=dict(sim.admission_rejected),
    )


def by_gpu(m: FleetMetrics) -> dict[str, dict[str, float]]:
    """Per GPU type: instances, requests, token load share and the worst p99 TTFT."""
    out: dict[str, dict[str, float]] = {}
    total_load = sum(i.token_load_s for i in m.instances) or 1.0
    total_req = sum(i.requests for i in m.instances) or 1
    for i in m.instances:
        d = out.setdefault(i.gpu, {"instances": 0, "request_share": 0.0, "load_share": 0.0,
                                   "ttft_p99_max": 0.0, "utilisation": 0.0})
        d["instances"] += 1
        d["request_share"] += i.requests / total_req
        d["load_share"] += i.token_load_s / total_load
        if i.ttft_p99 == i.ttft_p99:  # not NaN
            d["ttft_p99_max"] = max(d["ttft_p99_max"], i.ttft_p99)
        d["utilisation"] += i.utilisation
    for d in out.values():
        d["utilisation"] /= d["instances"]
    return out
