"""The gateway's ``/metrics``: one registry per app, so several gateways can share a process.

Per backend and per tenant: requests by outcome, prompt and completion tokens (completion tokens
counted as they stream), TTFT and TPOT; per backend: queue length, requests and tokens in
flight, KV usage, prefix-cache hits and lookups, preemptions, swapped-out requests, the share of
busy time bound by compute and health (read from the live state at scrape time); rejections by
reason; routing decisions by policy. Every response the gateway sends, whatever its route, is
counted by status, class and reason (``tokenpilot_responses``), and its end-to-end time is
observed (``tokenpilot_request_duration_seconds``). No ``_created`` series: they double every
counter and histogram for a value no dashboard reads.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from prometheus_client import (
    CollectorRegistry,
    Counter,
    disable_created_metrics,
    generate_latest,
)
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily
from prometheus_client.utils import floatToGoString

from tokenpilot.gateway.backends import Backend

disable_created_metrics()  # process-wide: the simulated backend's registries too

TTFT_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
                30.0, 60.0)
TPOT_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0)
DURATION_BUCKETS = (*TTFT_BUCKETS, 120.0, 300.0, 600.0)


class LoopCount:
    """One counter series, counted by the serving loop's thread alone (as every series the
    request path counts is): a float and an add. prometheus_client's ``Counter.inc`` takes a
    lock, checks the amount and whether it is observable on every call, eleven times a
    request with the histograms' buckets and sums."""

    __slots__ = ("value",)

    def __init__(self) -> None:
        self.value = 0.0

    def inc(self, amount: float = 1.0) -> None:
        self.value += amount


class LoopHistogram:
    """One histogram series, observed by the serving loop's thread alone: a bucket found by
    bisection (``le`` as prometheus_client's: the first bound at or above the value)."""

    __slots__ = ("bounds", "counts", "sum")

    def __init__(self, bounds: tuple[float, ...]) -> None:
        self.bounds = bounds
        self.counts = [0] * (len(bounds) + 1)  # the last: above every bound (+Inf)
        self.sum = 0.0

    def observe(self, amount: float) -> None:
        self.counts[bisect_left(self.bounds, amount)] += 1
        self.sum += amount


class LoopFamily:
    """A labelled counter or histogram of ``LoopCount`` / ``LoopHistogram`` series, exported
    as prometheus_client's own would be (same names, samples and order: a collector of the
    registry). ``labels(*values)`` is the series of those label values, made on first use."""

    def __init__(self, name: str, doc: str, labelnames: Sequence[str],
                 registry: CollectorRegistry, buckets: tuple[float, ...] | None = None) -> None:
        self.name, self.doc, self.labelnames = name, doc, list(labelnames)
        self.buckets = buckets
        self.series: dict[tuple[str, ...], LoopCount | LoopHistogram] = {}
        registry.register(self)

    def labels(self, *values: str) -> LoopCount | LoopHistogram:
        key = tuple(str(v) for v in values)
        s = self.series.get(key)
        if s is None:
            if len(key) != len(self.labelnames):
                raise ValueError(f"{self.name}: {len(self.labelnames)} label values expected, "
                                 f"got {len(key)}")
            s = self.series[key] = (LoopCount() if self.buckets is None
                                    else LoopHistogram(self.buckets))
        return s

    def collect(self) -> Iterator[CounterMetricFamily | HistogramMetricFamily]:
        if self.buckets is None:
            fam = CounterMetricFamily(self.name, self.doc, labels=self.labelnames)
            for key, c in list(self.series.items()):
                fam.add_metric(key, c.value)  # type: ignore[union-attr]
            yield fam
            return
        hist = HistogramMetricFamily(self.name, self.doc, labels=self.labelnames)
        les = [floatToGoString(b) for b in self.buckets] + ["+Inf"]
        for key, h in list(self.series.items()):
            acc, cum = 0, []
            for le, n in zip(les, h.counts, strict=True):  # type: ignore[union-attr]
                acc += n
                cum.append((le, float(acc)))
            hist.add_metric(key, cum, h.sum)  # type: ignore[union-attr]
        yield hist


