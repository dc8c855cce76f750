"""Routers: each one's defining behaviour on hand-built views, the registry, composition."""

from __future__ import annotations

import ast
import math
import random
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest
from builders import fleet, req

from tokenpilot.policy import (
    ROUTERS,
    InstanceView,
    NoHealthyInstance,
    RouterError,
    compose,
    get_router,
    load_composed,
    make_router,
)
from tokenpilot.workload import Request


def with_(views, i, **changes) -> list[InstanceView]:
    out = list(views)
    out[i] = replace(out[i], **changes)
    return out


@pytest.mark.parametrize("name", list(ROUTERS))
def test_every_router_skips_unhealthy_and_raises_when_none(name):
    router = get_router(name)
    views = fleet(4)
    for i in (0, 1, 3):
        views = with_(views, i, healthy=False)
    for k in range(20):
        assert router.pick(req(rid=k, hashes=(1, 2)), views) == 2
        router.on_routed(req(rid=k, hashes=(1, 2)), 2)
    with pytest.raises(NoHealthyInstance):
        router.pick(req(), with_(views, 2, healthy=False))
    with pytest.raises(NoHealthyInstance):
        router.pick(req(), [])


@pytest.mark.parametrize("name", list(ROUTERS))
def test_every_router_spreads_an_idle_fleet(name):
    router = get_router(name, seed=1)
    views = fleet(4)
    picks = Counter(router.pick(req(rid=k), views) for k in range(400))
    assert set(picks) == {0, 1, 2, 3}


def test_round_robin_cycles_over_healthy():
    router = get_router("round-robin")
    views = with_(fleet(4), 1, healthy=False)
    assert [router.pick(req(), views) for _ in range(6)] == [0, 2, 3, 0, 2, 3]


def test_least_requests_and_least_tokens():
    views = fleet(4)
    views = with_(views, 0, num_running=1, outstanding_tokens=50_000)
    views = with_(views, 1, num_running=3, num_waiting=2, outstanding_tokens=100)
    views = with_(views, 2, num_running=2, outstanding_tokens=900)
    views = with_(views, 3, num_running=4, outstanding_tokens=400)
    assert get_router("least-requests").pick(req(), views) == 0
    router = get_router("least-tokens")
    assert {router.pick(req(), views) for _ in range(8)} == {1}


def test_p2c_never_picks_the_worse_of_its_two_samples():
    loads = [random.Random(i).randrange(10_000) for i in range(16)]
    views = [InstanceView(index=i, name=str(i), outstanding_tokens=t) for i, t in enumerate(loads)]
    router = get_router("p2c", seed=3)
    shadow = random.Random(3)  # replays the router's two draws
    worst = max(range(16), key=loads.__getitem__)
    for _ in range(2000):
        a = shadow.randrange(16)
        b = shadow.randrange(15)
        b += b >= a
        chosen = router.pick(req(), views)
        assert chosen in (a, b)
        assert loads[chosen] == min(loads[a], loads[b])
        assert chosen != worst


def test_kv_usage_prefers_headroom():
    views = fleet(3, kv_blocks_total=1000)
    views = with_(views, 0, kv_blocks_used=900)
    views = with_(views, 1, kv_blocks_used=200, outstanding_tokens=5000)
    views = with_(views, 2, kv_blocks_used=600)
    assert get_router("kv-usage").pick(req(), views) == 1


def test_prefix_affinity_keeps_a_prefix_together():
    router = get_router("prefix-affinity")
    views = fleet(8)
    first = router.pick(req(hashes=(10, 11, 12)), views)
    router.on_routed(req(hashes=(10, 11, 12)), first)
    # Make the chosen instance somewhat busier: affinity still wins below the guard.
    views = with_(views, first, outstanding_tokens=3000)
    for k in range(20):
        r = req(rid=k, hashes=(10, 11, 12, 100 + k))
        assert router.pick(r, views) == first
    # A different prefix goes to the least-loaded instance, not the busy one.
    assert router.pick(req(hashes=(99,)), views) != first


