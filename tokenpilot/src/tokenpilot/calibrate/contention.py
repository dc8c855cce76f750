"""How much CPU a server process got, and its timeline without the waits for a core.

On a shared CPU a server's compute thread is at any instant running, asleep (no work), or
runnable but waiting for a core another process holds. The kernel counts the last, per thread,
in ``/proc/PID/task/TID/schedstat`` (nanoseconds on a CPU, nanoseconds waiting on a run queue,
time slices). Two uses:

- ``CpuShare``: over one run, the share of its runnable time the server's threads spent
  waiting, the load average and the cores usable: the calibration figure printed beside every
  real run (how contended the machine was, as the server felt it).
- ``WaitClock``: the cumulative wait W(t) of the server's compute thread (the thread with the
  most CPU time: with ``--threads 1`` llama.cpp runs every batch on it), sampled every few
  milliseconds. A request's work stalls exactly while that thread waits for a core, so
  ``v = t - W(t)`` is the server's own clock: the time an uncontended machine would have
  taken. ``to_own_time`` maps a log's arrival, first-token and finish instants onto it (the
  latencies the server's work alone accounts for), ``to_wall_time`` maps simulated instants
  back, through the waits the real run met.

What it does not see: a contended CPU also runs slower while it does run (shared caches and
memory bandwidth); the fitted efficiencies absorb the average of that.
"""

from __future__ import annotations

import os
import threading
import time
from typing import Any

import numpy as np


def schedstat(pid: int | str, tid: int | str | None = None) -> tuple[float, float]:
    """(seconds on a CPU, seconds runnable but waiting for one) of thread ``tid`` of process
    ``pid``, or summed over all its threads; (0, 0) where the kernel keeps no such counters."""
    tids = [tid] if tid is not None else _tids(pid)
    run_ns = wait_ns = 0
    for t in tids:
        try:
            with open(f"/proc/{pid}/task/{t}/schedstat") as f:
                on, wait, _ = f.read().split()
        except (OSError, ValueError):
            continue  # a thread that ended meanwhile
        run_ns, wait_ns = run_ns + int(on), wait_ns + int(wait)
    return run_ns / 1e9, wait_ns / 1e9


def _tids(pid: int | str) -> list[str]:
    try:
        return os.listdir(f"/proc/{pid}/task")
    except OSError:
        return []


def busiest_thread(pid: int | str) -> str | None:
    """The thread of ``pid`` with the most CPU time so far (llama.cpp's compute thread once a
    request has run), or None when there is none to read."""
    best, best_run = None, -1.0
    for t in _tids(pid):
        on, _ = schedstat(pid, t)
        if on > best_run:
            best, best_run = t, on
    return best


class CpuShare:
    """How much CPU process ``pid`` got over a stretch of time (module doc):
    ``with CpuShare(pid) as c: ...`` then ``c.figures``."""

    def __init__(self, pid: int | str = "self") -> None:
        self.pid = pid
        self.figures: dict[str, Any] = {}

    def __enter__(self) -> CpuShare:
        self._t0, (self._run0, self._wait0) = time.perf_counter(), schedstat(self.pid)
        return self

    def __exit__(self, *_: object) -> None:
        run_s, wait_s = schedstat(self.pid)
        on, wait = run_s - self._run0, wait_s - self._wait0
        self.figures = {"wall_s": round(time.perf_counter() - self._t0, 2),
                        "cpu_s": round(on, 2), "runqueue_wait_s": round(wait, 2),
                        "wait_share": round(wait / (on + wait), 3) if on + wait > 0 else None,
                        "loadavg_1m": round(os.getloadavg()[0], 2),
                        "cores": len(os.sched_getaffinity(0))}


class WaitClock:
    """Samples the cumulative run-queue wait of one thread every ``interval_s`` (module doc).
    ``with WaitClock(pid, tid) as clock: ...``; then ``clock.t`` (``perf_counter`` instants)
    and ``clock.wait`` (seconds waited since the first sample), both increasing."""

    def __init__(self, pid: int | str, tid: int | str | None, interval_s: float = 0.005,
                 max_samples: int = 200_000) -> None:
        self.pid, self.tid, self.interval_s = pid, tid, interval_s
        self.max_samples = max_samples
        self._t: list[float] = []
        self._w: list[float] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, name="wait-clock", daemon=True)

    def _read(self) -> None:
        self._t.append(time.perf_counter())
        self._w.append(schedstat(self.pid, self.tid)[1] if self.tid is not None else 0.0)

    def _sample(self) -> None:
        while not self._stop.wait(self.interval_s) and len(self._t) < self.max_samples:
            self._read()

    def __enter__(self) -> WaitClock:
        self._read()
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()
        self._read()

    @property
    def t(self) -> np.ndarray:
        return np.asarray(self._t)

    @property
    def wait(self) -> np.ndarray:
        w = np.maximum.accumulate(np.asarray(self._w))
        return w - w[0]

    def to_dict(self, t0: float) -> dict[str, list[float]]:
        """The samples with times and waits from ``t0`` (a log's zero; earlier samples have
        negative ones), for keeping beside the log."""
        t, w = self.t - t0, self.wait
        w = w - np.interp(0.0, t, w)
        return {"t": [round(float(x), 6) for x in t], "wait": [round(float(x), 6) for x in w]}


def own_time(timeline: dict[str, list[float]], t: np.ndarray) -> np.ndarray:
    """Wall instants ``t`` (from the log's zero) on the server's own clock, ``t - W(t)``."""
    return t - np.interp(t, timeline["t"], timeline["wait"])


def to_own_time(records: list[dict[str, Any]], timeline: dict[str, list[float]]
                ) -> list[dict[str, Any]]:
    """A recorded log's requests with every instant on the server's own clock (module doc):
    arrival, first token and finish moved by the waits before them, latencies recomputed."""
    out = []
    for r in records:
        a, f, e = own_time(timeline, np.array([r["arrival_s"], r["first_token_s"],
                                               r["finish_s"]], dtype=float))
        n = int(r["output_tokens"])
        out.append({**r, "arrival_s": round(float(a), 6), "ttft_s": round(float(f - a), 6),
                    "tpot_s": round(float(e - f) / (n - 1), 6) if n > 1 else 0.0,
                    "first_token_s": round(float(f), 6), "finish_s": round(float(e), 6)})
    return out


def to_wall_time(timeline: dict[str, list[float]], v: np.ndarray) -> np.ndarray:
    """Instants ``v`` on the server's own clock back on the wall clock of the run that
    ``timeline`` was sampled in: the inverse of ``own_time`` (where the server waited, one
    own-clock instant spans the whole wait; its end is taken). Outside the sampled window the
    clocks run together (no waits known there)."""
    t = np.asarray(timeline["t"], dtype=float)
    own = t - np.asarray(timeline["wait"], dtype=float)  # non-decreasing
    v = np.asarray(v, dtype=float)
    i = np.searchsorted(own, v, side="right")  # own[i - 1] <= v < own[i]
    lo, hi = np.clip(i - 1, 0, len(t) - 1), np.clip(i, 0, len(t) - 1)
    span = own[hi] - own[lo]
    frac = np.divide(v - own[lo], span, out=np.zeros_like(v), where=span > 0)
    out = t[lo] + frac * (t[hi] - t[lo])
    out = np.where(i >= len(t), t[-1] + (v - own[-1]), out)
    return np.where(i == 0, t[0] + (v - own[0]), out)
