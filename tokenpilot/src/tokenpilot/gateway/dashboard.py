"""``/dashboard``: the operator's live view, drawn from the very metrics ``/metrics`` exports.

``LiveView`` reads the gateway's Prometheus registry once per ``dashboard.sample_ms`` (the same
``collect()`` a scrape runs) and turns the difference from the previous reading into one point
per backend and for the fleet: prompt and generation tokens per second, TTFT and TPOT p50/p99
(interpolated in the histograms' buckets, as ``histogram_quantile`` does), requests per second
by outcome, queue depth, KV usage, prefix-cache hit rate, preemptions, swapped-out requests (a
*swap marker* where a backend goes from none to some), the compute-bound share, health; the
fleet's fake-balance index (token-load imbalance beside request-count imbalance, max/mean over
the backends, as ``cluster.metrics`` defines it); tenants' token use against their budgets;
responses by reason. ``dashboard.history_s`` of points are kept (percentiles and hit rates
over the last ``WINDOW_S`` of them, rates per point), and kept as series of encoded values
(``Columns``). ``/dashboard/data`` answers with a ``Snapshot`` made once per sample while a
page polls (whoever and however many watch, on whichever listener), so the answer itself is a
cached byte string; with no page open for ``OPEN_SAMPLES`` samples none is made until the next
poll asks. A snapshot holds the whole ring and the newest point alone: a page that sends
``?since=<seq>`` (the ``seq`` of its last answer) gets only what it lacks (``since`` >= the
newest point's), else the whole ring; and either gzipped when it accepts that, compressed once
per snapshot. A snapshot is never changed once made, so the admin listener's thread
(``gateway.admin``) serves the latest one as it is.

The page is one HTML document with an inline script and inline SVG: no build step, nothing
fetched from elsewhere.
"""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import itertools
import json
import math
import re
import secrets
import threading
import time
from collections import deque
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from starlette.datastructures import QueryParams

if TYPE_CHECKING:
    from tokenpilot.gateway.app import Gateway

PAGE = Path(__file__).with_name("dashboard.html")
Buckets = dict[str, dict[float, float]]  # backend -> upper bound -> cumulative count


def quantile(q: float, buckets: dict[float, float]) -> float | None:
    """``histogram_quantile(q, ...)`` over one histogram's (upper bound -> cumulative count),
    linear within the bucket; None without observations."""
    bounds = sorted(buckets)
    if not bounds:
        return None
    total = buckets[bounds[-1]]
    if total <= 0:
        return None
    rank, lo, below = q * total, 0.0, 0.0
    for b in bounds:
        c = buckets[b]
        if c >= rank:
            if math.isinf(b):
                return lo  # beyond the last finite bound: its value, as Prometheus answers
            return lo + (b - lo) * ((rank - below) / (c - below) if c > below else 0.0)
        lo, below = b, c
    return lo


def imbalance(values: Iterable[float]) -> float | None:
    """max / mean (1 = even); None when nothing was there to spread."""
    v = list(values)
    mean = sum(v) / len(v) if v else 0.0
    return max(v) / mean if mean > 0 else None


