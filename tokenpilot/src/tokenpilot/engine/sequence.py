"""One request's state inside the engine, and the engine's settings.

A sequence follows vLLM v1's single rule: each iteration it is scheduled
``num_tokens - computed`` tokens (all of them, or a chunk); when ``computed`` reaches
``num_tokens`` a token is sampled. A prefill is the first such catch-up, a decode step is one
with a single token to compute, and recompute after preemption is just another catch-up.

While a sequence decodes, the engine does not touch it per step: its progress is a function of
the engine's iteration counter ``s`` (``kv_tokens = off + s`` at iteration ``s``), and only
aggregates over all decoders are kept up to date. ``computed``/``num_tokens``/``produced`` are
brought up to date when it stops decoding.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from tokenpilot.policy.disciplines import discipline_names
from tokenpilot.workload.request import Request

if TYPE_CHECKING:
    from tokenpilot.policy.isolation import IsolationPolicy

WAITING, PREFILL, DECODE, SWAPPED, FINISHED, REJECTED = range(6)


@dataclass(frozen=True, slots=True)
class EngineConfig:
    """vLLM-like settings of one instance.

    ``max_num_batched_tokens`` must be at least ``max_num_seqs``: every running decode is then
    scheduled in every iteration (decodes go first, then chunked prefills), which is what lets
    the engine skip identical iterations in closed form.
    """

    block_size: int = 16
    max_num_seqs: int = 256
    max_num_batched_tokens: int = 8192
    max_model_len: int = 0  # 0: the model's max_context, else unlimited
    preemption: str = "recompute"  # or "swap"
    enable_prefix_caching: bool = True
    fast: bool = True  # False: the step-by-step reference mode
    record_token_times: bool = True  # keep the decode-span log for tokens_by()
    check: bool = False  # assert the block books after every iteration (slow; tests)
    queue: str = "fcfs"  # by name (policy.disciplines.make_discipline): fcfs|priority|vtc
    # Size classes (policy.isolation): KV blocks and batch slots long requests may not take,
    # and a cap on one request's KV. None: off.
    isolation: IsolationPolicy | None = None
    # How an iteration mixes prefills and decodes (the engine profiles, ``tokenpilot.engines``).
    # prefill_first: an iteration that has a prefill to run runs only prefills, and every
    # running decode waits for it (vLLM V0 without chunked prefill, SGLang without
    # --enable-mixed-chunk); False: prefill chunks fill the token budget the decodes leave.
    prefill_first: bool = False
    # chunked_prefill False: a prompt is prefilled whole in one iteration, so one longer than
    # max_num_batched_tokens is rejected (a recompute that outgrew the budget is still chunked).
    chunked_prefill: bool = True
    # Host memory for swap preemption, in KV tokens (None: unlimited). A swap that does not fit
    # in what is left preempts by recompute instead.
    swap_tokens: int | None = None
    # A fixed KV pool of this many blocks (llama.cpp's slots x per-slot context); 0: what the
    # cost model's GPU memory holds (a paged pool).
    kv_blocks: int = 0

    def __post_init__(self) -> None:
        if self.block_size <= 0:
            raise ValueError(f"block_size must be positive, got {self.block_size}")
        if self.max_num_seqs <= 0:
            raise ValueError(f"max_num_seqs must be positive, got {self.max_num_seqs}")
        if self.max_num_batched_tokens < self.max_num_seqs:
            raise ValueError(
                f"max_num_batched_tokens ({self.max_num_batched_tokens}) must be >= "
                f"max_num_seqs ({self.max_num_seqs}) so every running decode fits each iteration"
            )
        if self.preemption not in ("recompute", "swap"):
            raise ValueError(f"preemption must be 'recompute' or 'swap', got {self.preemption!r}")
        if self.swap_tokens is not None and self.swap_tokens < 0:
            raise ValueError(f"swap_tokens must be >= 0 (or None: unlimited), got "
                             f"{self.swap_tokens}")
        if self.queue not in discipline_names():
            raise ValueError(f"unknown queue discipline {self.queue!r}; "
                             f"known: {', '.join(discipline_names())}")


class Seq:
    """Mutable per-request state; plain slots, no methods on the hot path."""

    __slots__ = (
        "req", "id", "prompt", "output", "priority", "arrival",
        "state", "num_tokens", "computed", "produced", "anon", "hashed", "keys", "raws",
        "reg_stop", "off", "s_join", "p_join", "capped", "admit_no",
        "first_scheduled", "first_token", "finish", "cached_tokens", "preemptions", "segments",
        "reason", "long_blocks",
    )

    def __init__(self, req: Request) -> None:
        self.req = req
        self.id = req.id
        self.prompt = req.prompt_tokens
        self.output = req.output_tokens
        self.priority = req.priority
        self.arrival = req.arrival
        self.state = WAITING
        self.num_tokens = req.prompt_tokens  # tokens whose KV must exist before the next sample
        self.computed = 0  # tokens whose KV exists
        self.produced = 0  # output tokens sampled
        self.anon = 0  # anonymous blocks held
        self.hashed: list[int] = []  # prefix-cache keys held, in block order
        self.keys: list[int] | None = None  # this prompt's prefix-cache keys (lazily built)
        self.raws: list[int] | None = None  # the raw prefix hash behind each key
        self.reg_stop = False  # a duplicate prefix block was met: register no more
        self.off = 0  # while decoding: kv tokens at iteration s are off + s
        self.s_join = 0
        self.p_join = 0
        self.capped = False  # while decoding: KV already at the sliding window
        self.admit_no = 0
        self.first_scheduled = -1.0
        self.first_token = -1.0
        self.finish = -1.0
        self.cached_tokens = -1  # prompt tokens found in the prefix cache at first admission
        self.preemptions: list[tuple[float, str]] = []
        # Decode segments: (iteration joined, tokens produced then, iteration left or OPEN).
        self.segments: list[tuple[int, int, int]] = []
        self.reason = ""
        # Under isolation, a long request's lifetime KV blocks, counted against the long class
        # while it runs (0: short, or isolation off).
        self.long_blocks = 0
