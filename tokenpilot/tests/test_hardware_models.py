import json

import pytest

from tokenpilot.hardware import UnknownGPUError, get_gpu, list_gpus
from tokenpilot.models import UnknownModelError, get_model, list_models, load_hf_config

REQUIRED_GPUS = ["a100-40gb", "a100-80gb", "h100-sxm", "h100-pcie", "h200", "h20", "l40s", "l4",
                 "a10g", "rtx-4090", "mi300x", "ascend-910b"]
REQUIRED_MODELS = ["llama-2-7b", "llama-2-13b", "llama-2-70b", "llama-3.1-8b", "llama-3.1-70b",
                   "qwen2.5-7b", "qwen2.5-72b", "mistral-7b", "mixtral-8x7b", "deepseek-v3",
                   "opt-13b", "smollm2-135m"]


def test_catalogs_hold_the_required_entries():
    assert set(REQUIRED_GPUS) <= set(list_gpus())
    assert set(REQUIRED_MODELS) <= set(list_models())
    for name in list_gpus():
        g = get_gpu(name)
        assert g.bf16_tflops > 0 and g.hbm_gbps > 0 and g.memory_gib > 0 and g.source


def test_aliases_and_case():
    assert get_gpu("H100").name == "h100-sxm"
    assert get_gpu("A100_80GB").name == "a100-80gb"
    assert get_model("Llama-3.3-70B-Instruct").name == "llama-3.1-70b"


def test_unknown_names_list_the_known_ones():
    with pytest.raises(UnknownGPUError, match="h100-sxm"):
        get_gpu("tpu-v9")
    with pytest.raises(UnknownModelError, match="config.json"):
        get_model("gpt-17")


def test_fp8_rate_only_where_supported():
    assert get_gpu("h100-sxm").peak_flops("fp8") == 1979e12
    assert get_gpu("a100-80gb").peak_flops("fp8") == get_gpu("a100-80gb").peak_flops("bf16")


@pytest.mark.parametrize("name", ["llama-2-7b", "llama-3.1-8b", "llama-2-70b", "qwen2.5-7b",
                                  "mistral-7b", "smollm2-135m"])
def test_shapes_agree_with_published_parameter_counts(name, tmp_path):
    """Recomputing params from the shapes (as load_hf_config does) lands within 2%."""
    m = get_model(name)
    cfg = {"hidden_size": m.hidden, "num_hidden_layers": m.layers, "num_attention_heads": m.heads,
           "num_key_value_heads": m.kv_heads, "head_dim": m.head_dim,
           "intermediate_size": m.intermediate, "vocab_size": m.vocab,
           "tie_word_embeddings": m.tied_embeddings}
    (tmp_path / "config.json").write_text(json.dumps(cfg))
    loaded = load_hf_config(tmp_path / "config.json")
    assert loaded.params == pytest.approx(m.params, rel=0.02)


def test_moe_and_mla_configs(tmp_path):
    mixtral = {"hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
               "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 32000,
               "num_local_experts": 8, "num_experts_per_tok": 2}
    p = tmp_path / "config.json"
    p.write_text(json.dumps(mixtral))
    m = get_model(str(p))  # a path works wherever a name does
    assert m.params == pytest.approx(46.7e9, rel=0.02)
    assert m.active_params == pytest.approx(12.9e9, rel=0.02)
    ds = {"hidden_size": 7168, "num_hidden_layers": 61, "num_attention_heads": 128,
          "num_key_value_heads": 128, "intermediate_size": 18432, "vocab_size": 129280,
          "n_routed_experts": 256, "num_experts_per_tok": 8, "n_shared_experts": 1,
          "moe_intermediate_size": 2048, "first_k_dense_replace": 3, "kv_lora_rank": 512,
          "qk_rope_head_dim": 64, "qk_nope_head_dim": 128, "v_head_dim": 128,
          "q_lora_rank": 1536}
    p.write_text(json.dumps(ds))
    d = load_hf_config(p)
    assert d.params == pytest.approx(671e9, rel=0.02)
    assert d.active_params == pytest.approx(37e9, rel=0.03)
    assert d.kv_elems_per_token(1) == 61 * (512 + 64)


def test_sliding_window_and_qwen_flag(tmp_path):
    assert get_model("mistral-7b").sliding_window == 4096
    cfg = {"hidden_size": 3584, "num_hidden_layers": 28, "num_attention_heads": 28,
           "num_key_value_heads": 4, "intermediate_size": 18944, "vocab_size": 152064,
           "sliding_window": 131072, "use_sliding_window": False}
    (tmp_path / "config.json").write_text(json.dumps(cfg))
    assert load_hf_config(tmp_path).sliding_window is None


def test_bad_config_is_a_clear_error(tmp_path):
    p = tmp_path / "config.json"
    p.write_text("{}")
    with pytest.raises(ValueError, match="hidden_size"):
        load_hf_config(p)
