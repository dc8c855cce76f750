"""What an engine run leaves behind: per-request results and per-instance time series."""

from __future__ import annotations

from array import array
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class RequestResult:
    """One request's life on an instance. Times are seconds; -1 where it never happened."""

    id: int
    arrival: float
    prompt_tokens: int
    output_tokens: int
    first_scheduled: float = -1.0
    first_token: float = -1.0
    finish: float = -1.0
    cached_tokens: int = 0  # prompt tokens served from the prefix cache at first admission
    preemptions: tuple[tuple[float, str], ...] = ()  # (time, "recompute" | "swap")
    rejected: str = ""  # why the request was not simulated ("" if it was)

    @property
    def ttft(self) -> float:
        return self.first_token - self.arrival

    @property
    def e2e(self) -> float:
        return self.finish - self.arrival

    @property
    def tpot(self) -> float:
        """Mean time per output token after the first (0 for one-token outputs)."""
        if self.output_tokens <= 1:
            return 0.0
        return (self.finish - self.first_token) / (self.output_tokens - 1)

    @property
    def queueing(self) -> float:
        return self.first_scheduled - self.arrival


class TimeSeries:
    """Instance state sampled on change, into compact arrays (bounded: a few numbers per event).

    ``min_interval_s`` > 0 keeps at most one sample per interval, for very long runs.
    """

    __slots__ = ("t", "running", "waiting", "queued_tokens", "kv_used", "min_interval_s",
                 "_last")

    def __init__(self, min_interval_s: float = 0.0) -> None:
        self.t = array("d")
        self.running = array("l")
        self.waiting = array("l")
        self.queued_tokens = array("q")
        self.kv_used = array("l")
        self.min_interval_s = min_interval_s
        self._last: tuple[int, int, int, int] | None = None

    def record(self, t: float, running: int, waiting: int, queued: int, kv_used: int) -> None:
        row = (running, waiting, queued, kv_used)
        if row == self._last:
            return
        if self.min_interval_s and self.t and t - self.t[-1] < self.min_interval_s:
            return
        self._last = row
        self.t.append(t)
        self.running.append(running)
        self.waiting.append(waiting)
        self.queued_tokens.append(queued)
        self.kv_used.append(kv_used)

    def __len__(self) -> int:
        return len(self.t)


@dataclass(slots=True)
class EngineStats:
    """Counters over a run."""

    iterations: int = 0  # model iterations simulated (skipped ones included)
    events: int = 0  # scheduling decisions actually made (one per skip or iteration)
    busy_s: float = 0.0
    compute_bound_s: float = 0.0
    memory_bound_s: float = 0.0
    swap_s: float = 0.0  # time iterations spent copying KV to and from host memory
    swap_out_tokens: int = 0
    swap_in_tokens: int = 0
    preempt_recompute: int = 0
    preempt_swap: int = 0
    prefix_hit_tokens: int = 0
    prefix_miss_tokens: int = 0
    evictions: int = 0
    rejected: int = 0
    finished: int = 0
