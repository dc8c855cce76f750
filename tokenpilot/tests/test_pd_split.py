"""Prefill/decode disaggregation: conservation, transfer time, TTFT with the transfer."""

from __future__ import annotations

import pytest

from tokenpilot.cluster import fleet_from_dict
from tokenpilot.cluster.pd import Link, simulate_pd, transfer_s
from tokenpilot.hardware import get_gpu
from tokenpilot.policy.routers import make_router
from tokenpilot.workload import poisson

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
