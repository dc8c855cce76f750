"""Queue disciplines: strict priority and VTC, alone and inside the engine."""

from __future__ import annotations

import math
import random
from typing import get_args

import pytest

from tokenpilot.policy.disciplines import (
    FCFS,
    VTC,
    DisciplineName,
    QueueDiscipline,
    StrictPriority,
    discipline_names,
    make_discipline,
)
from tokenpilot.workload.request import Request

W_IN, W_OUT = 1.0, 2.0


def run_service_loop(disc, sizes: dict[str, tuple[tuple[int, int], tuple[int, int]]],
                     capacity: int, steps: int, weights: dict[str, float] | None = None,
                     seed: int = 0):
    """A small continuous-batching server driving ``disc``.

    Every tenant stays backlogged (its queue is topped up to 8 requests each step). A request
    holds ``prompt + output`` tokens of the batch's ``capacity`` from admission to its end; its
    input is served when it is popped, one output token per running request per step. Yields
    the weighted service per tenant (divided by the tenant weight) after every pop.
    """
    rng = random.Random(seed)
    weights = weights or {}
    served = dict.fromkeys(sizes, 0.0)
    pending = dict.fromkeys(sizes, 0)
    running: list[list] = []  # [request, output tokens left]
    used = 0
    next_id = 0
    for step in range(steps):
        for t, (prompt_rng, out_rng) in sizes.items():
            while pending[t] < 8:
                disc.push(Request(next_id, float(step), rng.randint(*prompt_rng),
                                  rng.randint(*out_rng), tenant=t))
                next_id += 1
                pending[t] += 1
        while len(disc) and used + disc.peek().total_tokens <= capacity:
            req = disc.pop()
            pending[req.tenant] -= 1
            used += req.total_tokens
            served[req.tenant] += W_IN * req.prompt_tokens / weights.get(req.tenant, 1.0)
            disc.on_service(req, req.prompt_tokens)
            running.append([req, req.output_tokens])
            yield dict(served)
        still = []
        for entry in running:
            req = entry[0]
            served[req.tenant] += W_OUT / weights.get(req.tenant, 1.0)
            if hasattr(disc, "on_decode"):
                disc.on_decode(req, 1)
            else:
                disc.on_service(req, 1)
            entry[1] -= 1
            if entry[1]:
                still.append(entry)
            else:
                used -= req.total_tokens
        running = still


SIZES = {"small": ((50, 100), (5, 20)), "large": ((5, 20), (150, 250))}
CAPACITY = 1200
# The paper's U: the longest prompt's input cost, or a full batch of output tokens.
U = max(W_IN * 100, W_OUT * CAPACITY)


def max_gap(disc, weights=None, steps=3000):
    gap, total = 0.0, 0.0
    for served in run_service_loop(disc, SIZES, CAPACITY, steps, weights):
        a, b = served.values()
        gap = max(gap, abs(a - b))
        total = a + b
    return gap, total


def test_vtc_service_gap_stays_within_twice_u_at_every_decision():
    gap, total = max_gap(VTC(w_in=W_IN, w_out=W_OUT))
    assert total > 20 * U  # a long run, not a bound met by serving little
    assert gap <= 2 * U, f"VTC gap {gap} exceeds 2U = {2 * U}"


def test_fcfs_breaks_the_same_bound():
    # The check above can fail: under FCFS the tenant with longer requests pulls ahead for ever.
    gap, _ = max_gap(FCFS())
    assert gap > 2 * U


def test_vtc_weights_share_service_in_proportion():
    weights = {"small": 2.0, "large": 1.0}
    disc = VTC(weights, w_in=W_IN, w_out=W_OUT)
    gap, total = max_gap(disc, weights)
    assert gap <= 2 * U  # normalised by weight, the bound holds as for equal weights
    raw = disc.served
    assert raw["small"] / raw["large"] == pytest.approx(2.0, rel=0.1)


def test_vtc_lifts_a_returning_tenants_counter_to_the_backlogged_minimum():
    vtc = VTC()
    for i in range(20):
        vtc.push(Request(i, 0.0, 100, 10, tenant="a"))
    for _ in range(10):
        vtc.on_decode(vtc.pop(), 10)
    assert vtc.counters["a"] == pytest.approx(10 * (100 + 2 * 10))
    vtc.push(Request(100, 1.0, 100, 10, tenant="b"))
    vtc.push(Request(101, 1.0, 100, 10, tenant="b"))
    # Without the lift, b (counter 0) would take the next 10+ pops in a row.
    assert vtc.counters["b"] == vtc.counters["a"]
    order = [vtc.pop().tenant for _ in range(4)]
    assert order.count("a") >= 2


def test_vtc_lift_with_nobody_backlogged_uses_the_last_tenant_to_leave():
    vtc = VTC()
    vtc.push(Request(0, 0.0, 500, 10, tenant="a"))
    vtc.pop()
    assert len(vtc) == 0
    vtc.push(Request(1, 5.0, 10, 10, tenant="b"))
    assert vtc.counters["b"] == vtc.counters["a"] == 500.0


