"""``tokenpilot tradeoff``: option names, llama.cpp's context-shift rule, the quality figures,
the fleet side, and (e2e) real llama.cpp servers: the f16 baseline against itself, q4_0 KV, and
a context-shift window shorter than a needle's depth."""

from __future__ import annotations

import dataclasses
import json
import math

import pytest
from builders import cli

from tokenpilot.cluster import fleet_from_dict
from tokenpilot.llamafleet import LlamaServerSpec
from tokenpilot.tradeoff.fleet import (
    DEFAULT_FLEET,
    FleetSide,
    capacity,
    cut_prompts,
    simulate_option,
    window_kv,
)
from tokenpilot.tradeoff.options import OptionError, context_shift, parse_option, parse_options
from tokenpilot.tradeoff.probe import ForcedToken, answered
from tokenpilot.tradeoff.quality import OptionRun, SuiteSpec, compare, kl_lower_bound, prompt_for
from tokenpilot.tradeoff.texts import needles, paragraphs
from tokenpilot.workload import Request, poisson

FLEET = fleet_from_dict(DEFAULT_FLEET)


# ---- options ------------------------------------------------------------------------------
def test_option_forms_and_their_engine_settings() -> None:
    q4 = parse_option("kv-q4_0")
    assert (q4.cache_type_k, q4.cache_type_v, q4.kind, q4.sim_kv_dtype) == (
        "q4_0", "q4_0", "kv", "int4")
    assert parse_option("kv-q8_0").sim_kv_dtype == "fp8"
    assert parse_option("kv-q8_0-f16").cache_type_v == "f16"
    assert parse_option("f16").kind == "baseline" and parse_option("f16").sim_kv_dtype == "bf16"
    w = parse_option("window-512-keep32")
    assert (w.window, w.n_keep, w.context, w.kind) == (512, 32, 512, "window")
    t = parse_option("truncate-1024")
    assert (t.truncate, t.context, t.kind) == (1024, 1024, "truncate")


@pytest.mark.parametrize("name, says", [
    ("kv-q3_x", "'q3_x' is not a KV cache type"), ("window-128", "smallest context is 256"),
    ("window-512-keep300", "n_keep 300"), ("zip-4", "unknown option 'zip-4'"),
    ("truncate-100", "smallest context")])
def test_bad_options_say_which_and_why(name: str, says: str) -> None:
    with pytest.raises(OptionError, match=says):
        parse_option(name)
    with pytest.raises(OptionError, match="twice"):
        parse_options("kv-q8_0,kv-q8_0")


def test_server_spec_refuses_a_quantized_v_cache_without_flash_attention() -> None:
    with pytest.raises(ValueError, match="needs flash attention"):
        LlamaServerSpec(cache_type_v="q4_0", flash_attn="off")
    with pytest.raises(ValueError, match="'q9' is not a KV cache type"):
        LlamaServerSpec(cache_type_k="q9")
    assert LlamaServerSpec(cache_type_k="q4_0", flash_attn="off").cache_type_k == "q4_0"


def test_context_shift_rule_matches_what_the_server_logged() -> None:
    # llama-server, 256-token slot, n_keep 8, 12 prompt + 276 generated tokens: it logged one
    # shift "n_keep = 8, n_left = 247, n_discard = 123" and ended with n_tokens = 164.
    stream = list(range(12 + 275))
    kept = context_shift(stream, 256, 8)
    assert len(kept) == 164
    assert kept[:8] == list(range(8)) and kept[8] == 8 + 123 and kept[-1] == stream[-1]
    assert context_shift(list(range(100)), 256, 0) == list(range(100))  # fits: untouched


def test_prompt_for_each_option() -> None:
    prompt = list(range(1000))
    assert prompt_for(parse_option("f16"), prompt, 7) == prompt
    cut = prompt_for(parse_option("truncate-512"), prompt, 7)
    assert cut == prompt[-505:]
    win = prompt_for(parse_option("window-512-keep16"), prompt, 7)
    assert win[:16] == list(range(16)) and win[-1] == 999 and len(win) < 505


# ---- figures ------------------------------------------------------------------------------
def test_kl_lower_bound_is_zero_only_for_the_same_distribution() -> None:
    p = {1: math.log(0.5), 2: math.log(0.3)}
    assert kl_lower_bound(p, dict(p)) == 0.0
    q = {1: math.log(0.3), 2: math.log(0.5)}
    exact = 0.5 * math.log(0.5 / 0.3) + 0.3 * math.log(0.3 / 0.5)  # the rest bucket: 0.2 each
    assert kl_lower_bound(p, q) == pytest.approx(exact)
    # Only token 1 is in both lists: 0.5 against 0.3, the rest 0.5 against 0.7.
    one = kl_lower_bound(p, {1: math.log(0.3), 3: math.log(0.6)})
    assert one == pytest.approx(0.5 * math.log(0.5 / 0.3) + 0.5 * math.log(0.5 / 0.7))


