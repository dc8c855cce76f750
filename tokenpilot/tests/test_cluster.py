import math

import pytest

from tokenpilot.cluster import (
    ConservationError,
    FleetError,
    FleetSim,
    SimResult,
    build_engines,
    compute_metrics,
    fleet_capacity,
    fleet_from_dict,
    load_fleet,
    simulate,
)
from tokenpilot.engine import EngineStats, RequestResult, TimeSeries
from tokenpilot.policy import VTC, IsolationPolicy
from tokenpilot.policy.admission import Admission, AdmissionConfig
from tokenpilot.policy.disciplines import FCFS
from tokenpilot.policy.routers import RoundRobinRouter, get_router
from tokenpilot.workload import Request, load_workload, scale_to_rate

SMALL_MIXED = {"name": "small-mixed", "instances": [
    {"gpu": "h100-sxm", "model": "llama-3.1-8b"},
    {"gpu": "l40s", "count": 2, "model": "llama-3.1-8b"},
]}


def small_fleet():
    return fleet_from_dict(SMALL_MIXED)


def workload(n=300, load=0.8, seed=0):
    reqs = load_workload(f"gamma:rps=5,cv=2,n={n},prompt=800,output=150,prompt_cv=1,"
                         f"output_cv=1@seed={seed}")
    return scale_to_rate(reqs, load * fleet_capacity(small_fleet(), reqs))


class Recording(RoundRobinRouter):
    def __init__(self):
        super().__init__()
        self.picks, self.routed, self.finished = {}, {}, []

    def pick(self, request, views):
        i = super().pick(request, views)
        self.picks[request.id] = i
        return i

    def on_routed(self, request, index):
        self.routed[request.id] = index

    def on_finished(self, request, index):
        assert self.routed[request.id] == index
        self.finished.append(request.id)


def test_every_request_finishes_once_where_the_router_sent_it():
    reqs = workload(200)
    router = Recording()
    sim = simulate(small_fleet(), reqs, router)
    ids = sorted(r.id for r in reqs)
    assert sorted(sim.results) == ids
    assert sorted(router.finished) == ids  # on_finished exactly once per request
    assert sim.placed == router.picks == router.routed
    assert all(not r.rejected and r.finish >= r.first_token >= r.arrival
               for r in sim.results.values())
    per_instance = [sum(1 for i in sim.placed.values() if i == k) for k in range(3)]
    assert per_instance == [s.finished for s in sim.stats]
    # Round-robin over 3: counts differ by at most one.
    assert max(per_instance) - min(per_instance) <= 1


def test_no_request_is_scheduled_before_it_arrives():
    sim = simulate(small_fleet(), workload(200, load=1.5), get_router("least-tokens"))
    assert all(r.first_scheduled >= r.arrival for r in sim.results.values())


def test_same_seed_same_run():
    def run(seed):
        sim = simulate(small_fleet(), workload(150), get_router("random", seed=seed))
        return sim.placed, [(r.first_token, r.finish) for r in sim.results.values()]

    assert run(3) == run(3)
    assert run(3)[0] != run(4)[0]


def test_admission_hook_rejects_before_routing():
    reqs = workload(100)
    limit = sorted(r.total_tokens for r in reqs)[50]
    adm = Admission(AdmissionConfig(max_context=limit))
    sim = simulate(small_fleet(), reqs, get_router("round-robin"), admission=adm)
    too_long = {r.id for r in reqs if r.total_tokens > limit}
    assert too_long and set(sim.results) == {r.id for r in reqs}
    assert {i for i, r in sim.results.items() if r.rejected} == too_long
    assert not too_long & set(sim.placed)
    assert sim.admission_rejected == {"context_too_long": len(too_long)}
    assert adm.in_flight == 0  # every admitted request was settled
    m = compute_metrics(sim)
    assert m.rejected == len(too_long) and m.served == 100 - len(too_long)


