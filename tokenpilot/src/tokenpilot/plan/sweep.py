"""Run a sweep's independent tasks in parallel: local processes by default, or a Ray cluster.

``Sweep.map(fn, tasks, shared)`` returns ``[fn(shared, t) for t in tasks]`` in task order,
whoever ran them. ``fn`` must be a module-level function (it is pickled by reference) and
deterministic: every task carries its own seed, so the results do not depend on which worker
ran which task, nor in what order (``tests/test_plan.py`` checks the executors agree).

- ``serial``: in this process, one after the other (``workers=1`` means the same);
- ``local``: a ``concurrent.futures`` process pool of ``workers`` processes (default: the
  cores this process may use); ``shared`` (the workload, a few MB) goes to each worker once,
  through the pool's initializer, not with every task;
- ``ray``: ``ray.init(address=...)`` (None: a local Ray; ``auto``: the running cluster) and
  one remote call per task; ``shared`` goes into Ray's object store once. Ray is an optional
  extra: ``pip install 'tokenpilot[ray]'``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any

EXECUTORS = ("local", "serial", "ray")

_SHARED: Any = None  # a local worker's copy of ``shared`` (set by its initializer)


def _init_worker(shared: Any) -> None:
    global _SHARED
    _SHARED = shared


def _call_local(fn: Callable[[Any, Any], Any], task: Any) -> Any:
    return fn(_SHARED, task)


def _call_ray(fn: Callable[[Any, Any], Any], shared: Any, task: Any) -> Any:
    return fn(shared, task)


def default_workers() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


class SweepError(RuntimeError):
    """An executor could not start (Ray missing or unreachable); one line saying what to do."""


class Sweep:
    def __init__(self, executor: str = "local", workers: int | None = None,
                 address: str | None = None, ray_cpus: int | None = None) -> None:
        if executor not in EXECUTORS:
            raise SweepError(f"unknown executor {executor!r}; valid executors: "
                             f"{', '.join(EXECUTORS)}")
        self.workers = max(1, workers or default_workers())
        self.executor = "serial" if executor == "local" and self.workers == 1 else executor
        self.address = address
        self.ray_cpus = ray_cpus
        self._ray: Any = None

    def describe(self) -> str:
        if self.executor == "ray":
            return f"ray ({self.address or 'local'})"
        if self.executor == "serial":
            return "serial (1 process)"
        return f"local ({self.workers} processes)"

    def map(self, fn: Callable[[Any, Any], Any], tasks: Sequence[Any], shared: Any = None,
            ) -> list[Any]:
        tasks = list(tasks)
        if not tasks:
            return []
        if self.executor == "serial" or (self.executor == "local" and len(tasks) == 1):
            return [fn(shared, t) for t in tasks]
        if self.executor == "local":
            with ProcessPoolExecutor(max_workers=min(self.workers, len(tasks)),
                                     initializer=_init_worker, initargs=(shared,)) as pool:
                return list(pool.map(_call_local, [fn] * len(tasks), tasks))
        ray = self._start_ray()
        remote = ray.remote(_call_ray)
        ref = ray.put(shared)
        return ray.get([remote.remote(fn, ref, t) for t in tasks])

    def _start_ray(self) -> Any:
        if self._ray is not None:
            return self._ray
        try:
            import ray
        except ImportError:
            raise SweepError("--executor ray needs Ray: pip install 'tokenpilot[ray]'") from None
        if not ray.is_initialized():
            kw: dict[str, Any] = {"address": self.address, "include_dashboard": False,
                                  "log_to_driver": False, "configure_logging": False}
            if self.address is None:  # a Ray of our own, on this machine only
                kw["_node_ip_address"] = "127.0.0.1"
                if self.ray_cpus:
                    kw["num_cpus"] = self.ray_cpus
            try:
                ray.init(**kw)
            except (ConnectionError, RuntimeError, ValueError) as exc:
                first = str(exc).strip().splitlines()[0] if str(exc).strip() else repr(exc)
                raise SweepError(f"cannot start or reach Ray at "
                                 f"{self.address or 'a local cluster'}: {first}") from None
        self._ray = ray
        return ray