@dataclass
class _PerPair:
    """The metric children of one (backend, tenant): ``labels()`` costs a lock and a label
    check per call, so each request looks them up once, in a dict."""

    ttft: LoopHistogram
    tpot: LoopHistogram
    prompt_tokens: LoopCount
    completion_tokens: LoopCount
    outcomes: dict[str, LoopCount]
    _requests: LoopFamily
    _key: tuple[str, str]

    def outcome(self, outcome: str) -> LoopCount:
        c = self.outcomes.get(outcome)
        if c is None:
            c = self.outcomes[outcome] = self._requests.labels(*self._key, outcome)
        return c


class GatewayMetrics:
    def __init__(self, backends: Sequence[Backend], token_source: str,
                 queue_len: Callable[[], int] = lambda: 0,
                 budgets: Mapping[str, float] | None = None) -> None:
        self.registry = r = CollectorRegistry()
        bt = ["backend", "tenant"]
        # The series every request counts: LoopFamily (no lock per call); the rare ones
        # (rejections, retries) stay prometheus_client's.
        self.requests = LoopFamily("tokenpilot_requests", "Requests by outcome",
                                   ["backend", "tenant", "outcome"], r)
        self.prompt_tokens = LoopFamily("tokenpilot_prompt_tokens", "Prompt tokens served", bt, r)
        self.completion_tokens = LoopFamily("tokenpilot_completion_tokens",
                                            "Completion tokens served", bt, r)
        self.ttft = LoopFamily("tokenpilot_ttft_seconds", "Time to first token through the "
                               "gateway", bt, r, TTFT_BUCKETS)
        self.tpot = LoopFamily("tokenpilot_tpot_seconds", "Time per output token after the "
                               "first", bt, r, TPOT_BUCKETS)
        self.rejections = Counter("tokenpilot_rejections", "Requests refused before routing",
                                  ["tenant", "reason"], registry=r)
        self.routed = LoopFamily("tokenpilot_routing_decisions", "Routing decisions",
                                 ["policy", "backend"], r)
        self.retries = Counter("tokenpilot_retries", "Requests retried on another backend after "
                               "this one failed before the first byte", ["backend"], registry=r)
        self.responses = LoopFamily("tokenpilot_responses", "Responses sent, every route, by "
                                    "status, status class and reason (the error code, a limit, "
                                    "or a relayed request's outcome)",
                                    ["route", "status", "class", "reason"], r)
        self.duration = LoopFamily("tokenpilot_request_duration_seconds",
                                   "End-to-end time of a request through the gateway, from its "
                                   "arrival to its response's last byte",
                                   ["route", "class"], r, DURATION_BUCKETS)
        r.register(_LiveCollector(backends, token_source, queue_len, budgets or {}))
        self._pairs: dict[tuple[str, str], _PerPair] = {}
        self._routed: dict[tuple[str, str], LoopCount] = {}
        self._responses: dict[tuple[str, int, str], tuple[LoopCount, LoopHistogram]] = {}

    def of(self, backend: str, tenant: str) -> _PerPair:
        """The children for one (backend, tenant), created on first use."""
        key = (backend, tenant)
        p = self._pairs.get(key)
        if p is None:
            p = self._pairs[key] = _PerPair(
                self.ttft.labels(*key), self.tpot.labels(*key), self.prompt_tokens.labels(*key),
                self.completion_tokens.labels(*key), {}, self.requests, key)
        return p

    def routed_to(self, policy: str, backend: str) -> LoopCount:
        key = (policy, backend)
        c = self._routed.get(key)
        if c is None:
            c = self._routed[key] = self.routed.labels(*key)
        return c

    def responded(self, route: str, status: int, reason: str, seconds: float) -> None:
        """Count one response sent and observe its end-to-end time."""
        key = (route, status, reason)
        pair = self._responses.get(key)
        if pair is None:
            cls = f"{status // 100}xx"
            pair = self._responses[key] = (self.responses.labels(route, str(status), cls, reason),
                                           self.duration.labels(route, cls))
        pair[0].inc()
        pair[1].observe(seconds)

    def render(self) -> bytes:
        return generate_latest(self.registry)


