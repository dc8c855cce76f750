import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tokenpilot.costmodel import CostModel, DoesNotFitError, attention_pairs, estimate_request
from tokenpilot.hardware import GiB, get_gpu
from tokenpilot.models import get_model


def cm(model="llama-3.1-8b", gpu="h100-sxm", tp=1, **kw):
    return CostModel(get_model(model), get_gpu(gpu), tp, **kw)


def test_kv_bytes_per_token():
    assert cm().kv_bytes_per_token == 2 * 32 * 8 * 128 * 2  # 128 KiB
    assert cm(kv_dtype="fp8").kv_bytes_per_token == 2 * 32 * 8 * 128
    assert cm(kv_dtype="int4").kv_bytes_per_token == 2 * 32 * 8 * 128 * 0.5
    # MLA: one 512+64 latent per layer, replicated on each TP rank.
    ds = cm("deepseek-v3", "h200", tp=8, weight_dtype="fp8")
    assert ds.kv_bytes_per_token == 61 * 576 * 2 * 8
    # 8 KV heads over 16 ranks: each rank still keeps one head.
    assert cm("llama-2-70b", "l40s", tp=16).kv_bytes_per_token == 2 * 80 * 128 * 16 * 2


def test_window_caps_kv_and_attention():
    m = cm("mistral-7b")
    assert m.window == 4096
    assert m.kv_tokens_for(10_000) == 4096
    assert m.max_sequences(10_000) == m.max_sequences(4096)
    assert attention_pairs(10, 5000, 4096) == 10 * 4096
    assert attention_pairs(4, 0, None) == 1 + 2 + 3 + 4
    assert attention_pairs(4, 2, 4) == 3 + 4 + 4 + 4


