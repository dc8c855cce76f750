"""Read a backend's Prometheus ``/metrics`` into one ``MetricsSnapshot``, whatever the server.

vLLM, SGLang and llama.cpp name the same few facts differently; each adapter maps its names
onto the snapshot, and the gateway turns snapshots plus its own accounting into the
``InstanceView`` its router sees. A fact a server does not export stays ``None`` and the
gateway's accounting stands in for it.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

from prometheus_client.parser import text_string_to_metric_families


@dataclass
class MetricsSnapshot:
    running: float | None = None
    waiting: float | None = None
    kv_usage: float | None = None  # 0..1
    prefix_hits: float | None = None  # cumulative (tokens, or a rate for SGLang)
    prefix_queries: float | None = None
    preemptions: float | None = None  # cumulative
    swapped: float | None = None  # requests swapped out to host memory now
    compute_bound_s: float | None = None  # cumulative busy seconds bound by compute ...
    memory_bound_s: float | None = None  # ... and by memory bandwidth (the simulated backend)
    info: dict[str, str] = field(default_factory=dict)  # tokenpilot:sim_info labels, if any

    @property
    def prefix_hit_rate(self) -> float | None:
        if self.prefix_hits is None:
            return None
        if self.prefix_queries is None:  # SGLang exports the rate itself
            return self.prefix_hits
        return self.prefix_hits / self.prefix_queries if self.prefix_queries else 0.0


# metric family name (as the parser reports it, counters without _total) -> snapshot field.
# Sums over label sets (several engines or models behind one server).
VLLM = {
    "vllm:num_requests_running": "running",
    "vllm:num_requests_waiting": "waiting",
    "vllm:kv_cache_usage_perc": "kv_usage",
    "vllm:gpu_cache_usage_perc": "kv_usage",  # before vLLM 0.10
    "vllm:prefix_cache_hits": "prefix_hits",
    "vllm:prefix_cache_queries": "prefix_queries",
    "vllm:num_preemptions": "preemptions",
    "vllm:num_requests_swapped": "swapped",  # vLLM V0 (V1 preempts by recompute only)
    "tokenpilot:sim_compute_bound_seconds": "compute_bound_s",
    "tokenpilot:sim_memory_bound_seconds": "memory_bound_s",
}
SGLANG = {
    "sglang:num_running_reqs": "running",
    "sglang:num_queue_reqs": "waiting",
    "sglang:token_usage": "kv_usage",
    "sglang:cache_hit_rate": "prefix_hits",
}
LLAMACPP = {
    "llamacpp:requests_processing": "running",
    "llamacpp:requests_deferred": "waiting",
    "llamacpp:kv_cache_usage_ratio": "kv_usage",
}
ADAPTERS: dict[str, dict[str, str]] = {"vllm": VLLM, "sglang": SGLANG, "llamacpp": LLAMACPP,
                                       "openai": {}}


INFO = "tokenpilot:sim_info"


@functools.cache
def _prefixes(kind: str) -> tuple[str, ...]:
    return (*ADAPTERS[kind], INFO)


@functools.lru_cache(maxsize=256)  # an info line is the same in every scrape
def _labels(line: str) -> tuple[tuple[str, str], ...]:
    for fam in text_string_to_metric_families(line + "\n"):
        return tuple(fam.samples[0].labels.items())
    return ()


def parse_metrics(text: str, kind: str) -> MetricsSnapshot:
    """The snapshot of one scrape; ``ValueError`` on a sample this reads whose value is not a
    number (other lines are not looked at).

    A server exports dozens to hundreds of samples (vLLM's histograms: a line per bucket) and
    the adapters read a handful, every health interval, per backend: parsing the whole text
    with prometheus_client's pure-Python parser cost the gateway more CPU than it spent on the
    requests of a light load. So only the lines whose metric name starts with a name read here
    are looked at (one ``str.startswith`` each, in C); their value is the number after the
    label set, and the one line whose labels are read (``tokenpilot:sim_info``, the same in
    every scrape: parsed once) goes through prometheus_client's parser, which knows the label
    grammar's escapes.
    """
    names = ADAPTERS.get(kind)
    if names is None:
        raise ValueError(f"no metrics adapter for backend kind {kind!r}")
    prefixes = _prefixes(kind)
    snap = MetricsSnapshot()
    sums: dict[str, float] = {}
    for line in text.splitlines():
        if not line.startswith(prefixes):
            continue  # comments and every metric not read here
        brace = line.find("{")
        if brace >= 0:
            name, rest = line[:brace], line[line.rfind("}") + 1:]
        else:
            name, _, rest = line.partition(" ")
        name = name.rstrip().removesuffix("_total")  # a counter's samples end in _total
        if name == INFO:
            snap.info = dict(_labels(line))
        elif name in names:
            value = rest.split(maxsplit=1)  # the value, then an optional timestamp
            if not value:
                raise ValueError(f"no value in the sample line {line[:120]!r}")
            sums[name] = sums.get(name, 0.0) + float(value[0])
    for name, value in sums.items():
        key = names[name]
        # The newer vLLM name wins over the older when a server exports both.
        if name == "vllm:gpu_cache_usage_perc" and "vllm:kv_cache_usage_perc" in sums:
            continue
        setattr(snap, key, value)
    return snap


@dataclass(frozen=True)
class SlotsSnapshot:
    """What llama.cpp's ``/slots`` says: it exports no KV-usage metric, so it is derived here."""

    kv_usage: float  # tokens held by busy slots / all slots' context
    slot_ctx: int  # context of one slot: the longest request (prompt + output) it can take
    total_ctx: int  # KV-cache size in tokens, all slots together
    busy: int


def parse_llamacpp_slots(slots: object) -> SlotsSnapshot:
    """Read a ``/slots`` answer; ``ValueError`` if it is not a list of slot objects.

    A busy slot's ``n_prompt_tokens`` counts the tokens in its cache, generated ones included.
    Idle slots keep their last prompt cached, but that space is free to reuse: not counted.
    With ``--kv-unified`` every slot reports the whole cache as its ``n_ctx``, and usage here
    reads low by the number of slots (the fleet tokenpilot starts does not unify).
    """
    if not isinstance(slots, list) or not all(isinstance(s, dict) for s in slots):
        raise ValueError("/slots did not return a list of slot objects")
    ctxs = [int(s.get("n_ctx") or 0) for s in slots]
    total = sum(ctxs)
    busy = [s for s in slots if s.get("is_processing")]
    used = sum(int(s.get("n_prompt_tokens") or 0) for s in busy)
    return SlotsSnapshot(min(used / total, 1.0) if total else 0.0, max(ctxs, default=0), total,
                         len(busy))