class _Reading:
    """One ``collect()`` of the registry, summed into what the dashboard shows."""

    def __init__(self, gw: Gateway, t: float) -> None:
        self.t = t
        self.c: dict[tuple[str, str], float] = {}  # (metric, backend or tenant or reason) -> v
        self.g: dict[tuple[str, str], float] = {}  # gauges, the same way
        self.h: dict[str, Buckets] = {"ttft": {}, "tpot": {}}
        self.outcomes: dict[tuple[str, str], float] = {}  # (backend, outcome) -> requests
        self.reasons: dict[tuple[str, str], float] = {}  # (class, reason) -> responses
        hist = {"tokenpilot_ttft_seconds_bucket": "ttft", "tokenpilot_tpot_seconds_bucket": "tpot"}
        counters = {"tokenpilot_prompt_tokens_total": "prompt",
                    "tokenpilot_completion_tokens_total": "gen",
                    "tokenpilot_routing_decisions_total": "routed",
                    "tokenpilot_backend_prefix_cache_hits_total": "hits",
                    "tokenpilot_backend_prefix_cache_queries_total": "queries",
                    "tokenpilot_backend_preemptions_total": "preempt"}
        gauges = {"tokenpilot_backend_queue_length": "queue",
                  "tokenpilot_backend_inflight_requests": "inflight",
                  "tokenpilot_backend_kv_usage": "kv", "tokenpilot_backend_healthy": "healthy",
                  "tokenpilot_backend_swapped_requests": "swapped",
                  "tokenpilot_backend_compute_bound_share": "compute"}
        c, g = self.c, self.g
        for fam in gw.metrics.registry.collect():
            for s in fam.samples:
                name, lab, v = s.name, s.labels, s.value
                if name in counters:
                    key = counters[name]
                    if "backend" in lab:
                        k = (key, lab["backend"])
                        c[k] = c.get(k, 0.0) + v
                    if "tenant" in lab:  # tokens by tenant, for the budgets
                        k = (key + "@tenant", lab["tenant"])
                        c[k] = c.get(k, 0.0) + v
                elif name in gauges:
                    g[(gauges[name], lab["backend"])] = v
                elif name in hist:
                    per = self.h[hist[name]].setdefault(lab["backend"], {})
                    le = float(lab["le"])
                    per[le] = per.get(le, 0.0) + v
                elif name == "tokenpilot_requests_total":
                    k = (lab["backend"], lab["outcome"])
                    self.outcomes[k] = self.outcomes.get(k, 0.0) + v
                elif name == "tokenpilot_responses_total":
                    k = (lab["class"], lab["reason"])
                    self.reasons[k] = self.reasons.get(k, 0.0) + v
                elif name == "tokenpilot_rejections_total":
                    k = ("rejected", lab["reason"])
                    c[k] = c.get(k, 0.0) + v


def _rate(new: float, old: float, dt: float) -> float:
    d = new - old
    return d / dt if d > 0 and dt > 0 else 0.0  # a reset (backend restart) reads as 0


def _diff(new: dict[float, float], old: dict[float, float] | None) -> dict[float, float]:
    if not old:
        return dict(new)
    return {b: max(v - old.get(b, 0.0), 0.0) for b, v in new.items()}


def _r(x: float | None, nd: int = 4) -> float | None:
    return None if x is None else round(x, nd)


WINDOW_S = 5.0  # percentiles and hit rates over the last this many seconds of points
BACKEND_SERIES = ("prompt", "gen", "ttft_p50", "ttft_p99", "tpot_p50", "tpot_p99", "queue", "kv",
                  "hit_rate", "preempt", "swapped", "compute", "healthy")
FLEET_SERIES = ("prompt", "gen", "ttft_p50", "ttft_p99", "tpot_p50", "tpot_p99", "queue", "kv",
                "hit_rate", "preempt", "swapped", "healthy", "imb_requests", "imb_tokens",
                "fake_balance")
# A page that polled within this many samples is open: the JSON is made at each sample for it;
# else not until the next poll asks (a gateway nobody watches only reads its registry).
OPEN_SAMPLES = 3


