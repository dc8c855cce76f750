"""Admission control: admit a request, or reject it early with a reason and a Retry-After.

Checks run in this order; the first that fails decides the reason code:

1. ``context_too_long``: prompt plus ``max_tokens`` (``Request.total_tokens``) exceeds the
   instance context (``max_context``, or else the largest ``max_model_len`` the healthy views
   report). Such a request would fail on any engine; better to say so before it queues.
2. ``tenant_context_limit``: it exceeds the tenant's own ``max_context``.
3. ``rate_limited``: the tenant's token bucket (``tokens_per_minute``) lacks the estimate.
4. ``inflight_limit``: the tenant's tokens in flight would pass ``max_inflight_tokens``.
5. ``overloaded`` (only with ``shed``): the predicted time to first token on the best instance
   exceeds the request's TTFT SLO times ``shed_margin``. Queueing it would buy a certain SLO miss
   and delay everyone behind it; rejecting early (as Mooncake's early rejection does) lets the
   client retry elsewhere or later. The prediction (``predicted_ttft_s``) counts the prefill
   backlog, the wait for KV room (``kv_wait_s``; swapped-out KV included): once the KV pool is
   committed, requests wait for blocks, not compute; and the wait for a batch slot when all
   ``max_num_seqs`` are taken. Retry-After is the predicted TTFT minus that bar.

The bucket is charged at admission with an estimate (prompt tokens plus ``expected_output_tokens``,
or the request's ``max_tokens`` when that is unset) and settled with the true count when the
request ends (``settle``): a refund or an extra charge. Charging up front is what bounds the
overshoot under concurrency to one request (see ``tokenpilot.policy.buckets``).

The YAML vocabulary (read by ``config_section.from_mapping(AdmissionConfig, ...)``)::

    max_context: 32768            # per instance; omit to use the views' max_model_len
    expected_output_tokens: 256   # charge estimate for the output; omit to charge max_tokens
    shed: true                    # overload shedding on/off (default off)
    ttft_slo_s: 2.0               # the TTFT SLO shedding protects (default 1.0)
    ttft_slo_by_class: {interactive: 0.5, batch: 30}   # per Request.slo_class, optional
    shed_margin: 1.5              # shed when predicted TTFT > SLO x margin (default 1.0)
    default_tenant: {tokens_per_minute: 100000, max_inflight_tokens: 50000}
    tenants:
      acme: {tokens_per_minute: 1000000, max_context: 8192, weight: 2}

Tenant keys: ``tokens_per_minute``, ``max_inflight_tokens``, ``max_context``, ``weight`` (the
share a fair queue discipline gives the tenant). Tenants not listed get ``default_tenant``'s
limits, each with a bucket of its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from tokenpilot.config_section import PositiveFloat, PositiveInt
from tokenpilot.policy.buckets import (
    INFLIGHT_LIMIT,
    RATE_LIMITED,
    BucketLimits,
    BucketStore,
    MemoryBucketStore,
    Take,
)
from tokenpilot.policy.router import cached_tokens
from tokenpilot.policy.view import InstanceView, slot_wait_s
from tokenpilot.workload.request import Request

ADMITTED = "admitted"
CONTEXT_TOO_LONG = "context_too_long"
TENANT_CONTEXT_LIMIT = "tenant_context_limit"
OVERLOADED = "overloaded"
REASONS = (CONTEXT_TOO_LONG, TENANT_CONTEXT_LIMIT, RATE_LIMITED, INFLIGHT_LIMIT, OVERLOADED)

# Retry-After when nothing better is known (an in-flight limit on a fleet reporting no speeds).
_DEFAULT_RETRY_S = 1.0


@dataclass(frozen=True)
class Decision:
    admitted: bool
    reason: str  # "admitted" or one of REASONS
    message: str = ""
    retry_after_s: float = 0.0
    charged_tokens: int = 0


@dataclass
class TenantLimits:
    tokens_per_minute: PositiveFloat | None = None
    max_inflight_tokens: PositiveInt | None = None
    max_context: PositiveInt | None = None
    weight: PositiveFloat = 1.0

    def bucket_limits(self) -> BucketLimits:
        return BucketLimits(self.tokens_per_minute, self.max_inflight_tokens)


@dataclass
class AdmissionConfig:
    max_context: PositiveInt | None = None
    tenants: dict[str, TenantLimits] = field(default_factory=dict)
    default_tenant: TenantLimits = field(default_factory=TenantLimits)
    expected_output_tokens: PositiveInt | None = None  # None: charge the request's max_tokens
    shed: bool = False
    ttft_slo_s: PositiveFloat = 1.0
    shed_margin: PositiveFloat = 1.0
    ttft_slo_by_class: dict[str, PositiveFloat] = field(default_factory=dict)

    def limits_for(self, tenant: str) -> TenantLimits:
        return self.tenants.get(tenant, self.default_tenant)

    def weights(self) -> dict[str, float]:
        """Tenant weights for a fair queue discipline (``VTC(weights=...)``)."""
        return {name: t.weight for name, t in self.tenants.items()}

    def slo_for(self, request: Request) -> float:
        return self.ttft_slo_by_class.get(request.slo_class, self.ttft_slo_s)


def predicted_ttft_s(request: Request, view: InstanceView,
                     output_tokens: int | None = None) -> float | None:
    """Seconds until ``request`` would see its first token on ``view``; None if unknowable.

    The later of two bounds, each read from the view alone:

    - compute: the prefill backlog ahead of it plus its own uncached prompt, at the instance's
      prefill speed (decode shares iterations with chunked prefill, so it does not delay the
      first token the way queued prompts do);
    - KV: the wait until the KV pool can hold the request for its whole life (``kv_wait_s``),
      then its own prefill. A request that only fits by evicting others is not served: the
      engine would preempt (swap or recompute) a running one, whose TPOT is then lost;
    - slots: when ``num_running`` (plus the queue ahead) has taken all ``max_num_seqs`` batch
      slots, the wait for one to free (``view.slot_wait_s``, a share of the drain time), then
      its own prefill.

    ``output_tokens`` is the output the KV room is sized for (default ``max_tokens``).
    Without a prefill speed, the drain estimate stands in.
    """
    if view.prefill_tokens_per_s <= 0:
        return view.predicted_drain_s if view.predicted_drain_s > 0 else None
    own = request.prompt_tokens - cached_tokens(request, view)
    compute = (view.queued_prefill_tokens + own) / view.prefill_tokens_per_s
    wait = max(kv_wait_s(request, view, output_tokens), slot_wait_s(view))
    if wait <= 0:
        return compute
    return max(compute, wait + own / view.prefill_tokens_per_s)


def kv_wait_s(request: Request, view: InstanceView, output_tokens: int | None = None) -> float:
    """Seconds until ``view``'s KV pool has room for ``request`` and everything ahead of it.

    Every request on the instance will hold, before it ends, the KV it holds now plus the
    tokens it has still to prefill or generate (``outstanding_tokens``); the new request adds
    its uncached prompt plus ``output_tokens`` (default ``max_tokens``). What passes the pool's
    size has to wait until requests finish and release theirs. By ``predicted_drain_s`` all of
    it has been released; finishes are spread over that time, so the wait is the drain time
    scaled by the share of the held and coming KV that must be released first. 0 when it all
    fits (or the view reports no KV pool).

    The sum is exact between events: a decode run moves tokens from outstanding to held.
    The KV of swapped-out requests (``swapped_kv_tokens``: in host memory, not in
    ``kv_blocks_used``) counts as committed: it must come back into the pool before they end.
    """
    if view.kv_blocks_total <= 0:
        return 0.0
    bs = view.block_size
    capacity = view.kv_blocks_total * bs
    committed = view.kv_blocks_used * bs + view.outstanding_tokens + view.swapped_kv_tokens
    out = request.output_tokens if output_tokens is None else output_tokens
    own = request.prompt_tokens - cached_tokens(request, view) + out
    excess = committed + own - capacity
    if excess <= 0 or committed <= 0:
        return 0.0
    if view.predicted_drain_s > 0:
        return view.predicted_drain_s * min(1.0, excess / committed)
    # No drain estimate: release at the decode speed (a lower bound of the wait).
    return excess / view.decode_tokens_per_s if view.decode_tokens_per_s > 0 else 0.0


class Admission:
    """Admission control for one gateway (or one simulated fleet); see the module docstring."""

    def __init__(self, config: AdmissionConfig, store: BucketStore | None = None) -> None:
        self.config = config
        self.store: BucketStore = store if store is not None else MemoryBucketStore()
        # request id -> (tenant, tokens charged, the store that charged them)
        self._charged: dict[int, tuple[str, int, BucketStore]] = {}

    def estimate(self, request: Request) -> int:
        """Tokens charged at admission: the prompt plus the expected output."""
        out = request.output_tokens
        exp = self.config.expected_output_tokens
        if exp is not None:
            out = min(out, exp) if out > 0 else exp
        return request.prompt_tokens + out

    def admit(self, request: Request, views: Sequence[InstanceView], now: float) -> Decision:
        early = self.precheck(request, views)
        if early is not None:
            return early
        cost = self.estimate(request)
        limits = self.config.limits_for(request.tenant).bucket_limits()
        return self.conclude(request, views, self.store.take(request.tenant, cost, limits, now),
                             cost, now)

    def precheck(self, request: Request, views: Sequence[InstanceView]) -> Decision | None:
        """The checks before the bucket (context limits): their refusal, else None. A caller
        whose store answers ``take`` asynchronously (a shared store) runs ``precheck``, awaits
        the take of ``estimate(request)`` tokens itself, then ``conclude``: ``admit`` is those
        three steps."""
        cfg = self.config
        total = request.total_tokens
        limit = cfg.max_context
        if limit is None:
            lens = [v.max_model_len for v in views if v.healthy]
            if lens and all(n > 0 for n in lens):
                limit = max(lens)
        if limit is not None and total > limit:
            return Decision(False, CONTEXT_TOO_LONG,
                            f"prompt ({request.prompt_tokens}) + max_tokens "
                            f"({request.output_tokens}) = {total} tokens exceeds the maximum "
                            f"context of {limit}; shorten the prompt or lower max_tokens")
        tl = cfg.limits_for(request.tenant)
        if tl.max_context is not None and total > tl.max_context:
            return Decision(False, TENANT_CONTEXT_LIMIT,
                            f"{total} tokens exceeds tenant {request.tenant!r}'s context limit "
                            f"of {tl.max_context}")
        return None

    def conclude(self, request: Request, views: Sequence[InstanceView], take: Take, cost: int,
                 now: float, store: BucketStore | None = None) -> Decision:
        """The decision once ``store`` (default: this admission's) answered the take of ``cost``
        tokens with ``take``; an admitted request is settled later with that same store."""
        cfg = self.config
        tl = cfg.limits_for(request.tenant)
        limits = tl.bucket_limits()
        store = self.store if store is None else store
        if not take.ok:
            if take.reason == RATE_LIMITED:
                retry = take.missing / limits.rate_per_s
                msg = (f"tenant {request.tenant!r} is over {tl.tokens_per_minute:g} tokens per "
                       f"minute; {take.missing:.0f} more tokens free up in {retry:.2f} s")
            else:
                retry = _inflight_retry_s(take.missing, views)
                msg = (f"tenant {request.tenant!r} has {take.inflight} tokens in flight; "
                       f"the limit is {tl.max_inflight_tokens}")
            return Decision(False, take.reason, msg, retry)
        if cfg.shed:
            best = _best_ttft_s(request, views, cost - request.prompt_tokens)
            bar = cfg.slo_for(request) * cfg.shed_margin
            if best is not None and best > bar:
                # Give back what the take charged: a shed request consumes nothing.
                store.settle(request.tenant, cost, 0, limits, now)
                return Decision(False, OVERLOADED,
                                f"predicted time to first token {best:.2f} s exceeds "
                                f"{bar:.2f} s on every instance; retry later",
                                best - bar)
        self._charged[request.id] = (request.tenant, cost, store)
        return Decision(True, ADMITTED, charged_tokens=cost)

    def settle(self, request: Request, actual_tokens: int, now: float) -> None:
        """Square the tenant's bucket once ``request`` ended (or failed) with ``actual_tokens``
        really served (prompt plus generated). Settling twice, or a request never admitted,
        does nothing.
        """
        entry = self._charged.pop(request.id, None)
        if entry is None:
            return
        tenant, charged, store = entry
        limits = self.config.limits_for(tenant).bucket_limits()
        store.settle(tenant, charged, max(0, int(actual_tokens)), limits, now)

    @property
    def in_flight(self) -> int:
        """Requests admitted and not yet settled."""
        return len(self._charged)


def _best_ttft_s(request: Request, views: Sequence[InstanceView],
                 output_tokens: int) -> float | None:
    best: float | None = None
    for v in views:
        if not v.healthy:
            continue
        t = predicted_ttft_s(request, v, output_tokens)
        if t is None:
            return None  # an instance we cannot judge may well be idle: do not shed
        if best is None or t < best:
            best = t
    return best


def _inflight_retry_s(missing: float, views: Sequence[InstanceView]) -> float:
    # In-flight tokens leave as the fleet serves them; its decode speed is the best guess.
    speed = sum(v.decode_tokens_per_s for v in views if v.healthy)
    return missing / speed if speed > 0 else _DEFAULT_RETRY_S