def _run(name: str, lps: list[float], greedy: list[int], needle: list[bool]) -> OptionRun:
    forced = [[ForcedToken(lp, {7: lp, 8: math.log(0.1)}) for lp in lps]]
    return OptionRun(name, forced=forced, greedy=[greedy],
                     needles=[{"depth": d, "correct": ok} for d, ok in zip((50, 500), needle,
                                                                            strict=True)])


def test_compare_baseline_with_itself_and_with_a_worse_option() -> None:
    base = _run("f16", [-1.0, -2.0], [1, 2, 3, 4], [True, True])
    same = compare(base, _run("f16", [-1.0, -2.0], [1, 2, 3, 4], [True, True]))
    assert (same["mean_kl"], same["ppl_ratio"], same["greedy_agreement"]) == (0.0, 1.0, 1.0)
    worse = compare(base, _run("x", [-1.5, -2.5], [1, 2, 9, 4], [True, False]))
    assert worse["ppl_ratio"] == pytest.approx(math.exp(0.5))
    assert worse["greedy_agreement"] == 0.5 and worse["greedy_same_position"] == 0.75
    assert worse["mean_kl"] > 0 and worse["needle_by_depth"] == {50: 1.0, 500: 0.0}


def test_needle_answers_and_texts_follow_the_seed() -> None:
    assert answered(" 4817.", "4817") and not answered(" 4818", "4817")
    assert not answered(" 48170", "4817") and not answered("no idea", "4817")
    import random

    a, b = needles(3, random.Random(5)), needles(3, random.Random(5))
    assert a == b and len({n.prefix.split()[1] for n in a}) == 3
    assert a[0].question.endswith(a[0].prefix) and a[0].code in a[0].fact
    assert len(paragraphs()) > 50
    assert SuiteSpec(doc_tokens=640).baseline_ctx >= 640 + 48


# ---- the fleet side -----------------------------------------------------------------------
def test_capacity_follows_kv_bytes_and_the_window() -> None:
    base = capacity(FLEET, parse_option("f16"), 8192)
    assert capacity(FLEET, parse_option("kv-q8_0"), 8192) == pytest.approx(2 * base, rel=0.02)
    assert capacity(FLEET, parse_option("kv-q4_0"), 8192) == pytest.approx(4 * base, rel=0.02)
    # A 512-token window fits far more than the batch limit: max_num_seqs caps it.
    assert capacity(FLEET, parse_option("window-512"), 8192) == FLEET.instances[0].max_num_seqs
    assert capacity(FLEET, parse_option("truncate-2048"), 8192) > 3 * base


def test_simulated_window_and_truncation_gain_on_long_documents() -> None:
    side = FleetSide()
    docs = poisson(2.0, 60, prompt=16000, output=300, seed=3)  # the KV pool is the limit
    loads = {"long-doc": docs}
    base = simulate_option(FLEET, parse_option("f16"), loads, side)["long-doc"]
    win = simulate_option(FLEET, parse_option("window-2048"), loads, side)["long-doc"]
    cut = simulate_option(FLEET, parse_option("truncate-2048"), loads, side)["long-doc"]
    assert win["goodput_rps"] > 1.5 * base["goodput_rps"] and base["preemptions"] > 0
    assert cut["mean_prompt"] <= 2048 and cut["goodput_rps"] > base["goodput_rps"]


def test_cut_prompts_fit_the_context() -> None:
    out = cut_prompts([Request(0, 0.0, 5000, 300), Request(1, 0.1, 100, 10)], 1024)
    assert [(r.prompt_tokens, r.output_tokens) for r in out] == [(724, 300), (100, 10)]


def test_simulator_window_holds_the_last_window_tokens() -> None:
    kv = window_kv(FLEET, parse_option("window-256"), 232, 48)
    assert kv["sim_kv_tokens_peak"] == 256  # capped at the window (whole 16-token blocks)
    assert window_kv(FLEET, parse_option("window-512"), 100, 20)["sim_kv_tokens_peak"] < 256


def test_an_option_that_did_not_run_says_so_in_its_row() -> None:
    from tokenpilot.tradeoff.run import TradeoffConfig, verdict

    row = {"ran": False, "not_run": "option kv-q4_0: the llama.cpp server did not start (x)"}
    cfg = TradeoffConfig(model=None, fleet=FLEET, options=[])  # type: ignore[arg-type]
    good, broke = verdict(row, {}, cfg)
    assert good == "not run" and broke.startswith("not run: option kv-q4_0")


