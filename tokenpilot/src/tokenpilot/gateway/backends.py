"""One upstream server as the gateway knows it: health, its own accounting, the last scrape.

The router sees each backend as an ``InstanceView``, the same type the simulator's engines
produce. What the backend's ``/metrics`` says (running, waiting, KV usage) is up to one health
interval old; what the gateway itself sent there (requests in flight, prompt tokens not yet
answered, output tokens still to come) is exact and immediate, so the view takes the fresher
of the two. Speeds come from the cost model when the backend's GPU and model are known: the
simulator's instance of that GPU, model, tp and engine profile, under the backend's fitted
calibration when the config names one (``calibration: PROFILE.yaml``).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence

from tokenpilot.cluster.fleet import InstanceSpec
from tokenpilot.costmodel import CostModel, DoesNotFitError
from tokenpilot.engines import DEFAULT_ENGINE
from tokenpilot.gateway.adapters import MetricsSnapshot
from tokenpilot.gateway.config import BackendConfig
from tokenpilot.hardware import UnknownGPUError
from tokenpilot.models import UnknownModelError
from tokenpilot.policy.view import InstanceView, make_view
from tokenpilot.workload.request import Request

BUDGET = 8192  # tokens per prefill chunk, as the engine's default max_num_batched_tokens
MAX_REMEMBERED_PREFIXES = 50_000


class Backend:
    """Runtime state of one backend. Mutated only on the gateway's event loop."""

    def __init__(self, cfg: BackendConfig, index: int) -> None:
        self.cfg = cfg
        self.index = index
        self.name = cfg.name
        self.url = cfg.url
        self.model = cfg.model
        self.gpu = cfg.gpu
        self.healthy = True  # optimistic until the first check says otherwise
        self.ejected = False  # passive: too many consecutive failures
        self.failures = 0
        self.checked = False
        self.inflight = 0
        self.prefill_pending = 0  # prompt tokens sent, first token not yet back
        self.decode_pending = 0  # output tokens asked for and not yet streamed back
        # The same three figures summed over the other gateway replicas, as their last
        # heartbeats said (``gateway.state``; 0 with one replica).
        self.remote_inflight = self.remote_prefill = self.remote_decode = 0
        self.metrics: MetricsSnapshot | None = None
        self.bound_share: float | None = None  # compute-bound share since the last scrape
        self.max_model_len = 0
        self.block_size = 16
        self.kv_blocks_total = 0
        self.cm: CostModel | None = None
        self.prefill_tps = 0.0
        # Prefixes this gateway sent here: the best live knowledge of what its KV cache holds.
        self.prefixes: OrderedDict[int, None] = OrderedDict()
        # The last view and the state it was made from: every request asks for a view of
        # every backend, and an idle backend's does not change between requests.
        self._view_key: tuple | None = None
        self._view: InstanceView | None = None
        self.learn(cfg.gpu, cfg.model, cfg.tp)

    # ---- what the backend is ----------------------------------------------------------------
    def learn(self, gpu: str, model: str, tp: int = 1, kv_blocks: int = 0, block_size: int = 0,
              max_model_len: int = 0) -> None:
        """Fill in hardware facts (from the config, or from what the backend reports)."""
        if model and not self.model:
            self.model = model
        if gpu and not self.gpu:
            self.gpu = gpu
        if gpu and model and self.cm is None:
            try:
                spec = InstanceSpec(gpu=gpu, model=model, tp=tp,
                                    engine=self.cfg.engine or DEFAULT_ENGINE,
                                    calibration=self.cfg.calibration)
                self.cm = spec.cost_model()
            except (UnknownGPUError, UnknownModelError, DoesNotFitError, ValueError):
                self.cm = None  # not in the catalogs: route on load alone
            if self.cm is not None:
                self.prefill_tps = BUDGET / max(self.cm.prefill_time(BUDGET), 1e-12)
                self.kv_blocks_total = self.cm.kv_capacity_blocks(self.block_size)
                self.max_model_len = self.max_model_len or (self.cm.model.max_context or 0)
        if block_size:
            self.block_size = block_size
        if kv_blocks:
            self.kv_blocks_total = kv_blocks
        if max_model_len:
            self.max_model_len = max_model_len

    def observe(self, snap: MetricsSnapshot) -> None:
        """Take a new scrape of the backend's ``/metrics``; a backend that reports its busy
        time by roofline side gets its compute-bound share since the last scrape from it."""
        old = self.metrics
        if (old is not None and snap.compute_bound_s is not None
                and snap.memory_bound_s is not None and old.compute_bound_s is not None
                and old.memory_bound_s is not None):
            dc = snap.compute_bound_s - old.compute_bound_s
            dm = snap.memory_bound_s - old.memory_bound_s
            if dc >= 0 and dm >= 0 and dc + dm > 0:  # else idle, or restarted: keep the last
                self.bound_share = dc / (dc + dm)
        self.metrics = snap

    def compute_bound_share(self) -> tuple[float | None, str]:
        """The share of busy time bound by compute, and where it comes from: ``reported``
        (the backend's own counters), ``estimate`` (the cost model on the batch it runs now:
        1 or 0), or None when neither can tell."""
        m = self.metrics
        if m is not None and m.compute_bound_s is not None:
            return self.bound_share, "reported"
        cm = self.cm
        if cm is None or m is None or not m.running:
            return None, "estimate"
        n = int(m.running)
        ctx = int((m.kv_usage or 0.0) * self.kv_blocks_total * self.block_size)
        chunk = min(max(self.prefill_pending, 0), BUDGET)
        _, compute = cm.iteration_timing(((chunk, 0),) if chunk else (), n, ctx)
        return (1.0 if compute else 0.0), "estimate"

    @property
    def available(self) -> bool:
        return self.healthy and not self.ejected and self.inflight < self.cfg.max_concurrency

    # ---- accounting -------------------------------------------------------------------------
    def begin(self, req: Request) -> None:
        self.inflight += 1
        self.prefill_pending += req.prompt_tokens
        self.decode_pending += req.output_tokens
        prefixes = self.prefixes
        for h in req.prefix_hashes:
            prefixes[h] = None
            prefixes.move_to_end(h)
        while len(prefixes) > MAX_REMEMBERED_PREFIXES:
            prefixes.popitem(last=False)

    def first_token(self, req: Request) -> None:
        self.prefill_pending -= req.prompt_tokens

    def decoded(self, tokens: int) -> None:
        """``tokens`` more output tokens streamed back: work the backend no longer owes."""
        self.decode_pending -= tokens

    def end(self, req: Request, started: bool, streamed: int, accounted: int = 0) -> None:
        """The request left: ``started`` if its first token came, ``streamed`` tokens so far,
        ``accounted`` of which were already taken off through ``decoded``."""
        self.inflight -= 1
        if not started:
            self.prefill_pending -= req.prompt_tokens
        self.decode_pending -= req.output_tokens - accounted

    def succeeded(self) -> None:
        self.failures = 0

    def failed(self, threshold: int) -> None:
        self.failures += 1
        if self.failures >= threshold:
            self.ejected = True

    # ---- the view ---------------------------------------------------------------------------
    def view(self, index: int, usable: bool | None = None) -> InstanceView:
        m = self.metrics
        inflight = self.inflight + self.remote_inflight
        prefill = self.prefill_pending + self.remote_prefill
        decode = self.decode_pending + self.remote_decode
        healthy = self.available if usable is None else usable
        # Everything the view is made of (``cached_prefixes`` is a live view of its own).
        key = (index, healthy, inflight, prefill, decode,
               None if m is None else (m.running, m.waiting, m.kv_usage), self.kv_blocks_total,
               self.block_size, self.max_model_len, self.cm, self.gpu, self.model)
        if key == self._view_key:
            return self._view  # type: ignore[return-value]
        if m is not None and m.running is not None:
            running = int(m.running)
            waiting = max(int(m.waiting or 0), inflight - running)
        else:
            running, waiting = inflight, 0
        total = self.kv_blocks_total
        used = int(m.kv_usage * total) if m is not None and m.kv_usage is not None else 0
        queued, decode = max(prefill, 0), max(decode, 0)
        decode_tps = drain = growth = mixed_tps = 0.0
        cm = self.cm
        if cm is not None:
            n = max(running, 1)
            ctx = used * self.block_size
            step = cm.decode_time(n, ctx)
            decode_tps = n / step  # when idle, the single-sequence rate (n = 1)
            growth = cm.decode_time(n + 1, ctx + ctx // n) - step
            if running:
                chunk = max(BUDGET - running, 1)
                mixed_tps = chunk / max(cm.iteration_time([(chunk, 0)], running, ctx), 1e-12)
            else:
                mixed_tps = self.prefill_tps
            drain = queued / self.prefill_tps + decode * step / n
        self._view_key = key
        self._view = v = make_view(
            index=index, name=self.name, gpu=self.gpu, model=self.model, healthy=healthy,
            num_running=running, num_waiting=waiting, max_num_seqs=0, swapped_kv_tokens=0,
            queued_prefill_tokens=queued,
            outstanding_tokens=queued + decode, kv_blocks_used=used, kv_blocks_total=total,
            block_size=self.block_size, max_model_len=self.max_model_len,
            prefill_tokens_per_s=self.prefill_tps, mixed_prefill_tokens_per_s=mixed_tps,
            decode_tokens_per_s=decode_tps, decode_step_growth_s=growth, predicted_drain_s=drain,
            cached_prefixes=self.prefixes.keys(),
            labels=self.cfg.labels)
        return v


def views(backends: Sequence[Backend], exclude: set[int] | frozenset[int] = frozenset()
          ) -> list[InstanceView]:
    """The router's input: one view per backend; excluded or unavailable ones unhealthy."""
    return [b.view(i, b.available and i not in exclude) for i, b in enumerate(backends)]
