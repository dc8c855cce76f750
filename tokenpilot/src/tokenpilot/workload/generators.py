"""Synthetic workloads: Poisson, bursty (Gamma, ON/OFF), long/short mixes, shared-prefix groups,
many tenants.

Every generator takes a ``seed`` and returns the same workload for the same arguments: a list of
``Request`` sorted by arrival, ids ``0..n-1``. Give ``n`` (a request count) or ``duration``
(seconds), or both (whichever ends first). Token counts are ``mean`` with a coefficient of
variation ``cv``: 0 makes every request the same, otherwise they are log-normal with that mean and
CV (heavy right tail, like real prompts), at least 1 token.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from tokenpilot.workload.errors import WorkloadError
from tokenpilot.workload.loaders import build_requests, paused_gc
from tokenpilot.workload.request import Request


def sample_lengths(rng: np.random.Generator, mean: float, cv: float, n: int) -> np.ndarray:
    """``n`` token counts with the given mean and coefficient of variation (log-normal)."""
    if mean < 1:
        raise WorkloadError(f"token count mean must be at least 1, got {mean}")
    if cv < 0:
        raise WorkloadError(f"token count cv must not be negative, got {cv}")
    if cv == 0:
        return np.full(n, round(mean), dtype=np.int64)
    sigma2 = math.log1p(cv * cv)
    mu = math.log(mean) - sigma2 / 2
    return np.maximum(1, np.rint(rng.lognormal(mu, math.sqrt(sigma2), n))).astype(np.int64)


def gamma_arrivals(
    rng: np.random.Generator, rps: float, cv: float, n: int | None, duration: float | None
) -> np.ndarray:
    """Arrival times with Gamma inter-arrivals of mean ``1/rps`` and CV ``cv`` (1 is Poisson)."""
    _check_rate(rps)
    if cv <= 0:
        raise WorkloadError(f"cv must be positive, got {cv}")
    shape = 1.0 / (cv * cv)
    count = _count(rps, n, duration)
    gaps = rng.gamma(shape, 1.0 / (rps * shape), count)
    gaps[0] = 0.0  # the workload starts with its first request
    return _clip(np.cumsum(gaps), n, duration)


def poisson(
    rps: float, n: int | None = None, duration: float | None = None, *, prompt: float = 1000,
    output: float = 200, prompt_cv: float = 0.0, output_cv: float = 0.0, tenant: str = "default",
    seed: int = 0,
) -> list[Request]:
    """Poisson arrivals at ``rps`` requests per second."""
    return gamma(rps, 1.0, n, duration, prompt=prompt, output=output, prompt_cv=prompt_cv,
                 output_cv=output_cv, tenant=tenant, seed=seed)


def gamma(
    rps: float, cv: float, n: int | None = None, duration: float | None = None, *,
    prompt: float = 1000, output: float = 200, prompt_cv: float = 0.0, output_cv: float = 0.0,
    tenant: str = "default", seed: int = 0,
) -> list[Request]:
    """Bursty arrivals: Gamma inter-arrivals with mean rate ``rps`` and CV ``cv`` (>1 is bursty)."""
    rng = np.random.default_rng(seed)
    arrival = gamma_arrivals(rng, rps, cv, n, duration)
    return _finish(rng, arrival, prompt, output, prompt_cv, output_cv, tenant)


def onoff(
    rps: float, on: float = 10.0, off: float = 30.0, n: int | None = None,
    duration: float | None = None, *, prompt: float = 1000, output: float = 200,
    prompt_cv: float = 0.0, output_cv: float = 0.0, tenant: str = "default", seed: int = 0,
) -> list[Request]:
    """ON/OFF traffic: Poisson during ON periods of ``on`` seconds, silence for ``off`` seconds.

    ``rps`` is the long-run mean rate, so the rate inside an ON period is ``rps * (on+off) / on``.
    """
    if on <= 0 or off < 0:
        raise WorkloadError(f"onoff needs on > 0 and off >= 0, got on={on}, off={off}")
    rng = np.random.default_rng(seed)
    # Generate in "busy time" (ON periods glued together), then open the OFF gaps.
    busy = gamma_arrivals(rng, rps * (on + off) / on, 1.0, n,
                          None if duration is None else duration * on / (on + off) + on)
    arrival = busy + np.floor(busy / on) * off
    return _finish(rng, _clip(arrival, n, duration), prompt, output, prompt_cv, output_cv, tenant)


def mix(
    rps: float, n: int | None = None, duration: float | None = None, *, long_frac: float = 0.1,
    short_prompt: float = 500, long_prompt: float = 16000, short_output: float = 200,
    long_output: float = 400, cv: float = 0.0, tenant: str = "default", seed: int = 0,
) -> list[Request]:
    """Poisson arrivals of short and long prompts; each request is long with ``long_frac``."""
    if not 0 <= long_frac <= 1:
        raise WorkloadError(f"long_frac must be in [0, 1], got {long_frac}")
    rng = np.random.default_rng(seed)
    arrival = gamma_arrivals(rng, rps, 1.0, n, duration)
    count = len(arrival)
    is_long = rng.random(count) < long_frac
    prompt = np.where(is_long, sample_lengths(rng, long_prompt, cv, count),
                      sample_lengths(rng, short_prompt, cv, count))
    output = np.where(is_long, sample_lengths(rng, long_output, cv, count),
                      sample_lengths(rng, short_output, cv, count))
    return build_requests(arrival, prompt, output, tenant=_same(tenant, count))


def prefix_groups(
    rps: float, n: int | None = None, duration: float | None = None, *, groups: int = 8,
    prefix: int = 4096, suffix: float = 512, output: float = 200, skew: float = 0.0,
    block: int = 512, cv: float = 0.0, seed: int = 0,
) -> list[Request]:
    """Poisson arrivals where each request opens with one of ``groups`` shared prefixes.

    A request's prompt is its group's ``prefix`` tokens plus a private ``suffix``; its
    ``prefix_hashes`` name every ``block``-token block of the prompt (the last one partial), the
    leading ``prefix // block`` shared with its group. Groups are chosen Zipf-like with exponent
    ``skew`` (0: uniform; 1 or more: a few hot prefixes). The tenant is the group, ``g0``...
    """
    if groups < 1 or prefix < 0 or block < 1:
        raise WorkloadError("prefix needs groups >= 1, prefix >= 0 and block >= 1")
    rng = np.random.default_rng(seed)
    arrival = gamma_arrivals(rng, rps, 1.0, n, duration)
    count = len(arrival)
    group = rng.choice(groups, size=count, p=_zipf(groups, skew))
    suffix_tokens = sample_lengths(rng, suffix, cv, count)
    prompt = prefix + suffix_tokens
    shared = prefix // block
    # Hash ids: group g's shared blocks are g*shared .. ; private blocks count up after them all.
    next_id = groups * shared
    hashes: list[tuple[int, ...]] = []
    heads = [tuple(range(g * shared, (g + 1) * shared)) for g in range(groups)]
    with paused_gc():
        for g, p in zip(group.tolist(), prompt.tolist(), strict=True):
            own = -(-p // block) - shared
            hashes.append(heads[g] + tuple(range(next_id, next_id + own)))
            next_id += own
    return build_requests(
        arrival, prompt, sample_lengths(rng, output, cv, count),
        tenant=[f"g{g}" for g in group.tolist()], prefix_hashes=hashes, prefix_block_tokens=block,
    )


def tenants(
    rps: float, n: int | None = None, duration: float | None = None, *, k: int = 8,
    weights: Sequence[float] | None = None, skew: float = 0.0, prompt: float = 1000,
    output: float = 200, cv: float = 0.0, seed: int = 0,
) -> list[Request]:
    """Poisson arrivals from ``k`` tenants ``t0..``, sharing the rate by ``weights`` (or by
    Zipf ``skew`` when no weights are given)."""
    rng = np.random.default_rng(seed)
    arrival = gamma_arrivals(rng, rps, 1.0, n, duration)
    count = len(arrival)
    share = _weights(k, weights, skew)
    names = [f"t{i}" for i in range(len(share))]
    owner = rng.choice(len(share), size=count, p=share)
    return build_requests(
        arrival, sample_lengths(rng, prompt, cv, count), sample_lengths(rng, output, cv, count),
        tenant=[names[i] for i in owner.tolist()],
    )


def _weights(k: int, weights: Sequence[float] | None, skew: float) -> np.ndarray:
    if weights is not None:
        w = np.asarray(weights, dtype=np.float64)
        if len(w) == 0 or np.any(w < 0) or w.sum() <= 0:
            raise WorkloadError(f"tenant weights must be >= 0 with a positive sum: {weights}")
        return w / w.sum()
    if k < 1:
        raise WorkloadError(f"need at least one tenant, got k={k}")
    return _zipf(k, skew)


def _zipf(k: int, skew: float) -> np.ndarray:
    w = 1.0 / np.arange(1, k + 1, dtype=np.float64) ** skew
    return w / w.sum()


def _check_rate(rps: float) -> None:
    if not rps > 0 or not math.isfinite(rps):
        raise WorkloadError(f"rate must be a positive number of requests per second, got {rps}")


def _count(rps: float, n: int | None, duration: float | None) -> int:
    if n is None and duration is None:
        raise WorkloadError("give n (a request count) or duration (seconds)")
    if n is not None and n < 1:
        raise WorkloadError(f"n must be at least 1, got {n}")
    if duration is not None and duration <= 0:
        raise WorkloadError(f"duration must be positive, got {duration}")
    if n is not None:
        return n
    # Enough draws to cover the duration with overwhelming probability; _clip trims the rest.
    mean = rps * duration
    return int(mean + 10 * math.sqrt(mean) + 100) * 4


def _clip(arrival: np.ndarray, n: int | None, duration: float | None) -> np.ndarray:
    if duration is not None:
        arrival = arrival[arrival < duration]
    return arrival[:n] if n is not None else arrival


def _finish(rng, arrival, prompt, output, prompt_cv, output_cv, tenant) -> list[Request]:
    count = len(arrival)
    return build_requests(
        arrival, sample_lengths(rng, prompt, prompt_cv, count),
        sample_lengths(rng, output, output_cv, count), tenant=_same(tenant, count),
    )


def _same(tenant: str, count: int) -> list[str] | None:
    return None if tenant == "default" else [tenant] * count