class Raw:
    """JSON text that goes into the document as it is (``LiveView._encode``)."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


# json.dumps's text of the string "\0raw<n>\0", where the n-th Raw goes.
_PLACE = re.compile(r'"\\u0000raw(\d+)\\u0000"')


def dumps_with_raw(doc: Any) -> str:
    """``json.dumps(doc)`` compactly, each ``Raw`` in it written as its text."""
    raws: list[str] = []

    def place(o: Any) -> str:
        if not isinstance(o, Raw):
            raise TypeError(f"{type(o).__name__} is not JSON serializable")
        raws.append(o.text)
        return f"\0raw{len(raws) - 1}\0"

    skeleton = json.dumps(doc, separators=(",", ":"), default=place)
    if skeleton.count("\\u0000raw") != len(raws):  # a string of the doc looks like a place
        return json.dumps(doc, separators=(",", ":"), default=lambda o: json.loads(o.text))
    return _PLACE.sub(lambda m: raws[int(m.group(1))], skeleton)


class Columns:
    """The ring of points as series: one bounded deque per series of its values' JSON text,
    each value rounded and encoded once, when its point comes in. The JSON the page polls
    holds the whole ring (``history_s``, 300 points by default); rebuilt from the points value
    by value at every sample (13k ``round`` calls and floats to encode for two backends) it
    took 8 ms of the gateway's loop a second on a loaded 2-core machine; joined from these
    texts it is a few joins per series.

    A series is named by a tuple; one a point lacks gets ``fill`` there (None for a backend's
    figure, 0 for a count by reason), from before it first appeared too; one whose last value
    has left the ring is dropped, as the points it came from are.
    """

    def __init__(self, maxlen: int) -> None:
        self.maxlen = maxlen
        self.n = 0  # points added
        self._cols: dict[tuple[str, ...], tuple[deque[str], str]] = {}
        self._seen: dict[tuple[str, ...], int] = {}  # series -> the last point it had a value

    def add(self, values: dict[tuple[str, ...], float | None], fill: float | None) -> None:
        """One point's values for some series (the others get their fill: ``close``)."""
        n, cols = self.n, self._cols
        for key, v in values.items():
            col = cols.get(key)
            if col is None:
                text = json.dumps(fill)
                col = cols[key] = (deque([text] * min(n, self.maxlen), self.maxlen), text)
            col[0].append(json.dumps(_r(v)))
            self._seen[key] = n

    def close(self) -> None:
        """The point is complete: the series it did not name get their fill; stale ones go."""
        n = self.n
        for key in list(self._cols):
            col, fill = self._cols[key]
            if self._seen[key] != n:
                if n - self._seen[key] >= self.maxlen:
                    del self._cols[key], self._seen[key]
                    continue
                col.append(fill)
        self.n = n + 1

    def get(self, key: tuple[str, ...], fill: float | None = None, last: int | None = None
            ) -> Raw:
        """The series ``key`` as a JSON array (of ``fill`` where there is none); ``last``: its
        last this many values only."""
        col = self._cols.get(key)
        size = min(self.n, self.maxlen)
        texts = col[0] if col is not None else [json.dumps(fill)] * size
        return Raw("[" + ",".join(_tail(texts, size, last)) + "]")

    def group(self, *prefix: str, last: int | None = None) -> Raw:
        """The series named ``(*prefix, name)`` as a JSON object of arrays, by name, sorted;
        ``last``: their last this many values only."""
        k, size = len(prefix), min(self.n, self.maxlen)
        return Raw("{" + ",".join(f"{json.dumps(key[k])}:[{','.join(_tail(col, size, last))}]"
                                  for key, (col, _) in sorted(self._cols.items())
                                  if len(key) == k + 1 and key[:k] == prefix) + "}")


def _tail(texts: Iterable[str], size: int, last: int | None) -> Iterable[str]:
    return texts if last is None or last >= size else itertools.islice(texts, size - last, None)


GZIP_MIN = 1024  # bytes: a smaller answer goes as it is (a packet either way)


class Snapshot:
    """One sample's answers to ``/dashboard/data``, made on the serving loop and never changed
    after (so any thread may serve it): ``full``, the whole ring; ``newest``, the newest point
    alone (``since`` = ``seq`` - 1), or None before the first point. Each is gzipped once, by
    whichever thread first asks."""

    __slots__ = ("seq", "full", "newest", "_gz", "_lock")

    def __init__(self, seq: int, full: bytes, newest: bytes | None) -> None:
        self.seq, self.full, self.newest = seq, full, newest
        self._gz: dict[bool, bytes] = {}
        self._lock = threading.Lock()

    def answer(self, since: int | None, gzipped: bool) -> tuple[bytes, bool]:
        """The body for a poll that has the points before ``since`` (None: none), and whether
        it is gzipped: the newest point alone when that is all it lacks (or it lacks none:
        the page keeps what it has, the figures beside the series are new), else the ring."""
        part = self.newest is not None and since is not None and self.seq - 1 <= since <= self.seq
        body = self.newest if part else self.full
        assert body is not None
        if not gzipped or len(body) < GZIP_MIN:
            return body, False
        with self._lock:
            out = self._gz.get(part)
            if out is None:
                out = self._gz[part] = gzip.compress(body, 6, mtime=0)
        return out, True


class BadSince(ValueError):
    """``?since=`` that is not a point's sequence number."""


def since_of(query: bytes | str) -> int | None:
    """``since`` from a query string (the last one given, URL-decoded): a non-negative
    integer, or None when not given; ``BadSince`` says what is wrong with it."""
    if isinstance(query, bytes):
        query = query.decode("latin-1")
    value = QueryParams(query).get("since")
    if value is None or value == "":
        return None
    if not (value.isascii() and value.isdigit()) or len(value) > 18:
        raise BadSince(f"since: {value[:40]!r} is not a point's sequence number (a "
                       "non-negative integer, the seq of an earlier answer)")
    return int(value)


