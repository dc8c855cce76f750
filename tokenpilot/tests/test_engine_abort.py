"""``Engine.abort``: a request dropped wherever it is (waiting, prefilling, decoding, swapped
out, set aside by isolation) frees its KV and leaves every book square, as vLLM's abort."""

from __future__ import annotations

import math
import random

import pytest

from tokenpilot.costmodel import CostModel
from tokenpilot.engine import Engine, EngineConfig
from tokenpilot.engine.sequence import DECODE, FINISHED, PREFILL, SWAPPED, WAITING
from tokenpilot.hardware import get_gpu
from tokenpilot.models import get_model
from tokenpilot.policy import IsolationPolicy
from tokenpilot.workload import Request

CM = CostModel(get_model("llama-3.1-8b"), get_gpu("h100-sxm"))


def _load(n: int, seed: int) -> list[Request]:
    rng = random.Random(seed)
    t, out = 0.0, []
    for i in range(n):
        t += rng.expovariate(60.0)
        out.append(Request(i, t, rng.randint(200, 14000), rng.randint(20, 300),
                           prefix_hashes=(rng.randint(0, 3),), prefix_block_tokens=128))
    return out


@pytest.mark.parametrize("cfg", [
    EngineConfig(check=True, preemption="swap"),
    EngineConfig(check=True, preemption="recompute", queue="vtc"),
    EngineConfig(check=True, isolation=IsolationPolicy(long_threshold=9000,
                                                       short_kv_reserve=0.3,
                                                       short_seq_reserve=0.3)),
], ids=["swap", "recompute-vtc", "isolation"])
def test_aborting_requests_in_every_state_leaves_the_books_square(cfg) -> None:
    eng = Engine(CM, cfg, num_blocks=1500)  # tight: preemptions and swaps happen
    reqs = _load(240, seed=3)
    rng = random.Random(5)
    states: set[int] = set()
    aborted = set()
    def times():  # each arrival, and a few instants between (swap-outs are short-lived)
        t = 0.0
        for r in reqs:
            while t + 0.01 < r.arrival:
                t += 0.01
                yield t, None
            t = r.arrival
            yield t, r

    for t, r in times():
        eng.advance_to(t)
        if r is not None:
            eng.add_request(r)
        live = [q for q in eng.seqs.values() if q.state not in (FINISHED,) and q.id not in
                aborted and q.reason == ""]
        if live and rng.random() < (0.3 if r is not None else 0.5 if eng.sched.swapped else 0):
            by_state: dict[int, list] = {}
            for q in live:
                by_state.setdefault(q.state, []).append(q)
            q = rng.choice(by_state[rng.choice(sorted(by_state))])  # every state a fair chance
            states.add(q.state)
            assert eng.abort(q.id)
            aborted.add(q.id)
            assert eng.seqs[q.id].state == FINISHED and eng.seqs[q.id].reason == "aborted"
            assert not eng.abort(q.id)  # twice: nothing more to do
    eng.advance_to(math.inf)
    assert {WAITING, PREFILL, DECODE} <= states, states
    # Everything else ran to its end, and nothing is held: only cached prefix blocks remain.
    for q in eng.seqs.values():
        assert q.state == FINISHED, q
        if q.id not in aborted:
            assert q.produced == q.output
    s = eng.sched
    assert not s.running and not s.swapped and s.n_waiting == 0 and not s.held
    assert s.queued_prefill == 0 and s.nd_rem == 0 and s.long_blocks == 0
    assert eng.bm.used == 0, "an aborted request kept KV blocks"
    assert eng.stats.aborted == len(aborted)


def test_aborting_a_swapped_out_request_gives_its_host_memory_back() -> None:
    eng = Engine(CM, EngineConfig(check=True, preemption="swap", swap_tokens=1 << 20),
                 num_blocks=400)  # 6,400 tokens: eight 600-token requests outgrow it decoding
    for i in range(8):
        eng.add_request(Request(i, 0.0, 600, 600), 0.0)
    host = eng.sched.host_free
    for _ in range(100_000):  # bounded: event by event until one is swapped out
        if eng.sched.swapped:
            break
        eng.advance_to(eng.now + 1e-6)  # one event at a time
    assert eng.sched.swapped, "nothing was swapped out"
    q = eng.sched.swapped[0]
    assert q.state == SWAPPED and eng.sched.host_free < host
    assert eng.abort(q.id)
    eng.advance_to(math.inf)
    assert eng.sched.host_free == host and eng.bm.used == 0
    assert eng.sched.queued_prefill == 0 and eng.sched.nd_rem == 0
    assert sum(s.produced == s.output for s in eng.seqs.values()) == 7
