"""What a router sees of one inference instance, whether simulated or behind HTTP."""

from __future__ import annotations

from collections.abc import Set
from dataclasses import dataclass, field

from tokenpilot.frozen import fast_constructor


@dataclass(frozen=True, slots=True)
class InstanceView:
    """A read-only snapshot of one instance.

    The simulator's engine fills it from its own state; the gateway fills it from its own
    accounting plus the backend's ``/metrics``. Fields a source cannot know keep their defaults.
    """

    index: int  # position in the list the router receives
    name: str
    gpu: str = ""
    model: str = ""
    healthy: bool = True
    num_running: int = 0
    num_waiting: int = 0  # queued plus swapped out
    max_num_seqs: int = 0  # batch slots (running sequences at most); 0: unknown
    # KV tokens of swapped-out requests (in host memory, waiting to come back): not in
    # ``kv_blocks_used``, yet owed to the pool before anything new fits.
    swapped_kv_tokens: int = 0
    # Prompt tokens not yet prefilled (waiting requests plus unfinished chunked prefills).
    queued_prefill_tokens: int = 0
    # Tokens still to be produced or processed by all requests on the instance (prefill + decode).
    outstanding_tokens: int = 0
    kv_blocks_used: int = 0
    kv_blocks_total: int = 0
    block_size: int = 16
    max_model_len: int = 0  # 0: unknown
    # Predicted speeds from the cost model (0: unknown).
    # Prefill: prompt tokens/s of a full chunk budget.
    prefill_tokens_per_s: float = 0.0
    # Prefill beside the running decodes: the chunk budget left after their one token each,
    # over the time of that mixed iteration (0: unknown; ``prefill_tokens_per_s`` then).
    mixed_prefill_tokens_per_s: float = 0.0
    # Decode: aggregate decode tokens/s at the current batch; at batch 1 when idle; 0 only when
    # unknown. One sequence of a batch of ``num_running`` gets ``decode_tokens_per_s /
    # max(num_running, 1)`` of it (one token per decode step).
    decode_tokens_per_s: float = 0.0
    # Seconds one more sequence (at the batch's mean context) adds to every decode step of
    # the current batch, from the cost model (0: unknown). What a newcomer costs the sequences
    # already running, per token they produce while it runs beside them.
    decode_step_growth_s: float = 0.0
    # Predicted seconds until the work now on the instance is done.
    predicted_drain_s: float = 0.0
    # Prefix hashes (``Request.prefix_hashes`` values) whose KV the instance holds. A live,
    # read-only view: routers only test membership.
    cached_prefixes: Set[int] = field(default_factory=frozenset)
    # e.g. ("long-context",) for instances configured for long requests.
    labels: tuple[str, ...] = ()

    @property
    def kv_blocks_free(self) -> int:
        return self.kv_blocks_total - self.kv_blocks_used

    @property
    def kv_usage(self) -> float:
        return self.kv_blocks_used / self.kv_blocks_total if self.kv_blocks_total else 0.0


# Engines and the gateway make a view per routing decision: this takes every field, by position
# or keyword, and skips the frozen dataclass's slow __init__ (tokenpilot.frozen).
make_view = fast_constructor(InstanceView)


def slot_wait_s(v: InstanceView) -> float:
    """Seconds a request arriving now waits for a batch slot on ``v`` (0: a slot is free).

    With every one of ``max_num_seqs`` slots taken (counting the queue ahead, which takes
    slots first), the request starts once ``running + waiting - max_num_seqs + 1`` of those
    sequences have finished. All of them have by ``predicted_drain_s``; finishes are spread over
    that time, so the wait is the drain time scaled by that share. 0 when the slot count is
    unknown.
    """
    ms = v.max_num_seqs
    total = v.num_running + v.num_waiting
    if not ms or total < ms or v.predicted_drain_s <= 0:
        return 0.0
    return v.predicted_drain_s * (total - ms + 1) / total