def test_metrics_on_a_hand_checked_run():
    # Two instances; instance 0 took requests 0 and 1, instance 1 took request 2.
    results = {
        0: RequestResult(0, 0.0, 100, 11, 0.0, 0.5, 1.5),   # TTFT 0.5, TPOT 0.1
        1: RequestResult(1, 1.0, 300, 21, 1.0, 3.0, 5.0),   # TTFT 2.0, TPOT 0.1
        2: RequestResult(2, 2.0, 200, 6, 2.0, 2.2, 2.7, cached_tokens=100),  # TTFT .2, TPOT .1
    }
    stats = [EngineStats(busy_s=4.0, compute_bound_s=1.0, memory_bound_s=3.0),
             EngineStats(busy_s=0.5, compute_bound_s=0.5)]
    sim = SimResult(fleet=small_fleet(), router="hand", names=["a", "b"], gpus=["x", "y"],
                    requests=[], results=results, placed={0: 0, 1: 0, 2: 1}, stats=stats,
                    series=[TimeSeries(), TimeSeries()], kv_blocks=[10, 10],
                    speeds=[100.0, 50.0])
    m = compute_metrics(sim, slo_ttft=1.0, slo_tpot=0.1 + 1e-9)
    assert m.makespan_s == 5.0
    assert m.ttft["p50"] == pytest.approx(0.5)
    assert m.ttft["mean"] == pytest.approx(0.9)
    assert m.tpot["p99"] == pytest.approx(0.1)
    # Arrivals 0, 1, 2: a 2 s window offering (3 - 1) / 2 = 1 req/s, all served.
    assert m.arrival_window_s == 2.0
    assert m.throughput_rps == pytest.approx(1.0)
    assert m.goodput_rps == pytest.approx(2 / 3)  # request 1 misses the TTFT SLO
    assert m.throughput_makespan_rps == pytest.approx(3 / 5)
    assert m.goodput_makespan_rps == pytest.approx(2 / 5)
    assert m.slo_attainment == pytest.approx(2 / 3)
    assert m.kv_hit_rate == pytest.approx(100 / 600)
    # ITL weights each request's TPOT by its decode tokens: all 0.1 here.
    assert m.itl["mean"] == pytest.approx(0.1)
    # Requests 2 vs 1: max/mean = 2/1.5. Token load: (111+321)/100 = 4.32 s vs 206/50 = 4.12 s.
    assert m.imbalance_requests == pytest.approx(2 / 1.5)
    assert m.imbalance_tokens == pytest.approx(4.32 / 4.22)
    assert m.fake_balance == pytest.approx(4.32 / 4.22 - 2 / 1.5)
    a, b = m.instances
    assert (a.requests, b.requests) == (2, 1) and a.utilisation == pytest.approx(0.8)
    assert a.compute_bound_frac == pytest.approx(0.25) and b.memory_bound_frac == 0.0
    assert a.ttft_p99 == pytest.approx(0.5 + 0.99 * 1.5)


def test_round_robin_fakes_balance_on_a_mixed_fleet():
    reqs = workload(400, load=0.9)
    rr = compute_metrics(simulate(small_fleet(), reqs, get_router("round-robin")))
    ec = compute_metrics(simulate(small_fleet(), reqs, get_router("earliest-completion")))
    assert rr.imbalance_requests == pytest.approx(1.0, abs=0.01)
    assert rr.fake_balance > ec.fake_balance
    assert ec.imbalance_requests > rr.imbalance_requests  # more requests to the fast GPU
    assert ec.goodput_rps > rr.goodput_rps
    h100, l40s = rr.instances[0], rr.instances[1]
    assert l40s.ttft_p99 > h100.ttft_p99


def test_capacity_scales_with_instances():
    reqs = workload(50)
    one = fleet_from_dict({"instances": [{"gpu": "l40s", "model": "llama-3.1-8b"}]})
    four = fleet_from_dict({"instances": [{"gpu": "l40s", "count": 4, "model": "llama-3.1-8b"}]})
    assert fleet_capacity(four, reqs) == pytest.approx(4 * fleet_capacity(one, reqs))
    assert math.isfinite(fleet_capacity(one, reqs)) and fleet_capacity(one, reqs) > 0


