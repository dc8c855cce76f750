"""Matplotlib figures of fleet runs (Agg backend: no display needed), saved as PNG files."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # before pyplot: a headless backend for servers and CI
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter  # noqa: E402

from tokenpilot.cluster.sim import SimResult  # noqa: E402

MAX_POINTS = 2000  # per line: enough for a smooth curve, small PNGs


def _latencies(sim: SimResult) -> dict[str, np.ndarray]:
    rs = [r for r in sim.results.values() if not r.rejected]
    ttft = np.array([r.ttft for r in rs])
    tpot = np.array([r.tpot for r in rs if r.output_tokens > 1])
    e2e = np.array([r.e2e for r in rs])
    return {"TTFT (s)": ttft, "TPOT (s)": tpot, "end-to-end (s)": e2e}


LINESTYLES = ("-", "--", ":", "-.")


def _seconds(x: float, _pos: int = 0) -> str:
    """A log-axis tick label: ``5 ms``, ``1 s``, ``20 s``."""
    if x >= 1:
        return f"{x:g} s"
    return f"{x * 1e3:g} ms"


def _groups(sims: Sequence[SimResult]) -> list[tuple[str, dict[str, np.ndarray]]]:
    """Routers whose latencies are identical share one line, labelled ``a = b``: otherwise the
    last one drawn hides the others and the legend names lines nobody can see. The latencies
    come back sorted (each sorted once, for the comparison and the CDF alike)."""
    groups: list[tuple[list[str], dict[str, np.ndarray]]] = []
    for sim in sims:
        lat = {k: np.sort(x) for k, x in _latencies(sim).items()}
        for names, other in groups:
            if all(np.array_equal(lat[k], other[k]) for k in lat):
                names.append(sim.router)
                break
        else:
            groups.append(([sim.router], lat))
    return [(" = ".join(names), lat) for names, lat in groups]


def latency_cdfs(sims: Sequence[SimResult], path: Path, slo_ttft: float | None = None,
                 slo_tpot: float | None = None) -> Path:
    """One panel per latency, one line per router (identical ones merged), the SLOs marked."""
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.5))
    colours = plt.get_cmap("tab10").colors
    for g, (label, lat) in enumerate(_groups(sims)):
        for ax, x in zip(axes, lat.values(), strict=True):
            if x.size == 0:
                continue
            idx = np.linspace(0, x.size - 1, min(x.size, MAX_POINTS)).astype(int)
            ax.plot(x[idx], (idx + 1) / x.size, label=label, color=colours[g % 10],
                    ls=LINESTYLES[g % len(LINESTYLES)], lw=1.6)
    for ax, (label, slo) in zip(axes, (("TTFT (s)", slo_ttft), ("TPOT (s)", slo_tpot),
                                       ("end-to-end (s)", None)), strict=True):
        ax.set_xlabel(label.replace(" (s)", ""))
        if ax.lines:
            ax.set_xscale("log")
            lo, hi = ax.get_xlim()
            # 1-2-5 labels only where the axis spans two decades or less; wider, they collide
            # ("50 ms100 ms200 ms"), so label the decades alone.
            subs = (1.0, 2.0, 5.0) if np.log10(hi / lo) <= 2 else (1.0,)
            ax.xaxis.set_major_locator(LogLocator(base=10, subs=subs))
            ax.xaxis.set_major_formatter(FuncFormatter(_seconds))
            ax.xaxis.set_minor_formatter(NullFormatter())  # 2x10^-2, 3x10^-2...: unreadable
        if slo is not None:
            ax.axvline(slo, color="#b22", lw=1, ls="--", label=f"SLO {_seconds(slo)}")
        ax.set_ylim(0, 1.02)
        ax.grid(alpha=0.3, which="major")
    axes[0].set_ylabel("fraction of requests")
    for ax in axes[:2]:
        if ax.lines:
            ax.legend(fontsize=8, loc="lower right")
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
    # A colour family per GPU type (tab20's pairs, then tab20b's), a line style per instance
    # within it: eight instances in eight shades of one default colour cycle cannot be told
    # apart, and the GPU type is what a reader compares.
    families = list(dict.fromkeys(sim.gpus))
    palette = plt.get_cmap("tab20").colors + plt.get_cmap("tab20b").colors
    seen: dict[str, int] = {}
    for k, s in enumerate(sim.series):
        if not len(s):
            continue
        gpu = sim.gpus[k]
        n = seen[gpu] = seen.get(gpu, -1) + 1
        style = {"color": palette[(2 * families.index(gpu) + n % 2) % len(palette)],
                 "ls": LINESTYLES[(n // 2) % len(LINESTYLES)], "lw": 1.0,
                 "label": sim.names[k]}
        load = np.asarray(s.running) + np.asarray(s.waiting)
        top.step(*_thin(s.t, load), where="post", **style)
        kv = np.asarray(s.kv_used) * 100.0 / max(sim.kv_blocks[k], 1)
        bottom.step(*_thin(s.t, kv), where="post", **style)
    top.set_ylabel("requests on instance")
    bottom.set_ylabel("KV blocks in use (%)")
    bottom.set_xlabel("simulated time (s)")
    top.set_title(f"router {sim.router}")
    for ax in (top, bottom):
        ax.grid(alpha=0.3)
    top.legend(fontsize=7, ncol=4, loc="upper left")
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path


def cost_attainment(points: Sequence[dict], target: float, path: Path) -> Path:
    """A plan's candidates: dollars per hour against SLO attainment, one marker per fleet
    (filled: met the SLO; the chosen one ringed), the target as a line. ``points`` are the
    plan document's ``candidates`` rows (``cost_per_hour``, ``attainment``, ``meets``,
    ``fleet``, ``source``, ``chosen``)."""
    fig, ax = plt.subplots(figsize=(10, 5.5))
    colours = plt.get_cmap("tab10").colors
    families = list(dict.fromkeys(_family(p) for p in points))
    for p in points:
        c = colours[families.index(_family(p)) % 10]
        ax.scatter(p["cost_per_hour"], p["attainment"] * 100, s=60, color=c,
                   facecolors=c if p["meets"] else "none", zorder=3)
        if p.get("chosen"):
            ax.scatter(p["cost_per_hour"], p["attainment"] * 100, s=260, facecolors="none",
                       edgecolors="#b22", lw=2, zorder=4)
        ax.annotate(p["fleet"], (p["cost_per_hour"], p["attainment"] * 100), fontsize=7,
                    xytext=(5, 3), textcoords="offset points")
    for k, fam in enumerate(families):
        ax.scatter([], [], color=colours[k % 10], label=fam)
    ax.axhline(target * 100, color="#b22", lw=1, ls="--", label=f"target {target:.1%}")
    ax.set_xlabel("cost ($ per hour)")
    ax.set_ylabel("SLO attainment in simulation (%)")
    ax.set_ylim(top=100.5)  # attainment is a share: nothing lies above 100%
    ax.set_title("candidate fleets (filled: met the SLO; ringed: the plan)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path


def _family(point: dict) -> str:
    """Where a candidate came from, without its resizing: ``milp``, ``single l40s``, ..."""
    return point["source"].split(",")[0]
