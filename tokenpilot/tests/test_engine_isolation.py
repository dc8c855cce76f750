"""Size-class isolation inside the engine, and queue disciplines chosen by name."""

from __future__ import annotations

import dataclasses

import pytest

from tokenpilot.cluster import fleet_from_dict, simulate
from tokenpilot.costmodel import CostModel
from tokenpilot.engine import Engine, EngineConfig
from tokenpilot.hardware import get_gpu
from tokenpilot.models import get_model
from tokenpilot.policy.disciplines import FCFS, VTC, StrictPriority, make_discipline
from tokenpilot.policy.isolation import IsolationPolicy
from tokenpilot.policy.routers import make_router
from tokenpilot.workload import Request

CM = CostModel(get_model("llama-3.1-8b"), get_gpu("h100-sxm"))


def _isolated_run(policy: IsolationPolicy | None):
    # Four long requests first, then twenty short ones, all at once on 4 slots.
    reqs = [Request(i, i * 1e-3, 2000, 100) for i in range(4)]
    reqs += [Request(4 + i, 0.01 + i * 1e-3, 100, 20) for i in range(20)]
    eng = Engine(CM, EngineConfig(max_num_seqs=4, max_num_batched_tokens=4096),
                 isolation=policy)
    return eng, {r.id: r for r in eng.run(reqs)}


def test_a_blocked_long_request_does_not_hold_back_short_ones():
    # Half the slots are the short requests' own: two long ones run, the other two wait.
    policy = IsolationPolicy(long_threshold=1000, short_seq_reserve=0.5)
    eng, res = _isolated_run(policy)
    assert policy.long_seq_budget(4) == 2
    first_two_done = sorted(res[i].finish for i in range(2))
    # Long 2 and 3 start only as long 0 and 1 finish, in arrival order (FCFS in the class).
    assert res[2].first_scheduled >= first_two_done[0]
    assert res[3].first_scheduled >= first_two_done[1]
    assert res[2].first_scheduled <= res[3].first_scheduled
    # Short requests arrived after all four long ones, yet the first ones start before 2 and 3.
    shorts = [res[i] for i in range(4, 24)]
    assert all(not r.rejected for r in res.values())
    assert min(r.first_scheduled for r in shorts) < res[2].first_scheduled
    assert eng.sched.long_seqs == 0 and eng.sched.long_blocks == 0 and not eng.sched.held
    # Without isolation the four long ones take all four slots first: shorts wait for them.
    _, plain = _isolated_run(None)
    assert min(plain[i].first_scheduled for i in range(4, 24)) >= min(
        plain[i].finish for i in range(4))
    assert max(r.first_token for r in shorts) < max(plain[i].first_token for i in range(4, 24))


def test_books_of_running_long_requests_stay_within_the_long_budget():
    policy = IsolationPolicy(long_threshold=500, short_kv_reserve=0.4, short_seq_reserve=0.25)
    eng = Engine(CM, EngineConfig(max_num_seqs=8, max_num_batched_tokens=512, check=True),
                 num_blocks=400, isolation=policy)
    for i in range(40):
        eng.add_request(Request(i, 0.0, 900 if i % 3 == 0 else 120, 60 + 7 * i), 0.0)
    while eng.sched.has_work():
        eng.advance_to(eng.next_event_time())
        sched = eng.sched
        longs = [q for q in sched.running.values() if q.prompt >= 500]
        assert sched.long_seqs == len(longs) <= policy.long_seq_budget(8)
        assert sched.long_blocks == sum(q.long_blocks for q in longs)
        assert sched.long_blocks <= policy.long_block_budget(400)
    assert len(eng.finished) == 40


