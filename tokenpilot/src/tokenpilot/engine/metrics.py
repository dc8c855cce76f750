"""What an engine run leaves behind: per-request results and per-instance time series."""

from __future__ import annotations

from array import array
from collections.abc import Callable
from dataclasses import dataclass
from struct import Struct

from tokenpilot.frozen import fast_constructor

_pack_row = Struct("qqqq").pack


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


# One result per request: built without the frozen dataclass's slow __init__ (``frozen``), or,
# compiled by mypyc, by the class itself, whose constructor is native code then.
_NATIVE = not __file__.endswith(".py")
make_result: Callable[..., RequestResult] = (
    RequestResult if _NATIVE else fast_constructor(RequestResult))


class TimeSeries:
    """Instance state sampled on change, into compact arrays (bounded: a few numbers per event).

    ``t`` holds the sample times; ``running``, ``waiting``, ``queued_tokens`` and ``kv_used``
    are integer arrays of the same length. The four counts of a sample are packed into one
    growing buffer (one append per sample instead of four: this runs at every event), and
    the columns are cut from it when first read after a change.

    ``min_interval_s`` > 0 keeps at most one sample per interval, for very long runs.
    """

    __slots__ = ("t", "_rows", "_cols", "min_interval_s", "_any", "_l0", "_l1", "_l2", "_l3")

    def __init__(self, min_interval_s: float = 0.0) -> None:
        self.t = array("d")
        self._rows = bytearray()  # _ROW-packed (running, waiting, queued, kv_used) samples
        self._cols: tuple[array, array, array, array] | None = None
        self.min_interval_s = min_interval_s
        # The last sample, as four plain ints (compiled, comparing them allocates nothing; a
        # tuple would be built at every event): ``_any`` once there is one.
        self._any = False
        self._l0 = self._l1 = self._l2 = self._l3 = 0

    def record(self, t: float, running: int, waiting: int, queued: int, kv_used: int) -> None:
        """Record ``(running, waiting, queued, kv_used)`` at ``t`` if it changed and
        ``min_interval_s`` has passed since the last sample."""
        if self.due(t):
            self.record_if_changed(t, (running, waiting, queued, kv_used))

    def due(self, t: float) -> bool:
        """Whether a sample at ``t`` would pass the interval test (always, with no interval):
        a caller asks before building a row most samples would not keep."""
        return not self.min_interval_s or not self.t or t - self.t[-1] >= self.min_interval_s

    def record_if_changed(self, t: float, row: tuple[int, int, int, int]) -> None:
        """Record ``row`` at ``t`` if it differs from the last sample (no interval test)."""
        running, waiting, queued, kv_used = row
        if (self._any and running == self._l0 and waiting == self._l1 and queued == self._l2
                and kv_used == self._l3):
            return
        self._any = True
        self._l0, self._l1, self._l2, self._l3 = running, waiting, queued, kv_used
        self.t.append(t)
        self._rows += _pack_row(running, waiting, queued, kv_used)
        self._cols = None

    def _columns(self) -> tuple[array, array, array, array]:
        cols = self._cols
        if cols is None:
            rows = array("q")
            rows.frombytes(self._rows)
            cols = self._cols = (rows[0::4], rows[1::4], rows[2::4], rows[3::4])
        return cols

    @property
    def running(self) -> array:
        return self._columns()[0]

    @property
    def waiting(self) -> array:
        return self._columns()[1]

    @property
    def queued_tokens(self) -> array:
        return self._columns()[2]

    @property
    def kv_used(self) -> array:
        return self._columns()[3]

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
    swap_fallbacks: int = 0  # swap preemptions host memory could not take: recomputed instead
    prefix_hit_tokens: int = 0
    prefix_miss_tokens: int = 0
    evictions: int = 0
    rejected: int = 0
    finished: int = 0
    aborted: int = 0  # dropped before their end (``Engine.abort``: the client went away)
