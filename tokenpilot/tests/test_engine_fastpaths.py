"""The engine's shortcuts equal the plain computations they replace."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from tokenpilot.costmodel import CostModel
from tokenpilot.engine import Engine, EngineConfig, RequestResult, TimeSeries
from tokenpilot.engine.metrics import make_result
from tokenpilot.engine.timing import DecodeClock
from tokenpilot.hardware import get_gpu
from tokenpilot.models import get_model
from tokenpilot.workload import Request

CM = CostModel(get_model("llama-3.1-8b"), get_gpu("h100-sxm"))
# On an L4 a fast-growing decode context turns compute-bound within a span.
L4 = CostModel(get_model("llama-3.1-8b"), get_gpu("l4"))


class _NoCoeffs:
    """A cost model without ``decode_coeffs``: the clock must take the general way."""

    def __init__(self, cm: CostModel) -> None:
        self.cm = cm

    def decode_span(self, *a):
        return self.cm.decode_span(*a)

    def iteration(self, *a):
        return self.cm.iteration(*a)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from([CM, L4]), st.booleans(), st.integers(1, 300),
       st.integers(0, 3_000_000), st.integers(0, 20_000), st.integers(1, 5000),
       st.one_of(st.just(math.inf), st.floats(1e-4, 60)))
def test_decode_run_is_min_of_steps_before_then_span(cm, plain, n, ctx, growth, k, budget):
    clock = DecodeClock(_NoCoeffs(cm) if plain else cm)
    ref = DecodeClock(cm)
    want_k = min(k, ref.steps_before(n, ctx, growth, budget)) if k > 1 else k
    got_k, dt, compute = clock.decode_run(n, ctx, growth, k, budget)
    assert got_k == want_k
    assert dt == ref.span(n, ctx, growth, want_k) or plain
    assert math.isclose(dt, cm.decode_span(n, ctx, growth, want_k), rel_tol=1e-9)
    assert compute == (cm.iteration((), n, ctx).bound == "compute")
    if want_k < k:  # the last step taken starts before the budget, the next one does not
        assert ref.span(n, ctx, growth, want_k - 1) < budget <= ref.span(n, ctx, growth, want_k)


def test_view_is_reused_until_the_engine_moves():
    eng = Engine(CM, EngineConfig())
    for i in range(5):
        eng.add_request(Request(i, 0.0, 500, 50), 0.0)
    v = eng.view(2)
    assert eng.view(2) is v  # nothing happened in between
    assert eng.view(1) is not v and eng.view(1).index == 1
    eng.advance_to(0.05)
    fresh = eng.view(2)
    assert fresh is not v and fresh == eng._make_view(2)
    assert fresh.num_running != v.num_running or fresh.queued_prefill_tokens \
        != v.queued_prefill_tokens
    eng.add_request(Request(9, 0.05, 300, 10), 0.05)
    assert eng.view(2).num_waiting + eng.view(2).num_running == fresh.num_waiting \
        + fresh.num_running + 1


def test_time_series_columns_and_results():
    ts = TimeSeries()
    ts.record(0.0, 1, 2, 3, 4)
    ts.record(0.5, 1, 2, 3, 4)  # unchanged: not kept
    ts.record(1.0, 5, 0, 7, 9)
    assert list(ts.t) == [0.0, 1.0] and len(ts) == 2
    assert (list(ts.running), list(ts.waiting), list(ts.queued_tokens), list(ts.kv_used)) == (
        [1, 5], [2, 0], [3, 7], [4, 9])
    ts.record(2.0, 6, 0, 0, 1)
    assert list(ts.kv_used) == [4, 9, 1]  # columns are rebuilt after a new sample
    spaced = TimeSeries(min_interval_s=1.0)
    assert spaced.due(0.0)
    spaced.record(0.0, 1, 0, 0, 0)
    assert not spaced.due(0.5) and spaced.due(1.0)
    spaced.record(0.5, 2, 0, 0, 0)  # inside the interval: not kept
    spaced.record_if_changed(0.6, (1, 0, 0, 0))  # no interval test, but unchanged
    spaced.record_if_changed(0.7, (3, 0, 0, 0))
    assert list(spaced.t) == [0.0, 0.7] and list(spaced.running) == [1, 3]
    vals = (3, 0.5, 10, 20, 0.6, 0.7, 0.9, 4, ((0.8, "swap"),), "")
    assert make_result(*vals) == RequestResult(*vals)
    assert hash(make_result(*vals)) == hash(RequestResult(*vals))


def test_run_restores_the_garbage_collector():
    import gc

    reqs = [Request(i, i * 0.1, 100, 5) for i in range(5)]
    assert gc.isenabled()
    Engine(CM, EngineConfig()).run(reqs)
    assert gc.isenabled()
    gc.disable()
    try:
        Engine(CM, EngineConfig()).run(reqs)
        assert not gc.isenabled()
    finally:
        gc.enable()


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 5000), min_size=1, max_size=40), st.integers(0, 10_000),
       st.integers(0, 100), st.sampled_from([1, 4, 16]))
def test_blocks_for_steps_equals_the_step_by_step_count(offs, s0, m, bs):
    from tokenpilot.engine.decoders import DecodeSet

    dec = DecodeSet(bs, None)
    for off in offs:
        dec.cnt[off % bs] += 1
    dec.n_unc = len(offs)
    # A decoder with offset ``off`` needs a block at iteration s when (off + s - 1) % bs == 0.
    want = sum(1 for off in offs for s in range(s0, s0 + m) if (off + s - 1) % bs == 0)
    assert dec.blocks_for_steps(s0, m) == want


@given(st.integers(1, 300), st.integers(0, 3_000_000), st.sampled_from([CM, L4]))
def test_view_decode_time_is_the_cost_models(n, ctx, cm):
    assert Engine(cm, EngineConfig()).clock.decode_time(n, ctx) == cm.decode_time(n, ctx)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.floats(0.0, 0.2), st.integers(1, 800), st.integers(1, 300)),
                min_size=1, max_size=30), st.sampled_from([None, 150]))
def test_driving_by_next_event_time_always_progresses(shape, window):
    """A driver that advances to ``next_event_time()`` again and again (as a fleet or server
    loop may) always moves forward, sliding windows included, and sees what ``run`` sees."""
    t, reqs = 0.0, []
    for i, (gap, prompt, output) in enumerate(shape):
        t += gap
        reqs.append(Request(i, t, prompt, output))
    cfg = EngineConfig(check=True, max_num_seqs=8, max_num_batched_tokens=256)
    whole = Engine(CM, cfg, num_blocks=200, window=window)
    ref = whole.run(reqs)
    parts = Engine(CM, cfg, num_blocks=200, window=window)
    for r in [*reqs, None]:
        until = math.inf if r is None else r.arrival
        for _ in range(100_000):  # bounded: a stuck engine fails instead of hanging
            nxt = parts.next_event_time()
            if nxt >= until:
                break
            assert nxt > parts.now, "next_event_time() must lie ahead of now"
            parts.advance_to(nxt)
        else:
            raise AssertionError("no progress")
        parts.advance_to(until)
        if r is not None:
            parts.add_request(r, r.arrival)
    assert parts.stats.iterations == whole.stats.iterations
    for a, b in zip(parts.results(), ref, strict=True):
        for f in ("first_scheduled", "first_token", "finish"):
            assert math.isclose(getattr(a, f), getattr(b, f), rel_tol=1e-9), (a, b, f)