def test_prefix_affinity_follows_the_longest_match():
    router = get_router("prefix-affinity", min_tokens=0, slack=10)
    views = fleet(4)
    router.on_routed(req(hashes=(1,)), 0)
    router.on_routed(req(hashes=(1, 2, 3)), 2)
    assert router.pick(req(hashes=(1, 2, 3, 4)), views) == 2
    # The engine's own cache (cached_prefixes) beats a shorter index match.
    views = with_(views, 3, cached_prefixes=frozenset({1, 2, 3, 4}))
    assert router.pick(req(hashes=(1, 2, 3, 4)), views) == 3


def test_prefix_affinity_load_guard_breaks_a_hot_prefix_collapse():
    def simulate(router) -> Counter:
        loads = [0] * 8
        placed: Counter = Counter()
        for k in range(400):
            views = [InstanceView(index=i, name=str(i), outstanding_tokens=t)
                     for i, t in enumerate(loads)]
            r = req(prompt=2000, hashes=(7, 8, 9, 1000 + k), rid=k)
            i = router.pick(r, views)
            router.on_routed(r, i)
            placed[i] += 1
            loads[i] += r.total_tokens
            loads = [max(0, t - 400) for t in loads]  # the fleet drains a little each step
        return placed

    guarded = simulate(get_router("prefix-affinity", slack=0.5, min_tokens=4096))
    unguarded = simulate(get_router("prefix-affinity", slack=1e9))
    assert len(unguarded) == 1  # without the guard, one hot prefix takes everything
    assert len(guarded) >= 4
    assert max(guarded.values()) < 0.6 * 400


def test_prefix_affinity_index_is_bounded_lru():
    router = get_router("prefix-affinity", capacity=3)
    for h in range(10):
        router.on_routed(req(hashes=(h,)), h % 4)
    assert len(router) == 3
    views = fleet(4)
    views = with_(views, 1, outstanding_tokens=10)  # 9 was routed to 1; least-load says 0
    assert router.pick(req(hashes=(9,)), views) == 1
    assert router.pick(req(hashes=(0,)), views) != 1  # evicted: plain least-load


def test_earliest_completion_weighs_speed_and_backlog():
    router = get_router("earliest-completion")
    fast = dict(prefill_tokens_per_s=20_000.0, decode_tokens_per_s=60.0)
    slow = dict(prefill_tokens_per_s=4_000.0, decode_tokens_per_s=20.0)
    idle_fast = InstanceView(index=0, name="h100", **fast)
    idle_slow = InstanceView(index=1, name="l4", **slow)
    assert router.pick(req(prompt=2000, output=200), [idle_slow, idle_fast]) == 1
    assert router.pick(req(prompt=2000, output=200), [idle_fast, idle_slow]) == 0
    swamped_fast = replace(idle_fast, index=0, queued_prefill_tokens=400_000,
                           num_waiting=200, predicted_drain_s=60.0)
    idle_slow = replace(idle_slow, index=1)
    assert router.pick(req(prompt=2000, output=200), [swamped_fast, idle_slow]) == 1
    # A full KV cache makes the request wait for the running work to drain.
    full_fast = replace(idle_fast, kv_blocks_total=100, kv_blocks_used=100, predicted_drain_s=90.0)
    assert router.pick(req(prompt=2000, output=200), [full_fast, idle_slow]) == 1


def test_earliest_completion_counts_prefix_hits():
    router = get_router("earliest-completion")
    speeds = dict(prefill_tokens_per_s=5_000.0, decode_tokens_per_s=50.0)
    r = req(prompt=40_000, output=10, hashes=tuple(range(80)))
    cold = InstanceView(index=0, name="cold", **speeds)
    warm = InstanceView(index=1, name="warm", queued_prefill_tokens=10_000,
                        cached_prefixes=frozenset(range(78)), **speeds)
    assert router.pick(r, [cold, warm]) == 1


