"""Conservation, saturation, KV overflow and the fleet-facing API of one engine."""

from __future__ import annotations

import math
import random
import statistics

import pytest

from tokenpilot.costmodel import CostModel
from tokenpilot.engine import Engine, EngineConfig
from tokenpilot.hardware import get_gpu
from tokenpilot.models import get_model
from tokenpilot.policy.view import InstanceView
from tokenpilot.workload import Request

CM = CostModel(get_model("llama-3.1-8b"), get_gpu("h100-sxm"))


def poisson(n: int, rate: float, seed: int = 0, prompt=(100, 1500), output=(20, 400)):
    rng = random.Random(seed)
    t, out = 0.0, []
    for i in range(n):
        t += rng.expovariate(rate)
        out.append(Request(i, t, rng.randint(*prompt), rng.randint(*output)))
    return out


def test_conservation_every_request_finishes_with_its_tokens():
    reqs = poisson(300, 40.0, seed=1)
    eng = Engine(CM, EngineConfig(check=True, preemption="recompute"), num_blocks=600)
    peak = 0
    for r in reqs:
        eng.advance_to(r.arrival)
        peak = max(peak, eng.bm.used)
        assert eng.bm.used <= eng.bm.num_blocks
        eng.add_request(r)
    eng.advance_to(math.inf)
    res = eng.results()
    assert all(r.finish > r.first_token >= r.first_scheduled >= r.arrival for r in res)
    assert all(eng.tokens_by(r.id, r.finish) == r.output_tokens for r in res)
    assert max(eng.series.kv_used) <= 600
    assert eng.bm.used == 0 and eng.bm.anon == 0  # idle: everything free or cached free
    assert not eng.sched.running and not len(eng.sched.waiting)
    assert eng.finalize_stats().finished == 300


def test_saturation_grows_queueing_and_preempts():
    light = Engine(CM, EngineConfig(max_num_seqs=64), num_blocks=2000)
    heavy = Engine(CM, EngineConfig(max_num_seqs=64), num_blocks=2000)
    lres = light.run(poisson(300, 2.0, seed=3))
    hres = heavy.run(poisson(300, 60.0, seed=3))
    lq = [r.queueing for r in lres]
    hq = [r.queueing for r in hres]
    assert statistics.mean(hq) > 20 * statistics.mean(lq)
    # Under overload queueing delay keeps growing: the last requests wait longest.
    assert statistics.mean(hq[-50:]) > 3 * statistics.mean(hq[:50])
    assert heavy.finalize_stats().preempt_recompute > 0
    assert light.finalize_stats().preempt_recompute == 0


def test_kv_overflow_with_swap_shows_ttft_and_tpot_cliffs():
    # Short prompts, long outputs: the batch is admitted, then its KV outgrows the cache while
    # decoding, so running requests are swapped out and wait on host memory.
    reqs = poisson(150, 4.0, seed=5, prompt=(100, 400), output=(800, 1600))
    roomy = Engine(CM, EngineConfig(preemption="swap"))
    tight = Engine(CM, EngineConfig(preemption="swap"), num_blocks=800)
    r_ok, r_bad = roomy.run(reqs), tight.run(reqs)
    s_ok, s_bad = roomy.finalize_stats(), tight.finalize_stats()
    assert s_ok.preempt_swap == 0 and s_bad.preempt_swap > 100
    assert s_bad.swap_s > 0 and s_bad.swap_out_tokens > 0 and s_bad.swap_in_tokens > 0

    def pct(xs, q):
        return sorted(xs)[int(q * (len(xs) - 1))]

    assert pct([r.ttft for r in r_bad], 0.9) > 100 * pct([r.ttft for r in r_ok], 0.9)
    assert pct([r.tpot for r in r_bad], 0.99) > 1.4 * pct([r.tpot for r in r_ok], 0.99)
    assert any(len(r.preemptions) > 1 for r in r_bad)


def test_requests_beyond_limits_are_rejected_with_a_reason():
    eng = Engine(CM, EngineConfig(max_model_len=1000), num_blocks=50)
    assert not eng.add_request(Request(0, 0.0, 900, 200))
    assert not eng.add_request(Request(1, 0.0, 0, 5))
    ok = Engine(CM, EngineConfig(), num_blocks=50)
    assert not ok.add_request(Request(2, 0.0, 700, 200))  # 57 blocks > 50
    res = eng.results()
    assert "max_model_len" in res[0].rejected and res[0].finish == -1
    assert res[1].rejected
    assert "KV blocks" in ok.results()[0].rejected
    with pytest.raises(ValueError):
        EngineConfig(max_num_seqs=64, max_num_batched_tokens=32)


def test_kv_dtype_changes_capacity_and_speed():
    fp8 = CostModel(get_model("llama-3.1-8b"), get_gpu("h100-sxm"), kv_dtype="fp8")
    assert Engine(fp8).bm.num_blocks > 1.9 * Engine(CM).bm.num_blocks
    reqs = poisson(100, 20.0, seed=2, prompt=(2000, 4000))
    slow = max(r.finish for r in Engine(CM).run(reqs))
    fast = max(r.finish for r in Engine(fp8).run(reqs))
    assert fast <= slow


