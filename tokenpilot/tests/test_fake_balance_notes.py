"""``scenarios.fake_balance.idle_notes``: what it says of a router that leaves GPUs idle, from
the run's own figures, against the router that spread the load most evenly."""

from __future__ import annotations

import dataclasses

from tokenpilot.cluster.metrics import FleetMetrics, InstanceMetrics
from tokenpilot.scenarios.fake_balance import idle_notes


def _inst(name: str, gpu: str, requests: int, p99: float) -> InstanceMetrics:
    return InstanceMetrics(name, gpu, requests, requests * 1000, requests * 0.5, 0.5, 0.5, 0.5,
                           p99, 0.0, 0)


def _fleet(router: str, goodput: float, attainment: float, p99: float,
           instances: list[InstanceMetrics]) -> FleetMetrics:
    q = {"p50": p99 / 2, "p99": p99}
    return FleetMetrics(router, 100, 100, 0, 10.0, q, q, q, q, 10.0, 100.0, goodput, 10.0, 10.0,
                        goodput, attainment, 1.0, 0.1, 0.0, 0, 0, 0, 0.0, 0.0, 0.0, 0.0, 0.0,
                        1.0, instances)


SPREAD = _fleet("least-tokens", 9.5, 0.95, 0.8, [
    _inst("h100-0", "h100-sxm", 60, 0.4), _inst("l4-0", "l4", 40, 0.9)])


def test_a_router_that_spreads_the_load_gets_no_note() -> None:
    assert idle_notes([SPREAD]) == []
    other = dataclasses.replace(SPREAD, router="round-robin")
    assert idle_notes([SPREAD, other]) == []  # nothing idle in either


def test_idling_slow_gpus_at_no_cost_is_called_right() -> None:
    idler = _fleet("earliest-completion", 9.8, 0.97, 0.6, [
        _inst("h100-0", "h100-sxm", 100, 0.6), _inst("l4-0", "l4", 0, float("nan"))])
    [note] = idle_notes([SPREAD, idler])
    assert note.startswith("earliest-completion leaves 1 of 2 instances idle (l4): goodput "
                           "9.8/s with 97.0% within SLO and p99 TTFT 600 ms, against "
                           "least-tokens's 9.5/s, 95.0% and 800 ms (its l4 at 900 ms p99).")
    assert "Idling the slow GPUs is right at this load" in note


def test_idling_that_costs_the_slo_says_so() -> None:
    idler = _fleet("earliest-completion", 7.0, 0.80, 2.0, [
        _inst("h100-0", "h100-sxm", 100, 2.0), _inst("l4-0", "l4", 0, float("nan"))])
    [note] = idle_notes([SPREAD, idler])
    assert note.endswith("Here idling them costs requests their SLO.")