def test_registry_errors():
    with pytest.raises(RouterError, match="valid routers: round-robin, random"):
        get_router("fastest")
    with pytest.raises(RouterError, match="no parameter colour"):
        get_router("p2c", colour="red")
    with pytest.raises(RouterError, match="capacity"):
        get_router("prefix-affinity", capacity=0)
    assert make_router("prefix-affinity:slack=0.25,capacity=10").slack == 0.25
    with pytest.raises(RouterError, match="expected NAME:key=value"):
        make_router("p2c:seed")


COMPOSITION = """
filters: [healthy, {max_kv_usage: 0.9}]
scorers:
  - {name: queue, weight: 1}
  - {name: prefix, weight: 2}
  - {name: kv, weight: 1}
picker: max
"""


def test_composition_from_yaml(tmp_path):
    path = tmp_path / "router.yaml"
    path.write_text(COMPOSITION)
    router = load_composed(path)
    assert make_router(str(path)).name == "composed"
    views = fleet(4, kv_blocks_total=100)
    views = with_(views, 0, kv_blocks_used=95, cached_prefixes=frozenset({1, 2}))  # filtered
    views = with_(views, 1, kv_blocks_used=50, cached_prefixes=frozenset({1, 2}), num_waiting=1)
    views = with_(views, 2, kv_blocks_used=10)
    views = with_(views, 3, healthy=False, cached_prefixes=frozenset({1, 2}))
    # Prefix (weight 2) outweighs the shorter queue and freer KV of instance 2.
    assert router.pick(req(hashes=(1, 2)), views) == 1
    # Without a prefix match, the freer, shorter-queued instance wins.
    assert router.pick(req(hashes=(5,)), views) == 2
    # A filter that would leave nothing is skipped rather than failing the request.
    full = [replace(v, kv_blocks_used=99) for v in views]
    assert router.pick(req(), full) in (0, 1, 2)


def test_composition_errors():
    with pytest.raises(RouterError, match="valid scorers"):
        compose({"scorers": [{"name": "vibes"}]})
    with pytest.raises(RouterError, match="valid filters"):
        compose({"filters": ["sunny"]})
    with pytest.raises(RouterError, match="picker: expected one of max, weighted, random"):
        compose({"picker": "best"})
    with pytest.raises(RouterError, match="valid keys"):
        compose({"scorer": []})


def test_policy_package_stays_pure():
    """No I/O-ish or clock imports, nothing from cluster or gateway."""
    root = Path(__file__).resolve().parents[1] / "src" / "tokenpilot" / "policy"
    banned = {"time", "socket", "httpx", "tokenpilot.cluster", "tokenpilot.gateway"}
    for path in [root / "router.py", *sorted((root / "routers").glob("*.py"))]:
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            for name in names:
                assert not any(name == b or name.startswith(b + ".") for b in banned), (path, name)


def test_prefix_affinity_shared_head_decides_nothing_longest_chain_wins():
    router = get_router("prefix-affinity", min_tokens=0, slack=10)
    views = fleet(4, cached_prefixes=frozenset({0}))  # one system prompt held everywhere
    views = with_(views, 1, cached_prefixes=frozenset({0, 5}), outstanding_tokens=100)
    views = with_(views, 2, cached_prefixes=frozenset({0, 5, 6, 7}), outstanding_tokens=200)
    views = with_(views, 3, outstanding_tokens=50)
    assert router.pick(req(hashes=(0, 5, 6, 7, 8)), views) == 2
    # Only the shared head matches: plain least-load, not the deepest-cache instance.
    views = with_(views, 0, outstanding_tokens=300)
    assert router.pick(req(hashes=(0, 9)), views) == 3


