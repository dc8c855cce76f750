"""The gain side: each option's matching engine settings in the fleet simulator.

Per option the fleet's instances get the option's ``kv_dtype`` (``options.Option.sim_kv_dtype``),
a ``window-N`` a sliding window of N tokens (the engine caps each request's KV there), a
``truncate-N`` a ``max_model_len`` of N with every prompt cut to fit (what "just cut the prompt"
does to a workload). Figures per workload: capacity (the most requests whose KV fits at once at
``context`` tokens each, summed over instances, capped by ``max_num_seqs``), and from a
simulation of the workload: goodput at the SLO, TTFT and TPOT percentiles.

Workloads: ``conv`` is the Azure conversation trace (the first ``n`` requests), ``long-doc`` a
Poisson stream of long documents (``doc_prompt`` tokens, 300 out). Each is scaled in time so
that it offers ``load`` times the *baseline* fleet's capacity for its shape
(``cluster.fleet_capacity``): an option that raises capacity shows it as goodput.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tokenpilot.cluster import FleetSpec, compute_metrics, fleet_capacity, simulate
from tokenpilot.policy.routers import make_router
from tokenpilot.tradeoff.options import Option
from tokenpilot.workload import Request, load_file, poisson, scale_to_rate, truncate
from tokenpilot.workload.loaders import trace_path

DEFAULT_FLEET = {"name": "h100-8b", "instances": [{"gpu": "h100-sxm", "model": "llama-3.1-8b"}]}


@dataclass(frozen=True)
class FleetSide:
    context: int = 8192  # the context capacity is counted at
    load: float = 1.2  # offered load, times the baseline's capacity for each workload's shape
    conv_requests: int = 1500
    doc_requests: int = 150
    doc_prompt: int = 16000
    slo_ttft: float = 2.0
    slo_tpot: float = 0.1
    seed: int = 0


def with_option(fleet: FleetSpec, option: Option) -> FleetSpec:
    inst = []
    for s in fleet.instances:
        kw: dict[str, Any] = {"kv_dtype": option.sim_kv_dtype}
        if option.truncate:
            kw["max_model_len"] = option.truncate
        inst.append(dataclasses.replace(s, **kw))
    return dataclasses.replace(fleet, instances=tuple(inst))


def cut_prompts(requests: Sequence[Request], limit: int) -> list[Request]:
    """Every prompt cut so prompt + output fit in ``limit`` tokens (at least one prompt token;
    an output that alone does not fit is cut too)."""
    out = []
    for r in requests:
        o = min(r.output_tokens, limit - 1)
        p = max(1, min(r.prompt_tokens, limit - o))
        out.append(dataclasses.replace(r, prompt_tokens=p, output_tokens=o, prefix_hashes=()))
    return out


def workloads(fleet: FleetSpec, side: FleetSide) -> dict[str, list[Request]]:
    """The two workloads at ``side.load`` of the baseline fleet's capacity for each."""
    conv = truncate(load_file(trace_path("azure-conv")), side.conv_requests)
    doc = poisson(1.0, side.doc_requests, prompt=side.doc_prompt, output=300, prompt_cv=0.25,
                  output_cv=0.3, tenant="doc", seed=side.seed)
    out = {}
    for name, reqs in (("conv", conv), ("long-doc", doc)):
        out[name] = scale_to_rate(reqs, side.load * fleet_capacity(fleet, reqs))
    return out


def capacity(fleet: FleetSpec, option: Option, context: int) -> int:
    """The most requests of ``context`` tokens whose KV the fleet holds at once."""
    total = 0
    for s in with_option(fleet, option).instances:
        cm = s.cost_model()
        ctx = min(context, option.truncate) if option.truncate else context
        kv = min(ctx, option.window) if option.window else cm.kv_tokens_for(ctx)
        total += s.count * min(int(s.max_num_seqs or 1), cm.kv_capacity_tokens // max(kv, 1))
    return total


def simulate_option(fleet: FleetSpec, option: Option, loads: dict[str, list[Request]],
                    side: FleetSide) -> dict[str, Any]:
    spec = with_option(fleet, option)
    out: dict[str, Any] = {"kv_dtype": option.sim_kv_dtype,
                           "window": option.window or None,
                           "max_model_len": option.truncate or None,
                           "capacity": capacity(fleet, option, side.context)}
    for name, reqs in loads.items():
        if option.truncate:
            reqs = cut_prompts(reqs, option.truncate)
        kw = {"window": option.window} if option.window else {}
        sim = simulate(spec, reqs, make_router("least-tokens"), **kw)
        m = compute_metrics(sim, side.slo_ttft, side.slo_tpot)
        out[name] = {"goodput_rps": m.goodput_rps, "slo_attainment": m.slo_attainment,
                     "throughput_rps": m.throughput_rps,
                     "ttft_p50_s": m.ttft["p50"], "ttft_p99_s": m.ttft["p99"],
                     "tpot_p50_s": m.tpot["p50"], "tpot_p99_s": m.tpot["p99"],
                     "served": m.served, "rejected": m.rejected,
                     "preemptions": m.preempt_recompute + m.preempt_swap,
                     "mean_prompt": sum(r.prompt_tokens for r in reqs) / len(reqs),
                     "sim_wall_s": sim.wall_s}
    return out


def window_kv(fleet: FleetSpec, option: Option, prompt: int, output: int) -> dict[str, int]:
    """What the simulator's window holds of one request of ``prompt`` + ``output`` tokens,
    iteration by iteration (the engine's reference mode): the KV tokens at its peak and when
    it finishes, to set beside what llama.cpp's slot holds after its context shift
    (``quality.check_context_shift``)."""
    from tokenpilot.engine import Engine

    spec = with_option(fleet, option).instances[0]
    eng = Engine(spec.cost_model(), spec.engine_config(fast=False, record_token_times=False,
                                                       enable_prefix_caching=False),
                 window=option.window)
    eng.add_request(Request(0, 0.0, prompt, output), 0.0)
    bs, peak, last = eng.bm.block_size, 0, 0
    for _ in range(4 * (prompt + output) + 16):  # bounded: one iteration per step at most
        if not eng.sched.has_work():
            break
        last = eng.bm.used * bs or last
        peak = max(peak, last)
        eng.advance_to(eng.next_event_time())
    return {"prompt": prompt, "output": output, "window": option.window,
            "sim_kv_tokens_peak": peak, "sim_kv_tokens_end": last, "block_size": bs}
