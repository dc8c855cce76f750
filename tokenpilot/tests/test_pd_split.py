"""Prefill/decode disaggregation: conservation, transfer time, TTFT with the transfer, the
decode side's backpressure, and the fleets it refuses."""

from __future__ import annotations

import pytest

from tokenpilot.cluster import FleetError, compute_metrics, fleet_from_dict, simulate
from tokenpilot.cluster.pd import Link, capacity, check_fleet, simulate_pd, transfer_s
from tokenpilot.hardware import get_gpu
from tokenpilot.policy.routers import make_router
from tokenpilot.workload import poisson, scale_to_rate

FLEET = fleet_from_dict({"instances": [
    {"gpu": "h100-sxm", "count": 1, "model": "llama-3.1-8b", "role": "prefill"},
    {"gpu": "h100-sxm", "count": 2, "model": "llama-3.1-8b", "role": "decode"}]})


def _run(reqs, link=None):
    return simulate_pd(FLEET, reqs, make_router("round-robin"), make_router("round-robin"), link)


def test_conservation_and_stages() -> None:
    reqs = poisson(5.0, 60, prompt=800, output=50, prompt_cv=0.5, output_cv=0.5, seed=1)
    out = _run(reqs)
    assert set(out.sim.results) == {r.id for r in reqs}
    for r in reqs:
        assert out.prefill_results[r.id].output_tokens == 1  # first token on prefill
        assert out.prefill_of[r.id] == 0
        if r.output_tokens > 1:
            assert out.decode_results[r.id].output_tokens == r.output_tokens - 1
            assert out.decode_of[r.id] in (0, 1)
        res = out.sim.results[r.id]
        assert res.finish >= res.first_token >= r.arrival


def test_transfer_time_is_bytes_over_bandwidth() -> None:
    cm = FLEET.instances[0].cost_model()
    kvb = cm.kv_bytes_per_token
    link_bw = get_gpu("h100-sxm").link_gbps / 2 * 1e9
    assert transfer_s(1000, cm, Link()) == pytest.approx(1000 * kvb / link_bw)
    assert transfer_s(1000, cm, Link(same_node=False, inter_node_gbps=10)) == \
        pytest.approx(1000 * kvb / 10e9)


def test_ttft_includes_the_transfer() -> None:
    reqs = poisson(1.0, 1, prompt=4000, output=20, seed=2)
    slow = Link(same_node=False, inter_node_gbps=0.5)
    out = _run(reqs, slow)
    p = out.prefill_results[0]
    res = out.sim.results[0]
    assert out.transfer[0] == pytest.approx(transfer_s(4000, FLEET.instances[0].cost_model(),
                                                       slow))
    assert res.first_token == pytest.approx(p.first_token + out.transfer[0])
    assert out.decode_results[0].arrival == pytest.approx(p.finish + out.transfer[0])


# ---- backpressure: the decode side's queue reaches TTFT and the prefill side's KV ----------

def _fleet(gpu: str, decode_seqs: int):
    return fleet_from_dict({"instances": [
        {"gpu": gpu, "count": 1, "model": "llama-3.1-8b", "role": "prefill"},
        {"gpu": gpu, "count": 1, "model": "llama-3.1-8b", "role": "decode",
         "max_num_seqs": decode_seqs}]})


def _pd(fleet, reqs, backpressure):
    out = simulate_pd(fleet, reqs, make_router("least-tokens"), make_router("least-tokens"),
                      backpressure=backpressure)
    return out, compute_metrics(out.sim)


def test_an_overloaded_decode_side_shows_up_as_ttft_growth() -> None:
    base = poisson(1.0, 600, prompt=1000, output=200, prompt_cv=0.3, output_cv=0.3, seed=3)
    fleet = _fleet("h100-sxm", 16)  # 16 decode slots: ~14 req/s; the prefill side does ~50
    cap = capacity(fleet, base)
    assert 10 < cap < 20
    # Rates relative to the capacity, so a refit of the h100 calibration keeps the regime.
    calm, over = scale_to_rate(base, 0.6 * cap), scale_to_rate(base, 1.22 * cap)
    _, m_calm = _pd(fleet, calm, True)
    out, m_over = _pd(fleet, over, True)
    _, m_free = _pd(fleet, over, False)
    assert m_calm.ttft["p50"] < 0.05
    assert m_over.ttft["p50"] > 20 * m_calm.ttft["p50"]  # ~1.8 s against ~20 ms
    # Without backpressure the same overload leaves TTFT at the prefill side's (and moves the
    # decode queue into TPOT instead): what this test would see if the push-back were lost.
    assert m_free.ttft["p50"] < 0.05 and m_free.tpot["p50"] > 2 * m_over.tpot["p50"]
    # Each request's KV stayed on the prefill instance until the decode side admitted it.
    for r in over:
        if r.output_tokens > 1:
            res, d = out.sim.results[r.id], out.decode_results[r.id]
            assert out.held_s[r.id] >= out.transfer[r.id] - 1e-12
            assert res.first_token == pytest.approx(d.first_scheduled)


