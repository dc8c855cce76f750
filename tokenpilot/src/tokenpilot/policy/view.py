"""What a router sees of one inference instance, whether simulated or behind HTTP."""

from __future__ import annotations

from collections.abc import Set
from dataclasses import dataclass, field


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
    num_waiting: int = 0
    # Prompt tokens not yet prefilled (waiting requests plus unfinished chunked prefills).
    queued_prefill_tokens: int = 0
    # Tokens still to be produced or processed by all requests on the instance (prefill + decode).
    outstanding_tokens: int = 0
    kv_blocks_used: int = 0
    kv_blocks_total: int = 0
    block_size: int = 16
    max_model_len: int = 0  # 0: unknown
    # Predicted speeds from the cost model (0: unknown).
    prefill_tokens_per_s: float = 0.0
    decode_tokens_per_s: float = 0.0
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