@pytest.mark.parametrize("doc, match", [
    ({"instances": []}, "'instances' must list at least one instance"),
    ({"instances": [{"gpu": "h100-sxm"}]}, r"fleet: instances\[0\]: missing required key 'model'"),
    ({"instances": [{"gpu": "tpu9", "model": "llama-3.1-8b"}]}, "unknown GPU"),
    ({"instances": [{"gpu": "l4", "model": "llama-3.1-70b"}]}, "does not fit"),
    ({"instances": [{"gpu": "l4", "model": "llama-3.1-8b", "count": 0}]},
     r"instances\[0\]\.count: expected a whole number >= 1, got 0"),
    ({"instances": [{"gpu": "l4", "model": "llama-3.1-8b", "cnt": 2}]},
     r"unknown key 'cnt' \(did you mean 'count'\?\)"),
    ({"instances": [{"gpu": "l4", "model": "llama-3.1-8b", "preemption": "x"}]}, "preemption"),
    ({"instances": [{"gpu": "l4", "model": "llama-3.1-8b", "queue": "lifo"}]},
     "unknown queue discipline 'lifo'"),
    ({"instances": [{"gpu": "l4", "model": "llama-3.1-8b", "isolation": {"long": 5}}]},
     r"instances\[0\]\.isolation: unknown key 'long'; valid keys: long_threshold"),
    ({"instances": [{"gpu": "l4", "model": "llama-3.1-8b",
                     "isolation": {"short_kv_reserve": 1.5}}]}, "short_kv_reserve must be"),
])
def test_bad_fleet_documents(doc, match):
    with pytest.raises(FleetError, match=match):
        fleet_from_dict(doc)


def test_load_fleet_by_name_and_file(tmp_path):
    assert load_fleet("mixed").size == 8
    with pytest.raises(FleetError, match="unknown fleet 'nope'"):
        load_fleet("nope")
    bad = tmp_path / "f.yaml"
    bad.write_text("instances: [\n")
    with pytest.raises(FleetError, match="cannot read fleet file"):
        load_fleet(str(bad))
    good = tmp_path / "g.yaml"
    good.write_text("name: g\ninstances:\n  - {gpu: l4, model: llama-3.1-8b, count: 3}\n")
    f = load_fleet(str(good))
    assert [n for n, _ in f.expand()] == ["l4-0", "l4-1", "l4-2"]


def test_conservation_error_is_an_assertion():
    assert issubclass(ConservationError, AssertionError)


# ---- the optimised loop against a plain one ------------------------------------------------
def reference_run(fleet, requests, router, admission=None):
    """The fleet loop at its plainest: at every arrival, each engine whose next event is due is
    advanced to it, every view is rebuilt, and the picked engine is advanced before the add.
    Returns {request id: (instance or -1, first_scheduled, first_token, finish, rejected)}."""
    engines = build_engines(fleet, None, record_token_times=False)
    inflight, out = {}, {}

    def finish(i, done):
        for r in done:
            req = inflight.pop(r.id)
            out[r.id] = (i, r.first_scheduled, r.first_token, r.finish, r.rejected)
            router.on_finished(req, i)
            if admission is not None:
                admission.settle(req, r.prompt_tokens + r.output_tokens, r.finish)

    for req in requests:
        t = req.arrival
        for i, e in enumerate(engines):
            if e.next_event_time() <= t:
                finish(i, e.advance_to(t))
        views = [e.view(i) for i, e in enumerate(engines)]
        if admission is not None and not admission.admit(req, views, t).admitted:
            out[req.id] = (-1, -1.0, -1.0, -1.0, "admission")
            continue
        i = router.pick(req, views)
        finish(i, engines[i].advance_to(t))
        inflight[req.id] = req
        assert engines[i].add_request(req, t)
        router.on_routed(req, i)
    for i, e in enumerate(engines):
        finish(i, e.advance_to(math.inf))
    assert not inflight
    return out


def outcome(sim):
    return {rid: (sim.placed.get(rid, -1), r.first_scheduled, r.first_token, r.finish,
                  "admission" if r.rejected.startswith("admission") else r.rejected)
            for rid, r in sim.results.items()}


