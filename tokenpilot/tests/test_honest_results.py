"""Figures that say what happened (issue 19): rates over the arrival window, exit codes that
follow the results."""

from __future__ import annotations

import dataclasses

import pytest

from tokenpilot.cluster import compute_metrics, simulate
from tokenpilot.cluster.fleet import fleet_from_dict
from tokenpilot.policy.routers import make_router
from tokenpilot.report import compare_table, metrics_json, simulate_text
from tokenpilot.workload import mean_rate, poisson

ONE_H100 = {"name": "one", "instances": [{"gpu": "h100-sxm", "model": "llama-3.1-8b"}]}


def test_one_straggler_does_not_halve_goodput_and_throughput():
    reqs = poisson(5, n=200, prompt=200, output=50)
    reqs[-1] = dataclasses.replace(reqs[-1], output_tokens=8000)  # finishes long after the rest
    m = compute_metrics(simulate(fleet_from_dict(ONE_H100, "one"), reqs,
                                 make_router("round-robin")), slo_ttft=1.0, slo_tpot=0.1)
    assert m.slo_attainment == 1.0
    assert m.makespan_s > 1.5 * m.arrival_window_s  # the drain tail is long
    assert m.goodput_rps == pytest.approx(mean_rate(reqs), rel=1e-9)
    assert m.throughput_rps == pytest.approx(mean_rate(reqs), rel=1e-9)
    assert m.goodput_makespan_rps < 0.7 * m.goodput_rps  # the figure kept beside
    text = simulate_text(metrics_json(m, fleet={"name": "one"}, fleet_desc="1 x h100-sxm",
                                      workload="poisson", capacity_rps=10.0, rate_rps=5.0,
                                      load=0.5))
    assert "arrival window" in text and "makespan" in text
    assert "arrival window" in compare_table([m]) and "makespan" in compare_table([m])
