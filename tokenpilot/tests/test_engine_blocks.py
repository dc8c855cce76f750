"""Paged KV blocks and prefix caching on constructed cases."""

from __future__ import annotations

import pytest

from tokenpilot.costmodel import CostModel
from tokenpilot.engine import BlockManager, Engine, EngineConfig
from tokenpilot.hardware import get_gpu
from tokenpilot.models import get_model
from tokenpilot.workload import Request


@pytest.fixture(scope="module")
def cm() -> CostModel:
    return CostModel(get_model("llama-3.1-8b"), get_gpu("h100-sxm"))


def test_take_evicts_cached_free_blocks_lru():
    bm = BlockManager(4, 16)
    bm.take(3)
    assert bm.register(101, 1) and bm.register(102, 2)
    bm.drop([101])  # 101 becomes cached free first
    bm.drop([102])
    assert (bm.free, bm.used, bm.available) == (1, 1, 3)
    bm.take(2)  # one free block, then the oldest cached one (101) is evicted
    assert bm.evictions == 1 and 101 not in bm.cache and 102 in bm.cache
    assert set(bm.prefixes) == {2}
    with pytest.raises(RuntimeError):
        bm.take(2)
    bm.check()


def test_allocate_shares_hits_before_taking_and_counts_them():
    bm = BlockManager(4, 16)
    bm.take(3)
    assert bm.register(101, 1) and bm.register(102, 2) and bm.register(103, 3)
    bm.drop([101, 102, 103])  # all three cached free; 103 is the oldest in the LRU
    assert bm.match([101, 102], 10) == (2, 2)
    bm.allocate([101, 102], 2, 40)  # 1 free block, then 103 evicted: never a hit block
    assert 101 in bm.cache and 102 in bm.cache and 103 not in bm.cache
    assert (bm.hit_tokens, bm.miss_tokens, bm.used, bm.anon) == (32, 8, 4, 2)
    bm.give(2)
    assert (bm.free, bm.anon) == (2, 0)
    bm.check()


def test_prefix_keys_name_equal_content_equally():
    bm = BlockManager(64, 16)
    # Hashes of 32 tokens each over 16-token blocks: two blocks per hash.
    a, a_raw = bm.prefix_keys((7, 8, 9), 32, 80)  # covers 80 of 96 tokens: 5 full blocks
    b, b_raw = bm.prefix_keys((7, 8, 5), 32, 200)
    assert len(a) == 5 and len(b) == 6
    assert a[:4] == b[:4] and a[4] != b[4]  # the third hash differs from block 4 on
    assert a_raw == [7, 7, 8, 8, 9] and b_raw == [7, 7, 8, 8, 5, 5]
    assert len(set(a)) == 5  # a position is part of a key
    assert bm.prefix_keys((), 32, 80) == ([], [])


def test_match_stops_at_first_miss_and_respects_limit():
    bm = BlockManager(8, 16)
    bm.take(3)
    for k in (1, 2, 3):
        bm.register(k, k)
    bm.drop([3])
    assert bm.match([1, 2, 3, 4], 10) == (3, 1)
    assert bm.match([1, 9, 3], 10) == (1, 0)
    assert bm.match([1, 2, 3], 2) == (2, 0)


def test_shared_prefix_hits_exactly_the_expected_blocks(cm):
    # Two 64-token prefix blocks (4 engine blocks each); the second request shares the first
    # hash only, the third shares both, the fourth none.
    reqs = [
        Request(0, 0.0, 200, 4, prefix_hashes=(7, 8), prefix_block_tokens=64),
        Request(1, 5.0, 200, 4, prefix_hashes=(7, 9), prefix_block_tokens=64),
        Request(2, 6.0, 130, 4, prefix_hashes=(7, 8), prefix_block_tokens=64),
        Request(3, 7.0, 200, 4, prefix_hashes=(8, 7), prefix_block_tokens=64),
    ]
    eng = Engine(cm, EngineConfig(check=True))
    res = eng.run(reqs)
    assert [r.cached_tokens for r in res] == [0, 64, 128, 0]
    st = eng.finalize_stats()
    assert st.prefix_hit_tokens == 192
    assert st.prefix_miss_tokens == 730 - 192  # 730 prompt tokens in all
    assert set(eng.view().cached_prefixes) == {7, 8, 9}


def test_whole_prompt_hit_still_computes_the_last_token(cm):
    reqs = [Request(0, 0.0, 128, 2, prefix_hashes=(1, 2), prefix_block_tokens=64),
            Request(1, 5.0, 128, 2, prefix_hashes=(1, 2), prefix_block_tokens=64)]
    res = Engine(cm, EngineConfig(check=True)).run(reqs)
    assert res[1].cached_tokens == 112  # 7 of 8 blocks: the last token is recomputed
    assert res[1].ttft < res[0].ttft


def test_prefix_blocks_are_evicted_under_pressure_and_counted(cm):
    # 40 blocks of 16 tokens; each request's prefix takes 8 blocks, so old ones get evicted.
    reqs = [Request(i, float(i), 160, 2, prefix_hashes=(100 + i,), prefix_block_tokens=128)
            for i in range(10)]
    eng = Engine(cm, EngineConfig(check=True), num_blocks=40)
    eng.run(reqs)
    st = eng.finalize_stats()
    assert st.evictions > 0
    assert eng.bm.used == 0 and eng.bm.available == 40
    assert len(eng.bm.cache) <= 40


def test_concurrent_identical_prefixes_do_not_double_register(cm):
    reqs = [Request(i, 0.0, 300, 3, prefix_hashes=(5, 6), prefix_block_tokens=128)
            for i in range(3)]
    eng = Engine(cm, EngineConfig(check=True))
    res = eng.run(reqs)
    assert all(r.finish > 0 for r in res)
    assert len(eng.bm.cache) == 16  # 256 covered tokens / 16, each registered once
