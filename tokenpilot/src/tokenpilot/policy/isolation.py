"""Keeping short requests out from behind long ones.

A 100k-token prompt holds a large share of an instance's KV blocks for its whole life and its
prefill occupies whole iterations; short interactive requests queued behind it miss their TTFT.
Two pure tools separate them:

- ``IsolationPolicy``: size classes by prompt length (``short < long_threshold <= long``), a share
  of each instance's KV blocks and batch slots that only short requests may use, a cap on the
  KV share any one request may hold, and a cap on the share of an iteration's token budget
  (``max_num_batched_tokens``) long requests' prefill chunks may take, so short prefills run in
  the same iterations instead of waiting for a long prompt's chunks to pass. An engine
  scheduler consults ``can_schedule`` before admitting a waiting request, and
  ``max_request_blocks`` to cap one sequence.
- ``SizeClassRouter``: wraps any router; long requests go only to instances labelled
  ``long-context`` when any is healthy, short ones preferably to the others.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from tokenpilot.policy.router import Router
from tokenpilot.policy.view import InstanceView
from tokenpilot.workload.request import Request

SHORT = "short"
LONG = "long"
LONG_CONTEXT_LABEL = "long-context"


@dataclass(frozen=True)
class IsolationPolicy:
    long_threshold: int = 4096  # prompt tokens at or above this make a request long
    short_kv_reserve: float = 0.0  # share of KV blocks long requests may not use
    short_seq_reserve: float = 0.0  # share of batch slots long requests may not use
    max_request_kv_share: float = 1.0  # the most of the KV blocks one request may hold
    # The most of one iteration's token budget long requests' prefill chunks may take together
    # (1: no cap); short prefills run in the rest of the iteration.
    long_prefill_share: float = 1.0
    # Under the cap: a long chunk runs only in iterations with no other prefill work (a short
    # request prefilling or waiting), so a short prompt never shares its iteration with a
    # chunk over a long context. Long prefills then move in the gaps of the short traffic:
    # under sustained overload of short requests they wait (the reserve still bounds their
    # KV and slots).
    long_prefill_yields: bool = False
    # With yielding long prefills: the instance's load figures that routers read (its view's
    # queued prefill and outstanding tokens, and its drain time) count the long requests'
    # pending prefill as a short request arriving now waits for it: one chunk (the cap) at
    # most, the one that may be in flight, not the whole prompts. A size-blind router
    # (least-tokens) otherwise sees a 40k-token prompt as 40 short requests' load ahead and
    # sends the short traffic elsewhere while it prefills, the other instances then carrying
    # it all; long requests are then placed by the short load too (those already on an
    # instance are ahead of them in their class).
    view_as_short: bool = False

    def __post_init__(self) -> None:
        if self.long_threshold < 1:
            raise ValueError("long_threshold must be at least 1 token")
        for name in ("short_kv_reserve", "short_seq_reserve"):
            if not 0.0 <= getattr(self, name) < 1.0:
                raise ValueError(f"{name} must be in [0, 1)")
        if not 0.0 < self.max_request_kv_share <= 1.0:
            raise ValueError("max_request_kv_share must be in (0, 1]")
        if not 0.0 < self.long_prefill_share <= 1.0:
            raise ValueError("long_prefill_share must be in (0, 1]")
        if self.view_as_short and not (self.long_prefill_yields and self.long_prefill_share < 1):
            raise ValueError("view_as_short needs long_prefill_yields and a long_prefill_share "
                             "below 1: only then do long prefills wait for short work")

    def long_prefill_tokens(self, max_num_batched_tokens: int) -> int:
        """Prefill tokens long requests may run in one iteration (at least one)."""
        return max(1, int(max_num_batched_tokens * self.long_prefill_share))

    def size_class(self, req: Request) -> str:
        return LONG if req.prompt_tokens >= self.long_threshold else SHORT

    def max_request_blocks(self, total_blocks: int) -> int:
        """The most KV blocks one request may hold on an instance of ``total_blocks``."""
        return max(1, int(total_blocks * self.max_request_kv_share))

    def long_block_budget(self, total_blocks: int) -> int:
        return total_blocks - int(total_blocks * self.short_kv_reserve)

    def long_seq_budget(self, max_seqs: int) -> int:
        # At least one long sequence may always run, so a reserve never starves the class.
        return max(1, max_seqs - int(max_seqs * self.short_seq_reserve))

    def can_schedule(self, req: Request, running_long_blocks: int, total_blocks: int,
                     running_long_seqs: int, max_seqs: int, request_blocks: int = 0) -> bool:
        """May ``req`` start now, given what long requests already hold on the instance?

        ``request_blocks`` is the KV blocks ``req`` needs to start (0: do not check the
        per-request cap). Short requests are checked only against that cap; long ones must
        also stay within the blocks and slots not reserved for short requests.
        """
        if request_blocks > self.max_request_blocks(total_blocks):
            return False
        if self.size_class(req) == SHORT:
            return True
        if running_long_seqs + 1 > self.long_seq_budget(max_seqs):
            return False
        return running_long_blocks + request_blocks <= self.long_block_budget(total_blocks)


class SizeClassRouter(Router):
    """Send long requests to ``long-context`` instances, short ones preferably elsewhere.

    Instances outside the chosen set are shown to the inner router as unhealthy, so every
    router works unchanged and indices keep meaning positions in the full list. When the
    preferred set has no healthy instance, the request goes anywhere healthy (a long request
    with no long-context instance up still beats a rejection; admission decides refusals).
    """

    name = "size-class"

    def __init__(self, inner: Router, policy: IsolationPolicy | None = None,
                 label: str = LONG_CONTEXT_LABEL) -> None:
        super().__init__()
        self.inner = inner
        self.policy = policy or IsolationPolicy()
        self.label = label

    def candidates(self, request: Request, views: Sequence[InstanceView]) -> list[bool]:
        """Which views the request may go to (before health)."""
        labelled = [self.label in v.labels for v in views]
        want_long = self.policy.size_class(request) == LONG
        keep = [lab == want_long for lab in labelled]
        if not any(k and v.healthy for k, v in zip(keep, views, strict=True)):
            return [True] * len(views)
        return keep

    def pick(self, request: Request, views: Sequence[InstanceView]) -> int:
        keep = self.candidates(request, views)
        if all(keep):
            return self.inner.pick(request, views)
        masked = [v if k or not v.healthy else dataclasses.replace(v, healthy=False)
                  for v, k in zip(views, keep, strict=True)]
        return self.inner.pick(request, masked)

    def on_routed(self, request: Request, index: int) -> None:
        self.inner.on_routed(request, index)

    def on_finished(self, request: Request, index: int) -> None:
        self.inner.on_finished(request, index)
