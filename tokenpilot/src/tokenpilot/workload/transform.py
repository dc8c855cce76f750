"""Reshaping a workload in time: measure its rate, scale it to a target rate, cut it short.

Functions return new lists and never change the requests they are given (scaling makes new
``Request`` objects), so one loaded trace can be replayed at several rates.
"""

from __future__ import annotations

from collections.abc import Sequence

from tokenpilot.workload.errors import WorkloadError
from tokenpilot.workload.loaders import paused_gc
from tokenpilot.workload.request import Request


def mean_rate(requests: Sequence[Request]) -> float:
    """Requests per second: one over the mean inter-arrival gap, ``(n-1) / (last - first)``."""
    if len(requests) < 2:
        raise WorkloadError("a rate needs at least two requests")
    span = requests[-1].arrival - requests[0].arrival
    if span <= 0:
        raise WorkloadError("all requests arrive at the same instant: the rate is undefined")
    return (len(requests) - 1) / span


def scale_time(requests: Sequence[Request], factor: float) -> list[Request]:
    """Multiply every arrival by ``factor`` (below 1 compresses time, i.e. raises the rate)."""
    if not factor > 0:
        raise WorkloadError(f"time scale factor must be positive, got {factor}")
    with paused_gc():
        return [
            Request(r.id, r.arrival * factor, r.prompt_tokens, r.output_tokens, r.tenant,
                    r.prefix_hashes, r.prefix_block_tokens, r.priority, r.slo_class)
            for r in requests
        ]


def scale_to_rate(requests: Sequence[Request], rps: float) -> list[Request]:
    """Scale time so that ``mean_rate`` of the result is ``rps``; token counts are untouched."""
    if not rps > 0:
        raise WorkloadError(f"target rate must be positive, got {rps}")
    return scale_time(requests, mean_rate(requests) / rps)


def truncate(
    requests: Sequence[Request], n: int | None = None, duration: float | None = None
) -> list[Request]:
    """The first ``n`` requests and/or those arriving before ``duration`` seconds."""
    if n is not None and n < 1:
        raise WorkloadError(f"n must be at least 1, got {n}")
    if duration is not None and duration <= 0:
        raise WorkloadError(f"duration must be positive, got {duration}")
    out = list(requests[:n]) if n is not None else list(requests)
    if duration is not None:
        # Sorted by arrival: bisect on the arrival key.
        lo, hi = 0, len(out)
        while lo < hi:
            mid = (lo + hi) // 2
            if out[mid].arrival < duration:
                lo = mid + 1
            else:
                hi = mid
        out = out[:lo]
    return out
