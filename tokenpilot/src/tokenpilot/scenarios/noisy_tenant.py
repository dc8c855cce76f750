"""``noisy-tenant``: one tenant floods; do token buckets and VTC keep the others' latency?

Two H100s serve llama-3.1-8b. Four quiet tenants send together half the fleet's capacity;
the noisy tenant sends another 1.5x capacity on top (2x overall). Configurations:

- ``fcfs``: no admission, FCFS queues: everyone waits behind the flood;
- ``bucket``: ``Admission`` with a per-tenant token bucket (``tokens_per_minute``) sized to
  a fair share of the fleet's token throughput for the noisy tenant;
- ``vtc``: no admission, each engine's queue is VTC (token-fair across tenants).
"""

from __future__ import annotations

from tokenpilot.cluster import fleet_capacity, fleet_from_dict
from tokenpilot.policy import VTC, Admission, AdmissionConfig, TenantLimits
from tokenpilot.policy.routers import make_router
from tokenpilot.scenarios._common import ScenarioResult, merge, ms, run, subset
from tokenpilot.workload import poisson

NAME = "noisy-tenant"
TITLE = "one tenant floods: per-tenant token buckets and VTC vs FCFS"
SLO_TTFT, SLO_TPOT = 1.0, 0.1
QUIET = ("t0", "t1", "t2", "t3")

FLEET = fleet_from_dict({"name": "h100x2", "instances": [
    {"gpu": "h100-sxm", "count": 2, "model": "llama-3.1-8b"}]})


def run_scenario(quick: bool = False) -> ScenarioResult:
    n_quiet = 120 if quick else 600
    probe = poisson(1.0, 100, prompt=1000, output=200, seed=5)
    cap = fleet_capacity(FLEET, probe)
    quiet = [poisson(cap * 0.5 / len(QUIET), n_quiet, prompt=1000, output=200, prompt_cv=0.5,
                     output_cv=0.5, tenant=t, seed=10 + k) for k, t in enumerate(QUIET)]
    span = min(w[-1].arrival for w in quiet)
    noisy = poisson(cap * 1.5, int(cap * 1.5 * span), prompt=1000, output=200, prompt_cv=0.5,
                    output_cv=0.5, tenant="noisy", seed=20)
    reqs = [r for r in merge(*quiet, noisy) if r.arrival <= span]
    # The noisy tenant's fair share: a fifth of the fleet's token throughput at capacity.
    tpm = cap * 1200 * 60 / (len(QUIET) + 1)
    bucket = Admission(AdmissionConfig(tenants={"noisy": TenantLimits(tokens_per_minute=tpm)}))
    configs = [("fcfs", None, None), ("bucket", bucket, None), ("vtc", None, VTC)]
    res = ScenarioResult(NAME, TITLE, ["config", "quiet p50 TTFT ms", "quiet p99 TTFT ms",
                                       "quiet SLO met", "noisy p99 TTFT ms", "noisy served",
                                       "noisy rejected"], [], quick=quick)
    quiet_ids = [r.id for r in reqs if r.tenant != "noisy"]
    noisy_ids = [r.id for r in reqs if r.tenant == "noisy"]
    figs = {}
    for label, adm, queue in configs:
        sim, m = run(FLEET, reqs, make_router("least-tokens"), label, slo_ttft=SLO_TTFT,
                     slo_tpot=SLO_TPOT, admission=adm, queue_factory=queue)
        q, nz = subset(sim, quiet_ids, SLO_TTFT, SLO_TPOT), subset(sim, noisy_ids)
        figs[label] = q
        res.sims.append(sim)
        res.metrics.append(m)
        res.rows.append({"config": label, "quiet p50 TTFT ms": ms(q["ttft_p50"]),
                         "quiet p99 TTFT ms": ms(q["ttft_p99"]),
                         "quiet SLO met": f"{q['slo_met'] * 100:.1f}%",
                         "noisy p99 TTFT ms": ms(nz["ttft_p99"]),
                         "noisy served": int(nz["served"]), "noisy rejected": int(nz["rejected"])})
    res.notes = [
        f"{len(quiet_ids)} requests from 4 quiet tenants (0.5x capacity together) and "
        f"{len(noisy_ids)} from the noisy one (1.5x capacity); capacity ~{cap:.1f} req/s.",
        f"bucket: the noisy tenant gets {tpm:,.0f} tokens/minute (a fifth of the fleet's "
        "throughput); the quiet tenants are unlimited. The bucket starts full with a minute's "
        f"worth (its burst), so the flood passes unchecked for its first "
        f"~{tpm / (cap * 1.5 * 1200 - tpm / 60):.0f} s: the longer the run, the better "
        "the bucket looks.",
        "vtc: each engine serves the backlogged tenant with the least weighted service first; "
        "overload stays in the queues (nothing is rejected), the noisy tenant's own latency "
        "absorbs it.",
        f"quiet p99 TTFT: fcfs {ms(figs['fcfs']['ttft_p99']):.0f}ms, bucket "
        f"{ms(figs['bucket']['ttft_p99']):.0f}ms, vtc {ms(figs['vtc']['ttft_p99']):.0f}ms.",
    ]
    return res