def test_vtc_does_not_charge_twice_for_a_recompute_and_counts_decode_via_on_service():
    vtc = VTC()
    r = Request(0, 0.0, 100, 50, tenant="a")
    vtc.push(r)
    vtc.pop()
    vtc.on_service(r, 100)  # the prefill the pop already charged
    vtc.on_service(r, 5)  # a caller without on_decode: output tokens
    assert vtc.served["a"] == 100 + 2 * 5
    vtc.push(r)  # preempted by recompute
    vtc.pop()
    vtc.on_service(r, 105)  # prompt + 5 generated, prefilled again
    assert vtc.served["a"] == 110
    vtc.on_decode(r, 45)
    assert vtc.served["a"] == 110 + 90


def test_disciplines_satisfy_the_engine_protocol():
    for disc in (VTC(), StrictPriority()):
        assert isinstance(disc, QueueDiscipline)
    assert VTC.wants_decode_service is True


def test_strict_priority_orders_by_priority_then_arrival():
    q = StrictPriority()
    reqs = [Request(0, 0.0, 10, 1, priority=0), Request(1, 1.0, 10, 1, priority=5),
            Request(2, 2.0, 10, 1, priority=5), Request(3, 3.0, 10, 1, priority=1)]
    for r in reversed(reqs):
        q.push(r)
    assert q.peek().id == 1
    first = q.pop()
    q.push(first)  # back after a preemption: still at the head of its priority
    assert [q.pop().id for _ in range(len(q))] == [1, 2, 3, 0]
    with pytest.raises(IndexError):
        q.pop()


def test_vtc_empty_pop_raises_index_error():
    with pytest.raises(IndexError):
        VTC().pop()


# ---- inside the engine ----------------------------------------------------------------------
def _flood():
    # Tenant "early" submits 400 requests just before tenant "late" submits 400 of its own.
    reqs = [Request(i, 0.001 * i / 400, 400, 100, tenant="early") for i in range(400)]
    reqs += [Request(400 + i, 0.002 + 0.001 * i / 400, 400, 100, tenant="late")
             for i in range(400)]
    return reqs


def _served_by(queue, horizon: float) -> dict[str, int]:
    from tokenpilot.costmodel import CostModel
    from tokenpilot.engine import Engine, EngineConfig
    from tokenpilot.hardware import get_gpu
    from tokenpilot.models import get_model

    eng = Engine(CostModel(get_model("llama-3.1-8b"), get_gpu("h100-sxm")),
                 EngineConfig(max_num_seqs=32), queue=queue, num_blocks=4000)
    reqs = _flood()
    for r in reqs:
        eng.advance_to(r.arrival)
        eng.add_request(r)
    eng.advance_to(horizon)
    tenant = {r.id: r.tenant for r in reqs}
    started = {"early": 0, "late": 0}
    for res in eng.results():
        if 0 <= res.first_scheduled <= horizon:
            started[tenant[res.id]] += 1
    return started


def test_vtc_in_the_engine_shares_a_flood_that_fcfs_gives_to_the_first_tenant():
    horizon = 2.0
    fcfs = _served_by(FCFS(), horizon)
    vtc = _served_by(VTC(), horizon)
    assert fcfs["late"] == 0 and fcfs["early"] > 50  # the setup really is a flood
    assert math.isclose(vtc["early"], vtc["late"], abs_tol=0.1 * sum(vtc.values()) + 2)


@pytest.mark.parametrize("make", [FCFS, StrictPriority, VTC])
def test_remove_takes_a_request_out_unserved(make):
    q = make()
    reqs = [Request(i, float(i), 100 + i, 10, tenant="ab"[i % 2], priority=i % 3)
            for i in range(6)]
    for r in reqs:
        q.push(r)
    gone = reqs[2]
    assert q.remove(gone) and not q.remove(gone)  # a second time: not queued any more
    assert len(q) == 5
    popped = [q.pop() for _ in range(5)]
    assert gone not in popped and sorted(r.id for r in popped) == [0, 1, 3, 4, 5]


def test_vtc_remove_charges_nobody_and_ends_the_backlog():
    q = VTC()
    a, b = Request(0, 0.0, 500, 10, tenant="a"), Request(1, 1.0, 100, 10, tenant="b")
    q.push(a)
    q.push(b)
    assert q.remove(a)
    assert q.counters["a"] == 0.0 and q.served["a"] == 0.0
    assert q.pop() is b and len(q) == 0  # tenant a is no longer backlogged


def test_make_discipline_is_the_one_factory():
    """Engine and gateway pick disciplines by name here; only VTC takes the tenant weights."""
    vtc = make_discipline("vtc", {"a": 2.0})
    assert isinstance(vtc, VTC) and vtc.weights == {"a": 2.0}
    assert make_discipline("vtc").weights == {}
    assert type(make_discipline("fcfs", {"a": 2.0})) is FCFS
    assert type(make_discipline("priority")) is StrictPriority
    assert discipline_names() == ("fcfs", "priority", "vtc")
    assert get_args(DisciplineName) == discipline_names()  # the names a config may give
    with pytest.raises(ValueError, match="unknown queue discipline 'lifo'"):
        make_discipline("lifo")
    with pytest.raises(ValueError, match="must be positive"):
        make_discipline("vtc", {"a": 0.0})