class _LiveCollector:
    def __init__(self, backends: Sequence[Backend], token_source: str,
                 queue_len: Callable[[], int], budgets: Mapping[str, float]) -> None:
        self.backends = backends
        self.token_source = token_source
        self.queue_len = queue_len
        self.budgets = budgets

    def collect(self):  # noqa: ANN201 - the prometheus_client collector protocol
        fams = {
            "queue": GaugeMetricFamily("tokenpilot_backend_queue_length",
                                       "Requests waiting at the backend", labels=["backend"]),
            "inflight": GaugeMetricFamily("tokenpilot_backend_inflight_requests",
                                          "Requests in flight to the backend", labels=["backend"]),
            "tokens": GaugeMetricFamily("tokenpilot_backend_inflight_tokens",
                                        "Prompt tokens not yet answered plus output tokens still "
                                        "to come", labels=["backend"]),
            "kv": GaugeMetricFamily("tokenpilot_backend_kv_usage",
                                    "Backend KV-cache usage (1 = full)", labels=["backend"]),
            "healthy": GaugeMetricFamily("tokenpilot_backend_healthy",
                                         "1 if the backend takes requests", labels=["backend"]),
            "ejected": GaugeMetricFamily("tokenpilot_backend_ejected",
                                         "1 if the backend was taken out of routing after "
                                         "consecutive request failures", labels=["backend"]),
            "swapped": GaugeMetricFamily("tokenpilot_backend_swapped_requests",
                                         "Requests the backend swapped out to host memory "
                                         "(vLLM's num_requests_swapped)", labels=["backend"]),
            "compute": GaugeMetricFamily("tokenpilot_backend_compute_bound_share",
                                         "Share of the backend's busy time bound by compute "
                                         "rather than memory bandwidth: as reported, else the "
                                         "cost model's estimate for its running batch",
                                         labels=["backend", "source"]),
            # The backends' own counters as last scraped, so one query over the gateway gives
            # the fleet's prefix-cache hit rate (``rate(hits) / rate(queries)``).
            "hits": CounterMetricFamily("tokenpilot_backend_prefix_cache_hits",
                                        "Prompt tokens the backend found in its prefix cache",
                                        labels=["backend"]),
            "queries": CounterMetricFamily("tokenpilot_backend_prefix_cache_queries",
                                           "Prompt tokens the backend looked up in its prefix "
                                           "cache", labels=["backend"]),
            "preempt": CounterMetricFamily("tokenpilot_backend_preemptions",
                                           "Preemptions the backend reported", labels=["backend"]),
        }
        for i, b in enumerate(self.backends):
            v = b.view(i)
            m = b.metrics
            fams["queue"].add_metric([b.name], v.num_waiting)
            fams["inflight"].add_metric([b.name], b.inflight)
            fams["tokens"].add_metric([b.name], v.outstanding_tokens)
            kv = m.kv_usage if m and m.kv_usage is not None else 0.0
            fams["kv"].add_metric([b.name], kv)
            fams["healthy"].add_metric([b.name], 1.0 if b.healthy and not b.ejected else 0.0)
            fams["ejected"].add_metric([b.name], 1.0 if b.ejected else 0.0)
            if m is None:
                continue
            if m.swapped is not None:
                fams["swapped"].add_metric([b.name], m.swapped)
            share, source = b.compute_bound_share()
            if share is not None:
                fams["compute"].add_metric([b.name, source], share)
            if m.prefix_queries is not None and m.prefix_hits is not None:
                fams["hits"].add_metric([b.name], m.prefix_hits)
                fams["queries"].add_metric([b.name], m.prefix_queries)
            if m.preemptions is not None:
                fams["preempt"].add_metric([b.name], m.preemptions)
        yield from fams.values()
        budget = GaugeMetricFamily("tokenpilot_tenant_tokens_per_minute_limit",
                                   "The tenant's admission budget (tokens_per_minute)",
                                   labels=["tenant"])
        for tenant, limit in self.budgets.items():
            budget.add_metric([tenant], limit)
        yield budget
        info = GaugeMetricFamily("tokenpilot_prompt_token_counting",
                                 "How prompt tokens are counted for admission and routing",
                                 labels=["source"])
        info.add_metric([self.token_source], 1)
        yield info
        q = GaugeMetricFamily("tokenpilot_gateway_queue_length",
                              "Requests waiting in the gateway for a backend slot")
        q.add_metric([], self.queue_len())
        yield q