def test_requests_the_isolation_policy_can_never_run_are_rejected_with_a_reason():
    # 100 blocks: one request may hold 80, long ones together 40.
    policy = IsolationPolicy(long_threshold=500, short_kv_reserve=0.6, max_request_kv_share=0.8)
    eng = Engine(CM, EngineConfig(), num_blocks=100, isolation=policy)
    assert not eng.add_request(Request(0, 0.0, 999, 400))  # 88 blocks
    assert "per-request cap of 80" in eng.result(0).rejected
    assert not eng.add_request(Request(1, 0.0, 1000, 10))  # long, 64 blocks
    assert "exceed the 40 long requests may use" in eng.result(1).rejected
    assert eng.add_request(Request(2, 0.0, 400, 300))  # short, 44 blocks
    assert eng.add_request(Request(3, 0.0, 500, 100))  # long, 38 blocks
    eng.advance_to(float("inf"))
    assert eng.result(2).finish > 0 and eng.result(3).finish > 0
    assert eng.finalize_stats().rejected == 2


class _Recorder(FCFS):
    def __init__(self) -> None:
        super().__init__()
        self.ended: list[int] = []

    def on_finished(self, req: Request) -> None:
        self.ended.append(req.id)


def test_disciplines_by_name_and_the_finish_hook():
    assert isinstance(make_discipline("priority"), StrictPriority)
    assert isinstance(make_discipline("vtc"), VTC)
    with pytest.raises(ValueError, match="unknown queue discipline 'lifo'.*fcfs, priority, vtc"):
        make_discipline("lifo")
    with pytest.raises(ValueError, match="unknown queue discipline"):
        EngineConfig(queue="lifo")
    eng = Engine(CM, EngineConfig(queue="vtc"))
    assert isinstance(eng.sched.waiting, VTC)
    rec = _Recorder()
    eng = Engine(CM, EngineConfig(max_num_seqs=2, max_num_batched_tokens=512), queue=rec)
    eng.run([Request(i, 0.0, 300, 5 + i, tenant=f"t{i % 2}") for i in range(5)])
    assert sorted(rec.ended) == list(range(5))
    # Under priority by name, the high-priority request arriving last is served first.
    eng = Engine(CM, EngineConfig(queue="priority", max_num_seqs=1,
                                  max_num_batched_tokens=512))
    res = eng.run([Request(0, 0.0, 300, 5), Request(1, 0.0, 300, 5),
                   Request(2, 0.001, 300, 5, priority=2)])
    assert res[2].first_scheduled < res[1].first_scheduled


def _long_then_short(share: float, yields: bool = False, with_plans: bool = False):
    """A 40k-token prompt, then a 1k one 50 ms later, on one engine with isolation; each
    iteration's long prefill tokens, and the short request's TTFT (``with_plans``: also each
    iteration's (long, short) prefill tokens)."""
    policy = IsolationPolicy(long_threshold=16384, long_prefill_share=share,
                             long_prefill_yields=yields)
    eng = Engine(CM, EngineConfig(check=True), isolation=policy)
    eng.add_request(Request(0, 0.0, 40000, 50), 0.0)
    short = Request(1, 0.05, 1000, 20)
    long_chunks, plans, added = [], [], False
    for _ in range(100_000):  # bounded: one event at a time
        if not added and eng.now >= short.arrival:
            eng.add_request(short, eng.now)
            added = True
        if not eng.sched.has_work() and added:
            break
        eng.advance_to(eng.now + 1e-6)
        long_chunks.append(sum(c for q, c in eng.sched.plan if q.id == 0))
        plans.append((long_chunks[-1], sum(c for q, c in eng.sched.plan if q.id == 1)))
    res = {r.id: r for r in eng.results()}
    assert res[0].output_tokens == 50 and res[1].finish > 0
    out = long_chunks, res[1].first_token - res[1].arrival, res[0].first_token
    return (*out, plans) if with_plans else out


def test_a_yielding_long_prefill_never_shares_an_iteration_with_a_short_prefill():
    chunks, ttft, long_first, plans = _long_then_short(1 / 16, True, True)
    assert max(chunks) == 512
    short_iterations = [p for p in plans if p[1] > 0]
    assert short_iterations and all(long == 0 for long, _ in short_iterations), plans
    # Without yielding, the short prompt's iteration carries a long chunk too.
    *_, shared = _long_then_short(1 / 16, False, True)
    assert any(long > 0 and short > 0 for long, short in shared)
    _, ttft_shared, long_first_shared = _long_then_short(1 / 16)
    assert ttft < ttft_shared, (ttft, ttft_shared)
    # The long prefill loses only the iterations the short one took.
    assert long_first < 1.1 * long_first_shared, (long_first, long_first_shared)