# ---- the command line ---------------------------------------------------------------------
def test_cli_errors_are_one_line() -> None:
    r = cli("tradeoff", "--options", "kv-q4_0,zip-4")
    assert r.exit_code == 2 and "unknown option 'zip-4'" in r.output
    assert "Traceback" not in r.output
    r = cli("tradeoff", "--model", "/nonexistent/model.gguf")
    assert r.exit_code == 2 and "model file /nonexistent/model.gguf does not exist" in r.output
    r = cli("tradeoff", "--threads", "4")
    assert r.exit_code == 2 and "--threads" in r.output
    r = cli("tradeoff", "--depths", "0.5,1.5")
    assert r.exit_code == 2 and "between 0 and 1" in r.output


# ---- real llama.cpp servers ---------------------------------------------------------------
E2E_SUITE = SuiteSpec(passages=1, context=32, reference=12, greedy=12, doc_tokens=320,
                      depths=(0.1, 0.9), seed=0)


@pytest.fixture(scope="module")
def tradeoff_run(smollm2):
    """The baseline, a fresh f16 copy, q4_0 KV and a 256-token context-shift window, each on
    its own server (one at a time, one thread): about a minute on a quiet CPU."""
    from tokenpilot.tradeoff.run import TradeoffConfig, run_tradeoff
    from tokenpilot.workload import WorkloadError
    from tokenpilot.workload.loaders import trace_path

    try:
        trace_path("azure-conv")  # the fleet side's conversation workload
    except WorkloadError as exc:
        pytest.skip(f"the tradeoff run's fleet side needs shared data: {exc}")
    cfg = TradeoffConfig(model=smollm2, fleet=FLEET, suite=E2E_SUITE,
                         side=dataclasses.replace(FleetSide(), conv_requests=200,
                                                  doc_requests=40),
                         options=parse_options("f16,kv-q4_0,window-256"))
    result = run_tradeoff(cfg, lambda _line: None)
    return {r["option"]: r for r in result["rows"]} | {"_all": result}


@pytest.mark.e2e
def test_f16_against_itself_has_no_divergence(tradeoff_run) -> None:
    rows = [r for r in tradeoff_run["_all"]["rows"] if r["option"] == "f16"]
    assert len(rows) == 2  # the baseline and the fresh copy listed as an option
    q = rows[1]["quality"]
    assert q["mean_kl"] == 0.0 and q["ppl_ratio"] == 1.0
    assert q["greedy_agreement"] == 1.0
    assert q["needle_by_depth"] == rows[0]["quality"]["needle_by_depth"]


@pytest.mark.e2e
def test_q4_0_kv_diverges_measurably_and_costs_less(tradeoff_run) -> None:
    r = tradeoff_run["kv-q4_0"]
    q = r["quality"]
    assert q["mean_kl"] > 1e-3 and q["ppl_ratio"] != 1.0
    assert r["cost"]["kv_bytes_x"] == pytest.approx(18 / 32 / 2, rel=0.05)  # q4_0: 4.5 bits
    assert r["fleet"]["capacity_x"] > 3
    assert "perplexity" in r["breaks"]


@pytest.mark.e2e
def test_a_window_shorter_than_the_needle_depth_loses_it(tradeoff_run) -> None:
    base = tradeoff_run["_all"]["rows"][0]["quality"]["needle_by_depth"]
    win = tradeoff_run["window-256"]
    by_depth = win["quality"]["needle_by_depth"]
    deep = max(by_depth)
    assert deep > 256 and base[deep] == 1.0 and by_depth[deep] == 0.0
    shallow = min(by_depth)
    assert shallow < 128 and by_depth[shallow] == base[shallow]
    assert f"past depth {deep}" in win["breaks"]
    sc = win["context_shift_check"]
    assert sc["matches"] and sc["server_shifts"], sc
    assert sc["simulator"]["sim_kv_tokens_peak"] == 256
    json.dumps(tradeoff_run["_all"], default=str)  # every figure serialises


@pytest.mark.e2e
def test_report_has_one_table_one_plot_and_every_figure(tradeoff_run, tmp_path) -> None:
    from tokenpilot.tradeoff.run import render, write_report

    text = render(tradeoff_run["_all"])
    assert "window-256: good for" in text and "(agrees)" in text and "breaks:" in text
    js, txt, png = write_report(tradeoff_run["_all"], tmp_path)
    assert png.read_bytes()[:4] == b"\x89PNG" and txt.read_text().startswith("tokenpilot")
    rows = json.loads(js.read_text())["rows"]
    assert [r["option"] for r in rows] == ["f16", "f16", "kv-q4_0", "window-256"]