def test_held_prompts_fill_the_prefill_kv_and_new_prompts_queue() -> None:
    fleet = _fleet("l4", 8)  # ~1900 KV blocks per instance: ~30 held 1000-token prompts
    reqs = scale_to_rate(poisson(1.0, 120, prompt=1000, output=200, prompt_cv=0.3,
                                 output_cv=0.3, seed=3), 2.0)
    out, m = _pd(fleet, reqs, True)
    free, _ = _pd(fleet, reqs, False)
    pool = out.sim.kv_blocks[0]
    assert pool * 0.9 <= out.max_held_blocks[0] <= pool

    def prefill_wait(o):
        waits = sorted(r.first_scheduled - r.arrival for r in o.prefill_results.values())
        return waits[int(0.9 * len(waits))]

    assert prefill_wait(out) > 10 * max(prefill_wait(free), 0.1)
    assert set(out.sim.results) == {r.id for r in reqs}


def test_an_idle_decode_side_holds_the_kv_for_the_transfer_only() -> None:
    reqs = poisson(1.0, 1, prompt=4000, output=20, seed=2)
    out = _run(reqs, Link(same_node=False, inter_node_gbps=0.5))
    assert out.held_s[0] == pytest.approx(out.transfer[0])
    assert out.max_held_blocks == [-(-4001 // 16)]


# ---- fleets the disaggregated simulation cannot honour --------------------------------------

@pytest.mark.parametrize(("instances", "error"), [
    ([{"role": "prefill"}], "needs at least one role: decode"),
    ([{"role": "decode"}], "needs at least one role: prefill"),
    ([{"role": "prefill"}, {"role": "decode"}, {}], r"instances\[2\] has role: both"),
    ([{"role": "prefill"}, {"role": "decode", "model": "llama-3.1-70b", "gpu": "h200",
                            "tp": 2}], "must share the model"),
    ([{"role": "prefill", "kv_dtype": "fp8"}, {"role": "decode"}], "must share the kv_dtype"),
])
def test_fleets_it_cannot_honour_are_errors(instances, error) -> None:
    fleet = fleet_from_dict({"name": "f", "instances": [
        {"gpu": "h100-sxm", "model": "llama-3.1-8b", **d} for d in instances]})
    reqs = poisson(1.0, 4, prompt=100, output=10, seed=1)
    with pytest.raises(FleetError, match=error):
        check_fleet(fleet)
    with pytest.raises(FleetError, match=error):
        simulate(fleet, reqs, make_router("round-robin"))


def test_simulate_runs_a_role_fleet_disaggregated() -> None:
    reqs = poisson(5.0, 40, prompt=800, output=50, seed=1)
    sim = simulate(FLEET, reqs, make_router("least-tokens"))
    assert sim.router == "pd:least-tokens/least-tokens"
    direct = _run(reqs).sim
    assert len(sim.names) == 3 and set(sim.results) == set(direct.results)
    with pytest.raises(FleetError, match="cannot take a queue factory"):
        simulate(FLEET, reqs, make_router("least-tokens"), queue_factory=lambda: None)


def test_the_per_instance_table_counts_both_sides() -> None:
    """Every disaggregated request shows on its prefill instance (prompt + first token) and on
    its decode instance (the context it holds there), not on the decode side only."""
    reqs = poisson(5.0, 40, prompt=800, output=50, seed=2)
    m = compute_metrics(_run(reqs).sim)
    pre, *dec = m.instances
    multi = [r for r in reqs if r.output_tokens > 1]
    assert pre.requests == len(reqs)
    assert pre.tokens == sum(r.prompt_tokens + 1 for r in multi) + sum(
        r.prompt_tokens + r.output_tokens for r in reqs if r.output_tokens <= 1)
    assert sum(d.requests for d in dec) == len(multi)
    assert pre.ttft_p99 == pre.ttft_p99  # not NaN: its requests' TTFTs are its own
