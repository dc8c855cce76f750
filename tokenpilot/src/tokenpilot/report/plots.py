"""Matplotlib figures of fleet runs (Agg backend: no display needed), saved as PNG files."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # before pyplot: a headless backend for servers and CI
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from tokenpilot.cluster.sim import SimResult  # noqa: E402

MAX_POINTS = 2000  # per line: enough for a smooth curve, small PNGs


def _latencies(sim: SimResult) -> dict[str, np.ndarray]:
    rs = [r for r in sim.results.values() if not r.rejected]
    ttft = np.array([r.ttft for r in rs])
    tpot = np.array([r.tpot for r in rs if r.output_tokens > 1])
    e2e = np.array([r.e2e for r in rs])
    return {"TTFT (s)": ttft, "TPOT (s)": tpot, "end-to-end (s)": e2e}


def latency_cdfs(sims: Sequence[SimResult], path: Path) -> Path:
    """One panel per latency, one line per router."""
    fig, axes = plt.subplots(1, 3, figsize=(15, 4))
    for sim in sims:
        for ax, (label, x) in zip(axes, _latencies(sim).items(), strict=True):
            if x.size == 0:
                continue
            xs = np.sort(x)
            idx = np.linspace(0, xs.size - 1, min(xs.size, MAX_POINTS)).astype(int)
            ax.plot(xs[idx], (idx + 1) / xs.size, label=sim.router)
            ax.set_xlabel(label)
            ax.set_xscale("log")
    axes[0].set_ylabel("fraction of requests")
    for ax in axes:
        ax.grid(alpha=0.3)
    axes[0].legend()
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path


def _thin(t, y) -> tuple[np.ndarray, np.ndarray]:
    t, y = np.asarray(t), np.asarray(y)
    if t.size > MAX_POINTS:
        idx = np.linspace(0, t.size - 1, MAX_POINTS).astype(int)
        t, y = t[idx], y[idx]
    return t, y


def instance_series(sim: SimResult, path: Path) -> Path:
    """Per instance over time: requests on it (running + waiting) and KV blocks in use (%)."""
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(12, 7), sharex=True)
    for k, s in enumerate(sim.series):
        if not len(s):
            continue
        load = np.asarray(s.running) + np.asarray(s.waiting)
        top.step(*_thin(s.t, load), where="post", lw=0.8, label=sim.names[k])
        kv = np.asarray(s.kv_used) * 100.0 / max(sim.kv_blocks[k], 1)
        bottom.step(*_thin(s.t, kv), where="post", lw=0.8, label=sim.names[k])
    top.set_ylabel("requests on instance")
    bottom.set_ylabel("KV blocks in use (%)")
    bottom.set_xlabel("simulated time (s)")
    top.set_title(f"router {sim.router}")
    for ax in (top, bottom):
        ax.grid(alpha=0.3)
    top.legend(fontsize=7, ncol=4)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path