def test_a_long_prefill_cap_lets_short_prefills_run_beside_a_long_one():
    chunks, ttft, long_first = _long_then_short(1 / 16)
    assert max(chunks) == 512  # 1/16 of max_num_batched_tokens 8192, never more
    whole, ttft_whole, long_first_whole = _long_then_short(1.0)
    assert max(whole) == 8192
    # The short prompt no longer waits for the long one's whole-iteration chunks ...
    assert ttft < 0.5 * ttft_whole, (ttft, ttft_whole)
    # ... and the long prefill, in small chunks, takes about as long (attention over its
    # context dominates either way).
    assert long_first < 1.25 * long_first_whole, (long_first, long_first_whole)


def test_long_prefill_share_is_checked():
    with pytest.raises(ValueError, match="long_prefill_share"):
        IsolationPolicy(long_prefill_share=0.0)


YIELDING = IsolationPolicy(long_threshold=16384, long_prefill_share=1 / 16,
                           long_prefill_yields=True)


def test_long_prefills_that_yielded_to_nothing_take_their_cap_back():
    # A second long prompt arrives while the first prefills and nothing decodes: the iteration
    # yields to it, it is set aside (only one chunk cap), and the first one's chunk runs
    # anyway. This deadlocked ("nothing schedulable") before.
    eng = Engine(CM, EngineConfig(check=True), isolation=YIELDING)
    res = eng.run([Request(0, 0.0, 40000, 10), Request(1, 0.03, 40000, 10)])
    assert all(r.output_tokens == 10 for r in res)
    assert res[0].first_token < res[1].first_token
    assert eng.sched.long_queued == eng.sched.queued_prefill == 0


def test_a_yielding_engine_can_show_routers_the_load_a_short_request_waits_behind():
    view_short = dataclasses.replace(YIELDING, view_as_short=True)
    views = {}
    for policy in (YIELDING, view_short):
        eng = Engine(CM, EngineConfig(check=True), isolation=policy)
        eng.add_request(Request(0, 0.0, 40000, 10), 0.0)
        eng.add_request(Request(1, 0.0, 1000, 10), 0.0)
        eng.advance_to(0.05)  # the short one is done with its prompt, the long one is not
        assert eng.sched.long_queued == eng.sched.queued_prefill > 30000
        views[policy.view_as_short] = eng.view()
    full, short = views[False], views[True]
    assert full.queued_prefill_tokens > 30000
    assert short.queued_prefill_tokens == 512  # one chunk of the long prompt: the cap
    assert full.outstanding_tokens - short.outstanding_tokens == full.queued_prefill_tokens - 512
    assert short.predicted_drain_s < full.predicted_drain_s


def test_least_tokens_keeps_sending_short_requests_to_an_instance_prefilling_a_long_one():
    fleet = fleet_from_dict({"name": "two", "instances": [
        {"gpu": "h100-sxm", "count": 2, "model": "llama-3.1-8b"}]})
    reqs = [Request(0, 0.0, 40000, 10)] + [Request(i, 0.01 * i, 1000, 50) for i in range(1, 21)]
    placed = {}
    for policy in (YIELDING, dataclasses.replace(YIELDING, view_as_short=True)):
        sim = simulate(fleet, reqs, make_router("least-tokens"), isolation=policy)
        assert all(not r.rejected for r in sim.results.values())
        long_on = sim.placed[0]
        placed[policy.view_as_short] = sum(sim.placed[i] == long_on for i in range(1, 21))
    # Its 40k-token prompt reads as 40 short requests' load: all the short traffic goes to the
    # other instance. Shown as the one chunk a short request may wait for, it is shared.
    assert placed[False] == 0
    assert placed[True] >= 5, placed


def test_view_as_short_needs_yielding_long_prefills():
    with pytest.raises(ValueError, match="view_as_short"):
        IsolationPolicy(view_as_short=True)
    with pytest.raises(ValueError, match="view_as_short"):
        IsolationPolicy(long_prefill_share=1 / 16, view_as_short=True)
