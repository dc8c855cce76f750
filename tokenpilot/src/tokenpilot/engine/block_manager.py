"""The paged KV cache: a pool of fixed-size blocks, most of them counted, a few of them named.

A block's life: free -> allocated to one sequence (anonymous) -> if it holds a full block of a
shared prefix, registered under its hash once computed -> shared by every sequence whose prefix
hits it (reference counted) -> when the last one lets go, *cached free*: evictable, but still a
hit for the next request with that prefix -> evicted least-recently-used when the pool runs dry.

Only prefix blocks are hashed: the simulator does not know token contents, so a block no other
request can name could never be hit and caching it would only cost time. Anonymous blocks are
therefore a count, not objects, which keeps the hot path free of per-block Python work.
"""

from __future__ import annotations

from collections import Counter, OrderedDict
from collections.abc import Sequence


class BlockManager:
    """Counts free, anonymous and hashed blocks; keeps the prefix cache and its LRU."""

    __slots__ = (
        "num_blocks", "block_size", "free", "anon", "cache", "lru", "prefixes",
        "hit_tokens", "miss_tokens", "evictions",
    )

    def __init__(self, num_blocks: int, block_size: int = 16) -> None:
        if num_blocks <= 0:
            raise ValueError(f"the KV cache needs at least one block, got {num_blocks}")
        self.num_blocks = num_blocks
        self.block_size = block_size
        self.free = num_blocks  # never-used or evicted blocks
        self.anon = 0  # blocks owned by exactly one sequence, unnamed
        # key -> [ref_count, raw prefix hash]; ref 0 means cached free (also listed in ``lru``).
        self.cache: dict[int, list[int]] = {}
        self.lru: OrderedDict[int, None] = OrderedDict()
        # Raw ``Request.prefix_hashes`` values held, with how many blocks carry each: the live
        # set routers see as ``InstanceView.cached_prefixes``.
        self.prefixes: Counter[int] = Counter()
        self.hit_tokens = 0
        self.miss_tokens = 0
        self.evictions = 0

    # ---- capacity -------------------------------------------------------------------------
    @property
    def available(self) -> int:
        """Blocks an allocation may take: free ones plus evictable cached ones."""
        return self.free + len(self.lru)

    @property
    def used(self) -> int:
        """Blocks some running sequence holds (cached free blocks count as free, as in vLLM)."""
        return self.num_blocks - self.free - len(self.lru)

    # ---- anonymous blocks -----------------------------------------------------------------
    def take(self, n: int) -> None:
        """Take ``n`` anonymous blocks, evicting cached free ones (oldest first) when the free
        ones do not suffice; the caller has checked ``available``."""
        free = self.free
        if n <= free:  # the usual case: nothing to evict (n <= 0 takes nothing)
            if n > 0:
                self.free = free - n
                self.anon += n
            return
        short = n - free
        if short > len(self.lru):
            raise RuntimeError(f"KV cache over-allocated: need {n}, have {self.available}")
        for _ in range(short):
            key, _ = self.lru.popitem(last=False)
            self._forget(key)
        self.free = 0
        self.anon += n

    def give(self, n: int) -> None:
        """Return ``n`` anonymous blocks to the free pool."""
        self.anon -= n
        self.free += n

    # ---- prefix blocks --------------------------------------------------------------------
    def match(self, keys: Sequence[int], limit: int) -> tuple[int, int]:
        """(hits, of them cached free): leading ``keys`` in the cache, at most ``limit``."""
        cache = self.cache
        hits = idle = 0
        for key in keys:
            if hits >= limit:
                break
            entry = cache.get(key)
            if entry is None:
                break
            hits += 1
            if entry[0] == 0:
                idle += 1
        return hits, idle

    def allocate(self, hits: Sequence[int], n: int, tokens: int) -> None:
        """Admit a sequence of ``tokens`` tokens: share its cached blocks ``hits`` (found by
        :meth:`match`), take ``n`` anonymous ones, count its prefix-cache hits and misses."""
        cached = len(hits) * self.block_size
        if hits:
            self.acquire(hits)  # first: a hit block must not be evicted for the new ones
            self.hit_tokens += cached
        self.miss_tokens += tokens - cached
        self.take(n)

    def acquire(self, keys: Sequence[int]) -> None:
        """Share the cached blocks ``keys`` (found by :meth:`match`)."""
        for key in keys:
            entry = self.cache[key]
            if entry[0] == 0:
                del self.lru[key]
            entry[0] += 1

    def register(self, key: int, raw: int) -> bool:
        """Name one of the caller's anonymous blocks ``key``; False if the name is taken."""
        if key in self.cache:
            return False  # another sequence computed the same prefix first: ours stays private
        self.cache[key] = [1, raw]
        self.prefixes[raw] += 1
        self.anon -= 1
        return True

    def drop(self, keys: Sequence[int]) -> None:
        """Let go of hashed blocks; the last holder leaves them cached free, tail first."""
        cache, lru = self.cache, self.lru
        for key in reversed(keys):  # a prefix's head is the likeliest hit: evict it last
            entry = cache[key]
            entry[0] -= 1
            if entry[0] == 0:
                lru[key] = None

    def prefix_keys(self, hashes: Sequence[int], block_tokens: int,
                    prompt_tokens: int) -> tuple[list[int], list[int]]:
        """A request's prefix hashes mapped onto this pool's blocks: (keys, raws), a key per
        full block they cover and the raw hash behind it.

        ``hashes`` each cover ``block_tokens`` prompt tokens (``Request.prefix_hashes`` and
        ``prefix_block_tokens``). A block's key chains every prefix hash up to the one covering
        its last token, plus its position, so equal keys mean equal content from the start of
        the prompt.
        """
        bs = self.block_size
        covered = min(len(hashes) * block_tokens, prompt_tokens)
        chain: list[int] = []
        h = 0
        for raw in hashes:
            h = hash((h, raw))
            chain.append(h)
        keys: list[int] = []
        raws: list[int] = []
        for b in range(covered // bs):
            j = ((b + 1) * bs - 1) // block_tokens
            keys.append(hash((chain[j], b)))
            raws.append(hashes[j])
        return keys, raws

    def _forget(self, key: int) -> None:
        raw = self.cache.pop(key)[1]
        c = self.prefixes[raw] - 1
        if c:
            self.prefixes[raw] = c
        else:
            del self.prefixes[raw]
        self.evictions += 1

    def check(self) -> None:
        """Assert the pool's books balance (tests and the step-by-step mode call it)."""
        in_use = sum(1 for ref, _ in self.cache.values() if ref > 0)
        assert len(self.lru) == len(self.cache) - in_use, "LRU out of step with the cache"
        assert self.free >= 0 and self.anon >= 0, (self.free, self.anon)
        assert self.free + self.anon + len(self.cache) == self.num_blocks, (
            self.free, self.anon, len(self.cache), self.num_blocks)