def test_sliding_window_caps_kv_per_sequence():
    reqs = [Request(0, 0.0, 2000, 500)]
    eng = Engine(CM, EngineConfig(check=True), window=512)
    eng.advance_to(1.0)
    eng.add_request(reqs[0], 1.0)
    eng.advance_to(1.5)
    assert eng.bm.used == 32  # 512 / 16 blocks, not 2000 / 16
    eng.advance_to(math.inf)
    assert eng.results()[0].finish > 0


def test_view_and_fleet_api():
    eng = Engine(CM, EngineConfig(), name="a")
    assert eng.next_event_time() == math.inf
    for r in poisson(20, 100.0, seed=4):
        eng.advance_to(r.arrival)
        eng.add_request(r, r.arrival)
    v = eng.view(3)
    assert isinstance(v, InstanceView) and v.index == 3 and v.name == "a"
    assert v.num_running + v.num_waiting == 20 - len(eng.finished)
    assert v.kv_blocks_total == eng.bm.num_blocks and v.kv_blocks_used > 0
    assert v.outstanding_tokens > 0 and v.predicted_drain_s > 0
    assert v.model == "llama-3.1-8b" and v.decode_tokens_per_s > 0
    # What one more sequence costs the batch, and prefill's rate beside the decodes, are the
    # cost model's own figures at this batch.
    n, ctx = v.num_running, eng.sched.dec.ctx_sum(eng.s)
    if eng.sched.prefilling:
        ctx += sum(q.computed for q in eng.sched.prefilling.values())
    step = CM.decode_time(n, ctx)
    assert v.decode_step_growth_s == pytest.approx(CM.decode_time(n + 1, ctx + ctx // n) - step)
    assert v.decode_step_growth_s > 0
    chunk = EngineConfig().max_num_batched_tokens - n
    assert v.mixed_prefill_tokens_per_s == pytest.approx(
        chunk / CM.iteration_time([(chunk, 0)], n, ctx))
    assert 0 < v.mixed_prefill_tokens_per_s < v.prefill_tokens_per_s
    done = []
    while (t := eng.next_event_time()) < math.inf:
        assert t > eng.now or not eng.sched.has_work()
        done += eng.advance_to(t)
    before = 20 - len(done)  # finished while the arrivals were being added
    assert {q.id for q in eng.finished} == set(range(20))
    assert len({r.id for r in done}) == len(done) and before >= 0
    assert eng.view().num_running == 0 and eng.view().predicted_drain_s == 0
    assert eng.view().mixed_prefill_tokens_per_s == eng.view().prefill_tokens_per_s


def test_tokens_by_is_monotone_and_matches_first_token_and_finish():
    eng = Engine(CM, EngineConfig(), num_blocks=400)
    res = eng.run(poisson(40, 30.0, seed=6))
    for r in res:
        assert eng.first_token_time(r.id) == r.first_token
        assert eng.tokens_by(r.id, r.first_token - 1e-9) == 0
        assert eng.tokens_by(r.id, r.first_token) >= 1
        ts = [r.first_token + (r.finish - r.first_token) * i / 10 for i in range(10)] + [r.finish]
        counts = [eng.tokens_by(r.id, t) for t in ts]
        assert counts == sorted(counts) and counts[-1] == r.output_tokens
        if r.output_tokens > 20 and not r.preemptions:
            mid = eng.tokens_by(r.id, (r.first_token + r.finish) / 2)
            assert 0.2 * r.output_tokens < mid < 0.8 * r.output_tokens


class _Newest:
    """Last come, first served: a discipline the engine has never heard of."""

    wants_decode_service = True

    def __init__(self) -> None:
        self.items: list[Request] = []
        self.decoded: dict[int, int] = {}

    def push(self, req: Request) -> None:
        self.items.append(req)
        self.items.sort(key=lambda r: r.arrival)

    def pop(self) -> Request:
        return self.items.pop()

    def peek(self) -> Request:
        return self.items[-1]

    def __len__(self) -> int:
        return len(self.items)

    def on_service(self, req: Request, tokens: int) -> None:
        pass

    def on_decode(self, req: Request, tokens: int) -> None:
        self.decoded[req.id] = self.decoded.get(req.id, 0) + tokens


def test_queue_discipline_is_pluggable_and_hears_decode_service():
    reqs = [Request(i, 0.0, 400, 50) for i in range(6)]
    q = _Newest()  # empty, hence falsy: the engine must still use it
    eng = Engine(CM, EngineConfig(max_num_seqs=2, max_num_batched_tokens=512), queue=q)
    res = eng.run(reqs)
    order = sorted(res, key=lambda r: r.first_scheduled)
    assert {r.id for r in order[:2]} == {4, 5} and order[-1].id == 0
    # Every output token after the first (sampled by the prefill) is reported as decode.
    assert q.decoded == {i: 49 for i in range(6)}
