"""Engine profiles (vllm-v0, vllm-v1, sglang, llama.cpp) and the memory knobs users set."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from builders import cli

from tokenpilot import engines
from tokenpilot.cluster.fleet import FleetError, InstanceSpec, fleet_from_dict
from tokenpilot.costmodel import CostModel, calibration_for
from tokenpilot.engine import Engine, EngineConfig
from tokenpilot.engines import engine_names, get_engine
from tokenpilot.hardware import GiB, get_gpu
from tokenpilot.models import get_model
from tokenpilot.workload import Request

H100, L8B = "h100-sxm", "llama-3.1-8b"


def _engine(engine: str, **kw) -> Engine:
    spec = InstanceSpec(gpu=H100, model=L8B, engine=engine, **kw)
    return Engine(spec.cost_model(), spec.engine_config())


def test_every_profile_reads_and_documents_its_choices():
    assert {"vllm-v0", "vllm-v1", "sglang", "llama.cpp"} <= set(engine_names())
    for name in engine_names():
        p = get_engine(name)
        assert p.name == name and p.description
        assert "scheduling" in p.sources or "slots" in p.sources, name
        assert all(text.strip() for text in p.sources.values())


def test_profiles_set_the_scheduling_and_defaults():
    v1 = InstanceSpec(gpu=H100, model=L8B).engine_config()
    assert (v1.prefill_first, v1.chunked_prefill, v1.max_num_seqs, v1.max_num_batched_tokens,
            v1.block_size) == (False, True, 256, 8192, 16)  # the simulator before profiles
    v0 = InstanceSpec(gpu=H100, model=L8B, engine="vllm-v0")
    cfg = v0.engine_config()
    assert cfg.prefill_first and not cfg.chunked_prefill
    assert cfg.max_num_batched_tokens == get_model(L8B).max_context  # max(max_model_len, 2048)
    assert v0.swap_space_gib == 4
    # V0 with chunked prefill asked for schedules as V1 does.
    asked = InstanceSpec(gpu=H100, model=L8B, engine="vllm-v0", chunked_prefill=True)
    assert not asked.engine_config().prefill_first
    assert asked.max_num_batched_tokens == 2048
    sg = InstanceSpec(gpu=H100, model=L8B, engine="sglang").engine_config()
    assert sg.prefill_first and sg.chunked_prefill and sg.block_size == 1
    # What the instance sets wins over the profile.
    mine = InstanceSpec(gpu=H100, model=L8B, engine="sglang", max_num_seqs=8, block_size=32)
    assert (mine.max_num_seqs, mine.block_size) == (8, 32)


def test_vllm_v0_stalls_every_decode_while_a_prefill_runs():
    # A decodes alone; B's long prompt arrives. V1 mixes B's prefill with A's decode step; V0
    # and SGLang run B's prefill alone, so A produces nothing during it: its TPOT spikes.
    reqs = [Request(0, 0.0, 100, 300), Request(1, 0.2, 6000, 10)]
    gaps = {}
    for name in ("vllm-v1", "vllm-v0", "sglang"):
        eng = _engine(name)
        res = eng.run(reqs)
        b = res[1]
        during = eng.tokens_by(0, b.first_token) - eng.tokens_by(0, b.first_scheduled)
        gaps[name] = (during, res[0].finish)
    assert gaps["vllm-v1"][0] == 1
    assert gaps["vllm-v0"][0] == 0 and gaps["sglang"][0] == 0
    assert gaps["vllm-v0"][1] > gaps["vllm-v1"][1]  # A waited for B's prefill


def _longest_token_gap(eng: Engine, rid: int, end: float, n: int = 20000) -> float:
    """The longest time ``rid`` went without a new token, sampled every end/n seconds."""
    last_t, last_k, gap = 0.0, eng.tokens_by(rid, 0.0), 0.0
    for i in range(1, n + 1):
        t = end * i / n
        k = eng.tokens_by(rid, t)
        if k != last_k:
            gap, last_t, last_k = max(gap, t - last_t), t, k
    return gap


def test_prefill_first_makes_the_decode_gap_a_whole_burst_of_prefills():
    # Ten prompts arrive at once while A decodes: V0 prefills them all before A's next token;
    # V1 gives A a token in every iteration of the 8192-token budget.
    reqs = [Request(0, 0.0, 50, 400)] + [Request(i, 0.2, 3000, 4) for i in range(1, 11)]
    gap = {}
    for name in ("vllm-v1", "vllm-v0"):
        eng = _engine(name)
        res = eng.run(reqs)
        gap[name] = _longest_token_gap(eng, 0, res[0].finish)
    assert gap["vllm-v0"] > 2.5 * gap["vllm-v1"]


def test_without_chunked_prefill_a_prompt_over_the_budget_is_rejected():
    eng = _engine("vllm-v0", max_num_batched_tokens=4096)
    res = eng.run([Request(0, 0.0, 5000, 10), Request(1, 0.0, 4000, 10)])
    assert "exceeds max_num_batched_tokens 4096" in res[0].rejected
    assert not res[1].rejected and res[1].finish > 0
    # With chunked prefill the same prompt runs in chunks.
    assert not _engine("vllm-v1", max_num_batched_tokens=4096).run(
        [Request(0, 0.0, 5000, 10)])[0].rejected


def _llama(slots: int, ctx: int) -> InstanceSpec:
    return InstanceSpec(gpu="epyc-milan-core", model="smollm2-135m", weight_dtype="int4",
                        engine="llama.cpp", max_num_seqs=slots, max_model_len=ctx)


def test_llama_cpp_queues_beyond_its_slots_and_caps_each_slot_context():
    spec = _llama(2, 512)
    eng = Engine(spec.cost_model(), spec.engine_config())
    assert eng.bm.num_blocks == 2 * 512  # one buffer of slots x context cells, no paging
    reqs = [Request(i, 0.0, 200, 40) for i in range(5)] + [Request(5, 0.0, 500, 20)]
    res = eng.run(reqs)
    assert "exceed max_model_len 512" in res[5].rejected  # longer than one slot
    done = sorted((r.first_scheduled, r.finish) for r in res[:5])
    for k, (start, _) in enumerate(done):  # never more than two at once: the rest queue
        assert sum(1 for s, f in done[:k] if f > start) < 2
    assert done[2][0] >= min(f for _, f in done[:2])
    st = eng.finalize_stats()
    assert st.preempt_recompute == st.preempt_swap == 0


def test_llama_cpp_never_preempts_even_when_every_slot_is_full():
    spec = _llama(4, 256)
    eng = Engine(spec.cost_model(), spec.engine_config())
    res = eng.run([Request(i, 0.01 * i, 128, 128) for i in range(16)])
    assert all(r.finish > 0 and not r.preemptions for r in res)


def test_llama_cpp_slot_pool_must_fit_in_memory():
    with pytest.raises(FleetError, match="slots x"):
        fleet_from_dict({"instances": [{"gpu": "epyc-milan-core", "model": "smollm2-135m",
                                        "engine": "llama.cpp", "max_num_seqs": 64,
                                        "max_model_len": 8192}]})
    with pytest.raises(FleetError, match="never preempts"):
        fleet_from_dict({"instances": [{"gpu": "epyc-milan-core", "model": "smollm2-135m",
                                        "engine": "llama.cpp", "preemption": "swap"}]})


def test_gpu_memory_utilization_sets_the_kv_capacity():
    model, gpu = get_model(L8B), get_gpu(H100)
    caps = {}
    for u in (0.5, 0.7, 0.9):
        cm = InstanceSpec(gpu=H100, model=L8B, gpu_memory_utilization=u).cost_model()
        ref = CostModel(model, gpu)
        free = gpu.memory_bytes * u - ref.weight_bytes_per_gpu - ref.activation_reserve_bytes
        assert cm.kv_capacity_tokens == int(free // ref.kv_bytes_per_token)
        caps[u] = cm.kv_capacity_blocks(16)
    # The KV is what is left after the fixed weights: each 0.2 of the GPU adds the same blocks.
    step = gpu.memory_bytes * 0.2 / CostModel(model, gpu).kv_bytes_per_token / 16
    assert abs((caps[0.9] - caps[0.7]) - step) <= 1 and abs((caps[0.7] - caps[0.5]) - step) <= 1
    eng = _engine("vllm-v1", gpu_memory_utilization=0.5)
    assert eng.bm.num_blocks == caps[0.5]
    with pytest.raises(FleetError, match="gpu_memory_utilization"):
        fleet_from_dict({"instances": [{"gpu": H100, "model": L8B,
                                        "gpu_memory_utilization": 1.5}]})


def _pressure(swap_tokens):
    cm = CostModel(get_model(L8B), get_gpu(H100))
    cfg = EngineConfig(preemption="swap", max_num_seqs=32, max_num_batched_tokens=512,
                       swap_tokens=swap_tokens)
    eng = Engine(cm, cfg, num_blocks=120)
    res = eng.run([Request(i, 0.01 * i, 200, 300) for i in range(24)])
    assert all(r.finish > 0 for r in res)
    return eng.finalize_stats()


def test_swap_space_limits_swap_and_falls_back_to_recompute():
    free = _pressure(None)  # unlimited host memory: every preemption swaps
    assert free.preempt_swap > 0 and free.preempt_recompute == 0 and free.swap_fallbacks == 0
    tight = _pressure(16 * 30)  # room for about one swapped request
    assert tight.swap_fallbacks > 0 and tight.preempt_recompute == tight.swap_fallbacks
    assert tight.preempt_swap > 0
    none = _pressure(0)
    assert none.preempt_swap == 0 and none.preempt_recompute == none.swap_fallbacks > 0


def test_swap_space_gib_is_per_gpu_as_in_vllm():
    one = InstanceSpec(gpu=H100, model="llama-3.1-70b", tp=4, swap_space_gib=4)
    per_token = CostModel(get_model("llama-3.1-70b"), get_gpu(H100), tp=4).kv_bytes_per_token
    assert one.engine_config().swap_tokens == int(4 * GiB * 4 // per_token)
    assert InstanceSpec(gpu=H100, model=L8B).engine_config().swap_tokens is None


def test_engine_overheads_join_the_family_calibration_not_a_fitted_one(monkeypatch):
    base = engines._profiles()
    slow = replace(base["vllm-v0"], step_overhead_s=0.003, seq_overhead_s=0.0002)
    monkeypatch.setattr(engines, "_profiles", lambda: {**base, "vllm-v0": slow})
    fam = calibration_for(get_gpu(H100).family)
    spec = InstanceSpec(gpu=H100, model=L8B, engine="vllm-v0")
    cal = spec.cost_model().cal
    assert cal.step_overhead_s == pytest.approx(fam.step_overhead_s + 0.003)
    assert cal.seq_overhead_s == pytest.approx(fam.seq_overhead_s + 0.0002)
    fitted = fam.with_(step_overhead_s=0.01)
    assert spec.cost_model(fitted).cal == fitted  # a fit measured the engine: nothing added


def test_fleet_file_names_the_engine_and_bad_names_are_one_line():
    fleet = fleet_from_dict({"instances": [{"gpu": H100, "model": L8B, "engine": "sglang"}]})
    assert fleet.instances[0].engine == "sglang"
    with pytest.raises(FleetError, match=r"instances\[0\].*unknown engine 'vllm-v2'.*vllm-v1"):
        fleet_from_dict({"instances": [{"gpu": H100, "model": L8B, "engine": "vllm-v2"}]})
    with pytest.raises(FleetError, match=r"instances\[0\]: unknown model 'nope'"):
        fleet_from_dict({"instances": [{"gpu": H100, "model": "nope", "engine": "vllm-v0"}]})
    with pytest.raises(FleetError, match=r"swap_space_gib: expected a number >= 0"):
        fleet_from_dict({"instances": [{"gpu": H100, "model": L8B, "swap_space_gib": -1}]})


def test_cost_takes_an_engine():
    base = ["cost", "--model", L8B, "--gpu", H100, "--prompt-tokens", "1000",
            "--output-tokens", "100", "--format", "json"]
    r = cli(*base, "--engine", "vllm-v0")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["engine"] == "vllm-v0"
    r = cli(*base, "--engine", "vlm")
    assert r.exit_code == 2 and "unknown engine 'vlm'" in r.stderr and "Traceback" not in r.output
    # The KV pool takes the engine's memory share unless --mem-util sets one.
    def pool(*args: str) -> int:
        return json.loads(cli(*base, *args).stdout)["kv_capacity_tokens"]

    assert pool("--engine", "vllm-v1") > pool("--engine", "sglang")  # 0.9 vs 0.88
    assert pool("--engine", "sglang", "--mem-util", "0.9") == pool("--engine", "vllm-v1")


def test_sim_backend_runs_the_engine_profile():
    from tokenpilot.gateway.simbackend import SimConfig, SimInstance

    assert SimInstance(SimConfig(engine="vllm-v0")).engine.cfg.prefill_first
    llama = SimInstance(SimConfig(gpu="epyc-milan-core", model="smollm2-135m",
                                  engine="llama.cpp"))
    assert llama.engine.cfg.max_num_seqs == 1 and llama.engine.bm.num_blocks == 4096
    assert SimInstance(SimConfig()).engine.cfg.max_num_seqs == 256
    r = cli("sim-backend", "--engine", "vllm-v9")
    assert r.exit_code == 2 and "unknown engine 'vllm-v9'" in r.stderr


def test_a_measurement_engine_label_names_its_profile():
    from tokenpilot.fidelity import engine_of

    assert [engine_of(x) for x in ("vllm-0.2.7", "vllm-0.6.0", "vllm-0.7", "vllm-0.8.5",
                                   "sglang-0.3.0", "nim-1.8.0")] == [
        "vllm-v0-legacy", "vllm-v0", "vllm-v0", "vllm-v1", "sglang", None]
    legacy, v0 = get_engine("vllm-v0-legacy"), get_engine("vllm-v0")
    assert (legacy.prefill_first, legacy.max_num_batched_tokens) == (v0.prefill_first, 0)
    assert legacy.seq_overhead_s > 0 == v0.seq_overhead_s


def test_a_saturated_static_row_runs_as_many_sequences_as_its_engine_admits():
    """An all-at-once benchmark runs min(KV capacity, the engine's max_num_seqs) sequences:
    vLLM stops at 256, SGLang (2048) at its KV pool, which holds ~1000 such requests here."""
    from tokenpilot.fidelity import predict_static

    cm = CostModel(get_model("llama-3.1-8b"), get_gpu("a100-80gb"), 1,
                   mem_util=get_engine("sglang").gpu_memory_utilization)
    fits = cm.max_sequences(220 + 194)
    assert 256 < fits < get_engine("sglang").max_num_seqs

    def tput(cap):
        return predict_static(cm, "output_throughput", 220, 194, None, cap)

    assert tput(get_engine("vllm-v0").max_num_seqs) == pytest.approx(
        predict_static(cm, "output_throughput", 220, 194, 256))
    assert tput(get_engine("sglang").max_num_seqs) == pytest.approx(
        predict_static(cm, "output_throughput", 220, 194, fits))
    assert tput(None) == tput(get_engine("sglang").max_num_seqs) != tput(256)