def accepts_gzip(accept_encoding: str | None) -> bool:
    """Whether an Accept-Encoding header takes gzip (named, or ``*``, without ``q=0``)."""
    for item in (accept_encoding or "").lower().split(","):
        name, _, params = item.partition(";")
        if name.strip() in ("gzip", "*"):
            q = params.strip()
            try:
                return not q.startswith("q=") or float(q[2:]) > 0
            except ValueError:
                return False
    return False


class LiveView:
    """The dashboard's state: a ring of points, and the JSON of the latest, made per sample."""

    def __init__(self, gw: Gateway) -> None:
        self.gw = gw
        cfg = gw.cfg.dashboard
        self.interval_s = cfg.sample_ms / 1000
        self.points: deque[dict[str, Any]] = deque(maxlen=max(2, int(cfg.history_s /
                                                                     self.interval_s)))
        self.swaps: deque[dict[str, Any]] = deque(maxlen=64)  # the swap markers
        self._last: _Reading | None = None
        self._swapping: dict[str, bool] = {}
        # The last WINDOW_S of per-point histogram and prefix-cache differences, for
        # percentiles and hit rates that one short sample alone would leave mostly empty.
        self._recent: deque[dict[str, Any]] = deque(maxlen=max(1, round(WINDOW_S /
                                                                        self.interval_s)))
        self.columns = Columns(self.points.maxlen or 2)
        # The latest sample's answers while a page polls, else None. Replaced whole (one
        # reference written) on the serving loop; the admin listener's thread reads it.
        self.snapshot: Snapshot | None = None
        self._polled = -OPEN_SAMPLES  # the sample count at the last poll (any thread's)
        self._task: asyncio.Task | None = None
        self.samples = 0
        # Names this gateway's run in every answer: a page that kept a ring from an earlier
        # run (a restart starts ``seq`` over) asks for the whole ring, not the newest point.
        self.run_id = secrets.token_hex(4)
        self.sample_s = 0.0  # the serving thread's CPU time the samples took (the benchmark)

    # ---- sampling ---------------------------------------------------------------------------
    def sample(self) -> None:
        """Read the registry now and add a point (from the second reading on)."""
        t0 = time.thread_time()
        gw = self.gw
        now = gw.now()
        new = _Reading(gw, now)
        old, self._last = self._last, new
        if old is not None:
            point = self._point(new, old)
            self.points.append(point)
            self._add_columns(point)
        self.snapshot = (self._encode() if self.samples - self._polled < OPEN_SAMPLES
                         else None)
        self.samples += 1
        self.sample_s += time.thread_time() - t0

    def _encode(self) -> Snapshot:
        """The answers of now: the whole ring, and its newest point alone."""
        docs = [dumps_with_raw(d).encode()
                for d in self._data((None, 1) if self.columns.n else (None,))]
        return Snapshot(self.columns.n, docs[0], docs[1] if len(docs) > 1 else None)

    def _add_columns(self, point: dict[str, Any]) -> None:
        cols = self.columns
        cols.add({("t",): point["t"]}, None)
        for name, p in point["backends"].items():
            cols.add({("b", name, key): p[key] for key in BACKEND_SERIES}, None)
            cols.add({("b-rps", name, k): v for k, v in p["rps"].items()}, 0.0)
        cols.add({("f", key): point["fleet"][key] for key in FLEET_SERIES}, None)
        cols.add({("f-rps", k): v for k, v in point["fleet"]["rps"].items()}, 0.0)
        cols.add({("resp", k): v for k, v in point["responses"].items()}, 0.0)
        cols.close()

    def _point(self, new: _Reading, old: _Reading) -> dict[str, Any]:
        dt = new.t - old.t
        names = [b.name for b in self.gw.backends]
        per: dict[str, dict[str, Any]] = {}
        fleet_h: dict[str, dict[float, float]] = {"ttft": {}, "tpot": {}}
        fleet_out: dict[str, float] = {}

        def delta(key: str, n: str) -> float:
            return max(new.c.get((key, n), 0.0) - old.c.get((key, n), 0.0), 0.0)

        self._recent.append({
            "ttft": {n: _diff(new.h["ttft"].get(n, {}), old.h["ttft"].get(n)) for n in names},
            "tpot": {n: _diff(new.h["tpot"].get(n, {}), old.h["tpot"].get(n)) for n in names},
            "hits": {n: delta("hits", n) for n in names},
            "queries": {n: delta("queries", n) for n in names}})
        recent = list(self._recent)
        for name in names:
            p: dict[str, Any] = {}
            for key in ("prompt", "gen", "preempt"):
                p[key] = _rate(new.c.get((key, name), 0.0), old.c.get((key, name), 0.0), dt)
            for key in ("ttft", "tpot"):
                d: dict[float, float] = {}
                for r in recent:
                    for b, v in r[key][name].items():
                        d[b] = d.get(b, 0.0) + v
                for b, v in d.items():
                    fleet_h[key][b] = fleet_h[key].get(b, 0.0) + v
                p[key + "_p50"], p[key + "_p99"] = quantile(0.5, d), quantile(0.99, d)
            rps = {}
            for (b, outcome), v in new.outcomes.items():
                if b == name:
                    r = _rate(v, old.outcomes.get((b, outcome), 0.0), dt)
                    rps[outcome] = r
                    fleet_out[outcome] = fleet_out.get(outcome, 0.0) + r
            p["rps"] = rps
            dh = sum(r["hits"][name] for r in recent)
            dq = sum(r["queries"][name] for r in recent)
            p["hits"], p["queries"] = dh, dq
            p["hit_rate"] = dh / dq if dq > 0 else None
            for key in ("queue", "inflight", "kv", "healthy", "swapped", "compute"):
                p[key] = new.g.get((key, name))
            p["routed"] = _rate(new.c.get(("routed", name), 0.0),
                                old.c.get(("routed", name), 0.0), dt)
            swapping = bool(p["swapped"])
            if swapping and not self._swapping.get(name):
                self.swaps.append({"t": round(new.t, 2), "backend": name,
                                   "swapped": p["swapped"]})
            self._swapping[name] = swapping
            per[name] = p
        up = [per[n] for n in names if per[n]["healthy"]]
        hits = sum(p["hits"] for p in up)
        queries = sum(p["queries"] for p in up)
        kvs = [p["kv"] for p in up if p["kv"] is not None]
        # Token load per backend: tokens served over its prefill speed where the cost model
        # knows it (a slow GPU given as many tokens carries more load), else the tokens.
        speed = {b.name: b.prefill_tps or 1.0 for b in self.gw.backends}
        loads = [(per[n]["prompt"] + per[n]["gen"]) / speed[n] for n in names if per[n]["healthy"]]
        imb_r = imbalance(per[n]["routed"] for n in names if per[n]["healthy"])
        imb_t = imbalance(loads)
        fleet = {
            "prompt": sum(p["prompt"] for p in per.values()),
            "gen": sum(p["gen"] for p in per.values()),
            "preempt": sum(p["preempt"] for p in per.values()),
            "rps": fleet_out,
            "queue": sum(p["queue"] or 0 for p in per.values()) + self.gw.queued,
            "kv": sum(kvs) / len(kvs) if kvs else None,
            "hit_rate": hits / queries if queries > 0 else None,
            "swapped": sum(p["swapped"] or 0 for p in per.values()),
            "healthy": len(up),
            "imb_requests": imb_r, "imb_tokens": imb_t,
            "fake_balance": imb_t - imb_r if imb_r is not None and imb_t is not None else None,
        }
        for key in ("ttft", "tpot"):
            fleet[key + "_p50"] = quantile(0.5, fleet_h[key])
            fleet[key + "_p99"] = quantile(0.99, fleet_h[key])
        tenants = {}
        for (key, t), v in new.c.items():
            if key in ("prompt@tenant", "gen@tenant"):
                tenants[t] = tenants.get(t, 0.0) + _rate(v, old.c.get((key, t), 0.0), dt) * 60
        reasons = {f"{cls} {reason}": _rate(v, old.reasons.get((cls, reason), 0.0), dt)
                   for (cls, reason), v in new.reasons.items()}
        rejected = {r: _rate(v, old.c.get(("rejected", r), 0.0), dt)
                    for (key, r), v in new.c.items() if key == "rejected"}
        return {"t": round(new.t, 2), "backends": per, "fleet": fleet, "tenants_tpm": tenants,
                "responses": reasons, "rejected": rejected}

    def _data(self, tails: Iterable[int | None]) -> list[dict[str, Any]]:
        """The JSON the page polls, once per tail: the points as series (``tail``: the last
        this many only; None: the whole ring), and the figures of now (the same for each).
        ``seq``: the points added so far; ``since``: the first of them the series hold (None:
        the whole ring); ``ring``: the most the page keeps."""
        pts = self.points
        gw, cols = self.gw, self.columns
        last = self._last
        backends = []
        for b in gw.backends:
            # Down (its health check fails) before ejected (its requests failed, its health
            # check not yet asked): the cause an operator acts on.
            status = "down" if not b.healthy else "ejected" if b.ejected else "up"
            share, source = b.compute_bound_share()
            backends.append({"name": b.name, "gpu": b.gpu, "status": status,
                             "inflight": b.inflight, "compute_source": source,
                             "compute_now": _r(share)})
        budgets = gw.budgets
        # With a shared store, the whole fleet's figures: its budgets, levels and use.
        shared = gw.state.figures if gw.state is not None else {}
        tenants = []
        minute = list(pts)[-max(1, int(60 / self.interval_s)):]
        for t in sorted({*budgets, *(k for p in minute[-1:] for k in p["tenants_tpm"])}):
            recent = [p["tenants_tpm"].get(t, 0.0) for p in minute]
            used = sum(recent) / len(recent) if recent else 0.0
            tpm = budgets.get(t)
            row = {"tenant": t, "tokens_per_minute": round(used, 1), "budget": tpm,
                   "scope": "replica"}
            fig = shared.get(t)
            if fig is not None:
                row.update(scope="fleet", level=_r(fig.level), inflight_tokens=fig.inflight)
                if fig.tokens_per_minute is not None:
                    used = fig.tokens_per_minute
                    row["tokens_per_minute"] = round(used, 1)
            row["share"] = _r(used / tpm) if tpm else None
            tenants.append(row)
        rejected = {}
        if last is not None:
            rejected = {r: v for (k, r), v in last.c.items() if k == "rejected"}
        n = cols.n
        now = {"ring": cols.maxlen, "run": self.run_id, "interval_s": self.interval_s,
               "health_interval_s": gw.cfg.health.interval_ms / 1000, "tenants": tenants,
               "rejected_total": rejected, "swaps": list(self.swaps), "router": gw.policy,
               "now": round(gw.now(), 2)}
        docs = []
        for tail in tails:
            series_of = []
            for b, row in zip(gw.backends, backends, strict=True):
                series: dict[str, Any] = {key: cols.get(("b", b.name, key), last=tail)
                                          for key in BACKEND_SERIES}
                series["rps"] = cols.group("b-rps", b.name, last=tail)
                series_of.append({**row, "series": series})
            fleet: dict[str, Any] = {key: cols.get(("f", key), last=tail)
                                     for key in FLEET_SERIES}
            fleet["rps"] = cols.group("f-rps", last=tail)
            docs.append({"seq": n, "since": None if tail is None else max(n - tail, 0),
                         "t": cols.get(("t",), last=tail), "backends": series_of,
                         "fleet": fleet, "responses": cols.group("resp", last=tail), **now})
        return docs

    # ---- serving ----------------------------------------------------------------------------
    def watched(self) -> None:
        """A page polled: keep making the snapshot at each sample (any thread may say so)."""
        self._polled = self.samples

    def latest(self) -> Snapshot:
        """On the serving loop: the latest sample's snapshot, made now if none is (no page
        polled lately); a poll also keeps one made at each sample."""
        self.watched()
        snap = self.snapshot
        if snap is None:
            if self._last is None:
                self.sample()
            else:
                self.snapshot = self._encode()
            snap = self.snapshot
            assert snap is not None
        return snap

    async def run(self) -> None:
        while True:
            with contextlib.suppress(Exception):  # a bug in one sample must not stop the view
                self.sample()
            await asyncio.sleep(self.interval_s)

    def start(self) -> None:
        self._task = asyncio.create_task(self.run())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task


def page() -> str:
    return PAGE.read_text(encoding="utf-8")