def test_capacity_after_weights_and_reserve():
    m = cm()
    free = 80 * GiB * 0.9 - 8.03e9 * 2 - m.activation_reserve_bytes
    assert m.kv_capacity_tokens == int(free // m.kv_bytes_per_token)
    assert m.kv_capacity_blocks(16) == m.kv_capacity_tokens // 16
    assert cm(tp=2).kv_capacity_tokens > 2 * m.kv_capacity_tokens  # weights are split too


def test_does_not_fit_says_the_numbers():
    with pytest.raises(DoesNotFitError, match=r"128\.5 GiB per GPU"):
        cm("llama-2-70b", "a100-80gb")


def test_bounds_prefill_compute_decode_memory():
    m = cm()
    it = m.iteration(prefill=[(4096, 0)], decode_n=8, decode_ctx_sum=8 * 1000)
    assert it.prefill_bound == "compute" and it.decode_bound == "memory"
    assert m.iteration(decode_n=1, decode_ctx_sum=100).bound == "memory"
    assert m.iteration(prefill=[(8192, 0)]).decode_bound is None
    assert it.time_s == pytest.approx(max(it.compute_s, it.memory_s) + it.overhead_s + it.comm_s)


def test_tp_adds_communication():
    assert cm(tp=1).iteration(decode_n=4, decode_ctx_sum=4000).comm_s == 0
    assert cm(tp=4).iteration(decode_n=4, decode_ctx_sum=4000).comm_s > 0


def test_moe_reads_only_routed_experts():
    m = cm("mixtral-8x7b", "h100-sxm", tp=2)
    assert m.weights_read(1) < m.weights_read(64) <= m.weight_bytes
    assert m.weights_read(1) == pytest.approx(
        m.weight_bytes - 32 * 6 * get_model("mixtral-8x7b").expert_params * 2 - 32000 * 4096 * 2
    )


def test_decode_time_matches_iteration():
    m = cm("llama-2-70b", "a100-80gb", tp=4)
    for n, s in [(1, 10), (16, 16 * 2048), (200, 200 * 900)]:
        assert m.decode_time(n, s) == m.iteration(decode_n=n, decode_ctx_sum=s).time_s


MODELS = st.sampled_from([("llama-3.1-8b", "h100-sxm", 1), ("llama-2-70b", "a100-80gb", 4),
                          ("mistral-7b", "l4", 1), ("mixtral-8x7b", "h200", 2),
                          ("smollm2-135m", "epyc-milan-core", 1)])  # a serial device


@settings(max_examples=150, deadline=None)
@given(MODELS, st.integers(1, 512), st.integers(0, 2_000_000), st.integers(0, 1024),
       st.integers(0, 400))
def test_decode_span_is_the_loop_sum(spec, n, s0, growth, k):
    m = cm(*spec)
    loop = sum(m.decode_time(n, s0 + i * growth) for i in range(k))
    assert m.decode_span(n, s0, growth, k) == pytest.approx(loop, rel=1e-9, abs=1e-12)


@settings(max_examples=150, deadline=None)
@given(MODELS, st.integers(1, 512), st.integers(0, 2_000_000), st.integers(0, 1024),
       st.floats(0, 30))
def test_decode_steps_within_budget(spec, n, s0, growth, budget):
    m = cm(*spec)
    k = m.decode_steps_within(n, s0, growth, budget)
    assert k >= 0
    assert m.decode_span(n, s0, growth, k) <= budget
    assert m.decode_span(n, s0, growth, k + 1) > budget


def test_a_serial_device_takes_compute_plus_memory_and_streams_the_weights_once():
    """hardware.yaml's CPU core (roofline: serial): a step costs its weight stream plus its
    compute; a GPU (overlap) the longer of the two. The weights are read once per step, so a
    one-token step costs the stream more than one token of a prompt does, and a prompt chunk
    mixed into a decode step adds its compute but no second stream."""
    cpu, gpu = get_gpu("epyc-milan-core"), get_gpu("a100-80gb")
    assert (cpu.roofline, gpu.roofline) == ("serial", "overlap")
    m = CostModel(get_model("smollm2-135m"), cpu, weight_dtype="int4")
    cal = m.cal
    stream = m.weights_read(1) / (cpu.hbm_gbps * 1e9 * cal.bw_eff)
    per_token = 2 * (m.model.body_active_params + m.model.embedding_params) / (
        cpu.peak_flops() * cal.flops_eff)
    kv = m.kv_bytes_per_token / (cpu.hbm_gbps * 1e9 * cal.bw_eff)
    attn = m.model.attn_flops_per_pair(decode=True) / (cpu.peak_flops() * cal.attn_eff)
    fixed = cal.step_overhead_s + cal.seq_overhead_s
    assert m.decode_time(1, 40) == pytest.approx(stream + per_token + 41 * kv + 40 * attn + fixed)
    one, two = m.decode_time(1, 40), m.decode_time(2, 80)
    assert two - one == pytest.approx(per_token + 41 * kv + 40 * attn + cal.seq_overhead_s)
    it = m.iteration([(30, 0)], decode_n=1, decode_ctx_sum=40)
    alone = m.iteration([(30, 0)])
    assert it.time_s - alone.time_s == pytest.approx(one - stream - cal.step_overhead_s)
    assert it.time_s == pytest.approx(it.compute_s + it.overhead_s)
    # Overlap: the longer side alone.
    g = cm("llama-3.1-8b", "a100-80gb")
    d = g.iteration(decode_n=8, decode_ctx_sum=8000)
    assert d.time_s == pytest.approx(max(d.compute_s, d.memory_s) + d.overhead_s)


def test_unknown_roofline_is_one_clear_error():
    from tokenpilot.hardware import GPUSpec

    with pytest.raises(ValueError, match="roofline 'both': expected one of overlap, serial"):
        GPUSpec("x", "v", "cpu", 1.0, None, 1.0, 1.0, 1.0, 1.0, None, "", roofline="both")


def test_decode_span_crosses_from_memory_to_compute():
    """A context growing fast enough turns the step compute-bound midway: both arms are summed."""
    m = cm("llama-3.1-8b", "l4")
    times = [m.decode_time(64, 64 * 10 + i * 64 * 3000) for i in range(60)]
    assert m.decode_span(64, 640, 64 * 3000, 60) == pytest.approx(sum(times), rel=1e-9)


def test_request_estimate_and_price():
    m = cm(kv_dtype="fp8")
    r = estimate_request(m, 12000, 500, 16)
    assert r.ttft_s == pytest.approx(m.prefill_time(12000))
    assert r.total_s == pytest.approx(r.ttft_s + 499 * r.tpot_s)
    assert r.kv_bytes == 12500 * m.kv_bytes_per_token
    assert r.usd_per_request == pytest.approx(2.99 / 3600 * (r.prefill_s + 499 * r.tpot_s / 16))
    assert estimate_request(m, 12000, 500, 64).tpot_s > r.tpot_s
    assert estimate_request(cm(gpu="h20"), 100, 10).usd_per_request is None


def test_bad_arguments():
    with pytest.raises(ValueError):
        cm(tp=0)
    with pytest.raises(ValueError, match="dtype"):
        cm(kv_dtype="fp4x")
    with pytest.raises(ValueError):
        cm().decode_steps_within(0, 0, 0, 1.0)


CHUNKS = st.lists(st.tuples(st.integers(0, 9000), st.integers(0, 200_000)), max_size=6)


@settings(max_examples=300, deadline=None)
@given(MODELS, CHUNKS, st.integers(-2, 512), st.integers(0, 2_000_000))
def test_iteration_timing_is_iteration_bit_for_bit(spec, prefill, n, ctx):
    m = cm(*spec)
    full = m.iteration(prefill, n, ctx)
    assert m.iteration_timing(prefill, n, ctx) == (full.time_s, full.bound == "compute")
    assert m.iteration_time(prefill, n, ctx) == full.time_s
    assert m.decode_coeffs(max(n, 1)) == m._decode_coeffs(max(n, 1))


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 512), st.integers(0, 2_000_000), st.integers(0, 1024),
       st.floats(0, 30))
def test_decode_steps_within_when_the_bound_side_changes(n, s0, growth, budget):
    # On an L4 a fast-growing context turns decode compute-bound within the span.
    m = cm("llama-3.1-8b", "l4")
    k = m.decode_steps_within(n, s0, growth * 50, budget)
    assert m.decode_span(n, s0, growth * 50, k) <= budget < m.decode_span(n, s0, growth * 50, k + 1)