def test_prefix_affinity_guard_credits_the_prefill_a_deep_match_saves():
    chain = tuple(range(20))  # 20 blocks of 512 tokens: a long conversation's history
    views = fleet(4, cached_prefixes=frozenset({0}))
    views = with_(views, 0, cached_prefixes=frozenset(chain), outstanding_tokens=18_000)
    for i in (1, 2, 3):
        views = with_(views, i, outstanding_tokens=6_000)
    # Mean 9000, limit 13500: instance 0 is over it, but sending the request elsewhere would
    # prefill ~9.7k tokens again; the credit keeps it home.
    router = get_router("prefix-affinity")
    assert router.pick(req(prompt=10_500, hashes=chain + (99,)), views) == 0
    assert router.guard_trips == 0
    # A short match saves little: the guard trips and the request goes to the least loaded.
    assert router.pick(req(prompt=10_500, hashes=(0, 1, 2, 77)), views) != 0
    assert router.guard_trips == 1


def test_earliest_completion_picks_the_least_routing_cost_on_random_views():
    """The router inlines routing_cost_s over cached per-view terms: both must agree."""
    from tokenpilot.policy.routers.earliest_completion import routing_cost_s

    rng = random.Random(3)
    router = get_router("earliest-completion")
    for trial in range(200):
        views = [InstanceView(
            index=i, name=str(i), healthy=rng.random() > 0.1,
            num_running=rng.randrange(0, 40), num_waiting=rng.randrange(0, 10),
            max_num_seqs=rng.choice([0, 32]), queued_prefill_tokens=rng.randrange(0, 20000),
            outstanding_tokens=rng.randrange(20000, 40000),
            kv_blocks_used=rng.randrange(0, 1000), kv_blocks_total=rng.choice([0, 1000]),
            block_size=16, prefill_tokens_per_s=rng.choice([0.0, 8000.0, 20000.0]),
            decode_tokens_per_s=rng.choice([0.0, 900.0, 3000.0]),
            decode_step_growth_s=rng.choice([0.0, 1e-4, 4e-4]),
            mixed_prefill_tokens_per_s=rng.choice([0.0, 6000.0]),
            predicted_drain_s=rng.random() * 5, cached_prefixes=frozenset({7}) if i % 2 else
            frozenset()) for i in range(8)]
        if not any(v.healthy for v in views):
            continue
        req = Request(trial, 0.0, rng.randrange(1, 8000), rng.randrange(1, 800),
                      prefix_hashes=(7, 8) if trial % 3 == 0 else ())
        i = router.pick(req, views)
        costs = {j: routing_cost_s(req, v) for j, v in enumerate(views) if v.healthy}
        assert math.isclose(costs[i], min(costs.values()), rel_tol=1e-12)


def test_earliest_completion_prices_the_slowdown_it_imposes():
    """A busy fast GPU can finish the request first yet cost the fleet more: each of its
    running sequences waits for the newcomer's prefill and decodes slower beside it."""
    from tokenpilot.policy.routers.earliest_completion import completion_s, marginal_cost_s

    router = get_router("earliest-completion")
    # 100 running at 6000 tok/s aggregate: 16.7 ms a step, +0.2 ms per extra sequence.
    busy_fast = InstanceView(index=0, name="h100", num_running=100, outstanding_tokens=30_000,
                             prefill_tokens_per_s=40_000.0, decode_tokens_per_s=6000.0,
                             decode_step_growth_s=2e-4)
    idle_slow = InstanceView(index=1, name="l40s", prefill_tokens_per_s=10_000.0,
                             decode_tokens_per_s=40.0, decode_step_growth_s=1e-4)
    r = req(prompt=2000, output=200)
    assert completion_s(r, busy_fast) < completion_s(r, idle_slow)  # 3.4 s vs 5.2 s
    assert marginal_cost_s(r, idle_slow) == 0.0  # nothing runs beside it there
    # 100 x 50 ms of prefill + 100 x 0.2 ms x 200 shared steps = 9 s added to the others.
    assert math.isclose(marginal_cost_s(r, busy_fast), 9.0)
    assert router.pick(r, [busy_fast, idle_slow]) == 1
    # Without the growth figure (a view that cannot know it) only its prefill is priced.
    blind = replace(busy_fast, decode_step_growth_s=0.0, num_running=10)
    assert router.pick(r, [blind, idle_slow]) == 0