@pytest.mark.parametrize("router", ["least-tokens", "p2c", "earliest-completion"])
def test_view_based_routers_give_the_plain_loops_timestamps_exactly(router):
    reqs = workload(300, load=1.3, seed=4)
    sim = simulate(small_fleet(), reqs, get_router(router, seed=7))
    assert outcome(sim) == reference_run(small_fleet(), reqs, get_router(router, seed=7))


def test_admission_keeps_the_timely_loop_even_for_round_robin():
    reqs = workload(200, load=1.2, seed=5)
    limit = sorted(r.total_tokens for r in reqs)[150]

    def adm():
        return Admission(AdmissionConfig(max_context=limit))

    sim = simulate(small_fleet(), reqs, get_router("round-robin"), admission=adm())
    assert outcome(sim) == reference_run(small_fleet(), reqs, get_router("round-robin"), adm())


@pytest.mark.parametrize("router", ["round-robin", "random"])
def test_routers_without_views_let_instances_lag(router):
    assert get_router(router).needs_views is False
    assert get_router("least-tokens").needs_views is True
    reqs = workload(300, load=1.3, seed=6)
    sim = simulate(small_fleet(), reqs, get_router(router, seed=3))
    # Each instance is advanced only to its own arrivals: exactly Engine.run on its share.
    engines = build_engines(small_fleet(), None, record_token_times=False)
    for i, e in enumerate(engines):
        share = [r for r in reqs if sim.placed[r.id] == i]
        assert share and {r.id: r for r in e.run(share)} == {
            r.id: sim.results[r.id] for r in share}
    # The plain loop cuts decode runs at other instances' arrivals too: the same run up to
    # rounding of those cuts.
    ref = reference_run(small_fleet(), reqs, get_router(router, seed=3))
    got = outcome(sim)
    assert got.keys() == ref.keys()
    for rid, (i, *times, rej) in got.items():
        assert i == ref[rid][0] and rej == ref[rid][-1]
        assert times == pytest.approx(list(ref[rid][1:4]), rel=1e-12, abs=1e-12)


def test_lagging_loop_refuses_admission():
    engines = build_engines(small_fleet(), None)
    adm = Admission(AdmissionConfig(max_context=1000))
    with pytest.raises(ValueError, match="lag=True needs no admission"):
        FleetSim(engines, get_router("round-robin"), adm, lag=True)


def test_fleet_file_chooses_queue_discipline_and_engine_isolation(tmp_path):
    path = tmp_path / "iso.yaml"
    path.write_text(
        "instances:\n"
        "  - {gpu: h100-sxm, model: llama-3.1-8b, count: 2, queue: vtc,\n"
        "     isolation: {long_threshold: 4096, short_kv_reserve: 0.2,\n"
        "                 short_seq_reserve: 0.25, max_request_kv_share: 0.5}}\n"
        "  - {gpu: l40s, model: llama-3.1-8b}\n")
    fleet = load_fleet(str(path))
    engines = build_engines(fleet)
    assert [type(e.sched.waiting).__name__ for e in engines] == ["VTC", "VTC", "FCFS"]
    assert engines[0].sched.waiting is not engines[1].sched.waiting
    assert engines[0].isolation == IsolationPolicy(4096, 0.2, 0.25, 0.5)
    assert engines[2].isolation is None
    assert fleet.to_dict()["instances"][0]["isolation"]["short_seq_reserve"] == 0.25
    # A request over half the KV is rejected by the isolated H100s, not by the L40S.
    big = engines[0].bm.num_blocks * 16 // 2 + 64
    assert not engines[0].add_request(Request(0, 0.0, big - 10, 10))
    assert isinstance(engines[0].sched.waiting, VTC)
    # queue_factory still wins over the file.
    assert all(type(e.sched.waiting).__name__ == "FCFS"
               for e in build_engines(fleet, queue_factory=FCFS))
    sim = simulate(fleet, workload(60, seed=3), get_router("least-tokens"))
    assert len(sim.results) == 60
