"""Workload loaders, generators, transforms and the spec parser."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tokenpilot.workload import (
    WorkloadError,
    gamma,
    load_azure,
    load_file,
    load_generic,
    load_mooncake,
    load_workload,
    mean_rate,
    mix,
    onoff,
    parse_spec,
    poisson,
    prefix_groups,
    scale_to_rate,
    tenants,
    truncate,
)
from tokenpilot.workload._shared import traces_dir

TRACES = traces_dir()
needs_traces = pytest.mark.skipif(
    TRACES is None, reason="shared/traces beside the repository is absent"
)


def _arrivals(requests) -> np.ndarray:
    return np.array([r.arrival for r in requests])


def _cv(requests) -> float:
    gaps = np.diff(_arrivals(requests))
    return float(gaps.std() / gaps.mean())


def _well_formed(requests) -> None:
    arr = _arrivals(requests)
    assert arr[0] >= 0
    assert np.all(np.diff(arr) >= 0)
    assert [r.id for r in requests] == list(range(len(requests)))


# -- traces ---------------------------------------------------------------------------------


@needs_traces
@pytest.mark.parametrize(
    ("name", "rows", "mean_in", "mean_out"),
    [
        ("azure_llm_2023_conv.csv", 19_366, 1_155, 211),
        ("azure_llm_2023_code.csv", 8_819, 2_048, 28),
    ],
)
def test_azure_trace(name, rows, mean_in, mean_out):
    requests = load_azure(TRACES / name)
    assert len(requests) == rows
    _well_formed(requests)
    assert requests[0].arrival == 0.0
    assert np.mean([r.prompt_tokens for r in requests]) == pytest.approx(mean_in, rel=0.01)
    assert np.mean([r.output_tokens for r in requests]) == pytest.approx(mean_out, rel=0.02)
    # One hour of traffic.
    assert 3000 < requests[-1].arrival < 3700


@needs_traces
def test_azure_conv_rate_matches_readme():
    assert mean_rate(load_workload("azure-conv")) == pytest.approx(5.5, rel=0.03)


@needs_traces
def test_mooncake_trace_and_jitter():
    path = TRACES / "mooncake_conversation.jsonl"
    exact = load_mooncake(path, jitter=False)
    jittered = load_mooncake(path, seed=1)
    assert len(exact) == len(jittered) == 12_031
    _well_formed(jittered)
    assert np.mean([r.prompt_tokens for r in exact]) == pytest.approx(12_035, rel=0.01)
    assert np.mean([r.output_tokens for r in exact]) == pytest.approx(343, rel=0.01)
    assert all(r.prefix_block_tokens == 512 for r in exact[:100])
    # hash_ids name each 512-token block, the last one partial.
    assert all(len(r.prefix_hashes) == -(-r.prompt_tokens // 512) for r in exact[:500])
    steps = np.unique(_arrivals(exact))
    assert len(steps) > 1000  # the trace really is stepped, so jitter has work to do
    assert len(np.unique(_arrivals(jittered))) > 12_000
    # Each request stays inside its own step: [t, next t). Match by content, since the
    # jittered workload is re-sorted.
    key = lambda r: (r.prompt_tokens, r.output_tokens, r.prefix_hashes)  # noqa: E731
    start_of = {}
    for r in exact:
        start_of.setdefault(key(r), []).append(r.arrival)
    width = float(np.median(np.diff(steps)))
    for r in jittered:
        starts = start_of[key(r)]
        assert any(s <= r.arrival < s + width * 1.01 for s in starts)
    # Same seed, same workload; another seed, another one.
    assert _arrivals(load_mooncake(path, seed=1)).tolist() == _arrivals(jittered).tolist()
    assert _arrivals(load_mooncake(path, seed=2)).tolist() != _arrivals(jittered).tolist()


@needs_traces
def test_named_specs_and_file_autodetect():
    assert len(load_workload("azure-code")) == 8_819
    assert len(load_workload(f"file:{TRACES / 'azure_llm_2023_code.csv'}")) == 8_819
    moon = load_file(TRACES / "mooncake_conversation.jsonl")
    assert moon[0].prefix_hashes
    fast = load_workload("azure-conv@rate=20,n=5000")
    assert len(fast) == 5000
    assert mean_rate(fast) == pytest.approx(20)
    assert load_workload("mooncake@duration=60")[-1].arrival < 60


# -- generic files ----------------------------------------------------------------------------


def test_generic_csv_and_jsonl(tmp_path):
    csv_path = tmp_path / "w.csv"
    csv_path.write_text(
        "arrival,prompt_tokens,output_tokens,tenant,priority,prefix_hashes,extra\n"
        "2.0,100,10,b,1,7 8,x\n"
        "0.5,200,20,a,0,7,y\n"
    )
    reqs = load_generic(csv_path)
    assert [(r.arrival, r.tenant, r.priority, r.prefix_hashes) for r in reqs] == [
        (0.5, "a", 0, (7,)),
        (2.0, "b", 1, (7, 8)),
    ]
    jl = tmp_path / "w.jsonl"
    jl.write_text(
        json.dumps({"arrival": 1, "prompt_tokens": 5, "output_tokens": 6, "prefix_hashes": [1]})
        + "\n"
    )
    (r,) = load_file(jl)
    assert (r.prompt_tokens, r.output_tokens, r.prefix_hashes) == (5, 6, (1,))


def test_generic_file_errors(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("arrival,prompt_tokens\n1,2\n")
    with pytest.raises(WorkloadError, match="missing column.*output_tokens"):
        load_generic(bad)
    worse = tmp_path / "worse.csv"
    worse.write_text("arrival,prompt_tokens,output_tokens\n1,lots,2\n")
    with pytest.raises(WorkloadError, match="malformed"):
        load_generic(worse)
    with pytest.raises(WorkloadError, match="no such file"):
        load_workload(f"file:{tmp_path / 'absent.csv'}")


# -- generators -------------------------------------------------------------------------------


def test_poisson_rate_cv_and_seed():
    reqs = poisson(8, n=20_000, seed=3)
    _well_formed(reqs)
    assert mean_rate(reqs) == pytest.approx(8, rel=0.03)
    assert _cv(reqs) == pytest.approx(1.0, abs=0.05)
    assert _arrivals(poisson(8, n=100, seed=3)).tolist() == _arrivals(reqs[:100]).tolist()
    assert _arrivals(poisson(8, n=100, seed=4)).tolist() != _arrivals(reqs[:100]).tolist()


@pytest.mark.parametrize("cv", [0.5, 2.0, 4.0])
def test_gamma_hits_rate_and_cv(cv):
    reqs = gamma(5, cv, n=40_000, seed=1)
    assert mean_rate(reqs) == pytest.approx(5, rel=0.08)
    assert _cv(reqs) == pytest.approx(cv, rel=0.1)


def test_onoff_is_bursty_with_silent_gaps():
    reqs = onoff(5, on=10, off=30, duration=4000, seed=2)
    assert mean_rate(reqs) == pytest.approx(5, rel=0.08)
    arr = _arrivals(reqs)
    assert not np.any((arr % 40) >= 10)  # nothing during OFF periods
    assert _cv(reqs) > 3
    assert arr[-1] < 4000


def test_token_lengths_mean_and_cv():
    reqs = poisson(5, n=30_000, prompt=2000, prompt_cv=1.5, output=100, seed=5)
    prompts = np.array([r.prompt_tokens for r in reqs])
    assert prompts.mean() == pytest.approx(2000, rel=0.05)
    assert prompts.std() / prompts.mean() == pytest.approx(1.5, rel=0.15)
    assert {r.output_tokens for r in reqs} == {100}


def test_mix_long_fraction():
    reqs = mix(5, n=10_000, long_frac=0.2, short_prompt=500, long_prompt=16000, seed=1)
    long = sum(r.prompt_tokens == 16000 for r in reqs) / len(reqs)
    assert long == pytest.approx(0.2, abs=0.02)
    assert {r.prompt_tokens for r in reqs} == {500, 16000}


def test_prefix_groups_share_leading_blocks():
    reqs = prefix_groups(5, n=2000, groups=4, prefix=2048, suffix=700, block=512, seed=1)
    by_group: dict[str, set] = {}
    for r in reqs:
        assert r.prompt_tokens == 2748
        assert len(r.prefix_hashes) == -(-2748 // 512)
        by_group.setdefault(r.tenant, set()).add(r.prefix_hashes[:4])
    assert len(by_group) == 4
    assert all(len(heads) == 1 for heads in by_group.values())  # one shared prefix per group
    tails = [r.prefix_hashes[4:] for r in reqs]
    assert len(set(tails)) == len(tails)  # private suffix blocks never collide


def test_tenant_weights():
    reqs = tenants(5, n=20_000, weights=[6, 3, 1], seed=1)
    share = {t: sum(r.tenant == t for r in reqs) / len(reqs) for t in ("t0", "t1", "t2")}
    assert share == pytest.approx({"t0": 0.6, "t1": 0.3, "t2": 0.1}, abs=0.02)


# -- transforms and specs ---------------------------------------------------------------------


def test_scale_to_rate_and_truncate_leave_the_input_alone():
    reqs = poisson(2, n=500, seed=1)
    before = _arrivals(reqs).tolist()
    fast = scale_to_rate(reqs, 50)
    assert mean_rate(fast) == pytest.approx(50)
    assert _arrivals(reqs).tolist() == before
    assert [r.prompt_tokens for r in fast] == [r.prompt_tokens for r in reqs]
    assert len(truncate(reqs, n=10)) == 10
    short = truncate(reqs, duration=30)
    assert short and all(r.arrival < 30 for r in short)
    assert len(short) == sum(a < 30 for a in before)


def test_generator_specs():
    reqs = load_workload("gamma:rps=5,cv=4,n=3000,prompt=800@seed=2")
    assert len(reqs) == 3000
    assert {r.prompt_tokens for r in reqs} == {800}
    assert _arrivals(reqs).tolist() == _arrivals(load_workload(
        "gamma:rps=5,cv=4,n=3000,prompt=800@seed=2")).tolist()
    assert len(load_workload("tenants:rps=5,n=100,weights=5/1/1")) == 100
    assert mean_rate(load_workload("poisson:rps=1,n=200@rate=10")) == pytest.approx(10)
    assert parse_spec("onoff:rps=5,on=2,off=8,duration=60").params["off"] == 8


@pytest.mark.parametrize(
    ("spec", "why"),
    [
        ("nonsense", "unknown source"),
        ("poisson:rps=5", "needs n=COUNT"),
        ("poisson:rps=5,n=many", "n must be an integer"),
        ("poisson:rps=5,n=3,colour=red", "no parameter 'colour'"),
        ("poisson:rps=5,n=3@warp=9", "unknown modifier warp"),
        ("azure-conv@rate=2,speed=3", "rate or speed"),
        ("azure-conv:x=1", "takes no parameters"),
        ("poisson:rps5", "expected KEY=VALUE"),
        ("", "empty"),
    ],
)
def test_bad_specs_name_the_valid_forms(spec, why):
    with pytest.raises(WorkloadError, match=why) as info:
        load_workload(spec)
    assert "valid workload specs" in str(info.value)
    assert isinstance(info.value, ValueError)


def test_generator_argument_errors():
    with pytest.raises(WorkloadError, match="rate must be a positive number"):
        poisson(0, n=10)
    with pytest.raises(WorkloadError, match="give n"):
        poisson(1)
