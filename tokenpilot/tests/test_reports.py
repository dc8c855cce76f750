"""Reports people look at (issue 19): plots a reader can read, tables that fit, one table per
page. The tests here check sizes, labels and structure; test_report_browser.py renders the page
in headless Chromium."""

from __future__ import annotations

import itertools
import struct

import matplotlib.pyplot as plt
import pytest
from builders import fleet_runs

from tokenpilot.report import compare_table, write_report
from tokenpilot.report.tables import unit


def png_size(path) -> tuple[int, int]:
    with open(path, "rb") as f:
        head = f.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", head[16:24])


@pytest.fixture(scope="module")
def runs():
    return fleet_runs(("round-robin", "round-robin:seed=0", "earliest-completion"))


def test_latency_cdfs_merge_identical_series_mark_the_slos_and_label_ticks_readably(
        runs, tmp_path, monkeypatch):
    from tokenpilot.report import plots

    sims, _ = runs
    figures = []
    monkeypatch.setattr(plots.plt, "close", figures.append)  # keep the figure to inspect it
    path = plots.latency_cdfs(sims, tmp_path / "cdf.png", 1.0, 0.1)
    (fig,) = figures
    ttft, tpot, e2e = fig.axes
    labels = [line.get_label() for line in ttft.lines]
    assert labels == ["round-robin = round-robin:seed=0", "earliest-completion", "SLO 1 s"]
    assert [line.get_label() for line in tpot.lines][-1] == "SLO 100 ms"
    assert len({line.get_linestyle() for line in ttft.lines[:2]}) == 2
    fig.canvas.draw()
    minor = [t.get_text() for t in ttft.get_xticklabels(minor=True)]
    assert not any(minor), minor  # no 2x10^-2-style minor labels
    major = [t.get_text() for t in ttft.get_xticklabels() if t.get_text()]
    assert major and all(t.endswith((" ms", " s")) for t in major), major
    assert png_size(path) == (1350, 405)
    plt.close(fig)


def test_instance_series_colours_each_gpu_type_apart(runs, tmp_path, monkeypatch):
    from tokenpilot.report import plots

    sims, _ = runs
    figures = []
    monkeypatch.setattr(plots.plt, "close", figures.append)
    plots.instance_series(sims[0], tmp_path / "inst.png")
    (fig,) = figures
    top = fig.axes[0]
    styles = {(line.get_color(), line.get_linestyle()) for line in top.lines}
    assert len(styles) == len(top.lines) == 8  # every instance drawn its own way
    colour_of = {}
    for line, gpu in zip(top.lines, sims[0].gpus, strict=True):
        colour_of.setdefault(gpu, set()).add(line.get_color())
    families = list(colour_of.values())
    assert all(not (a & b) for i, a in enumerate(families) for b in families[i + 1:])
    plt.close(fig)


def test_the_html_report_is_one_wide_table_and_the_scenario_page_shows_its_table_once(
        runs, tmp_path):
    sims, metrics = runs
    index = write_report(tmp_path / "cmp", sims, metrics)
    page = index.read_text()
    assert "max-width:1200px" not in page and "<table>" in page
    for head in ("goodput/s", "SLO met", "TTFT p99 ms", "makespan s"):
        assert f"<th>{head}</th>" in page
    assert "SLO met: the share of all requests" in page
    one = write_report(tmp_path / "scn", sims, metrics, summary="scenario table\nrow 1")
    text = one.read_text()
    assert text.count("scenario table") == 1 and "<table>" not in text


def test_text_tables_use_one_unit_and_precision_per_column(runs):
    _, metrics = runs
    lines = compare_table(metrics).splitlines()
    head = lines[0]
    assert "TTFT p99 ms" in head or "TTFT p99 s" in head
    assert "ms" not in "".join(lines[2:5])  # the unit is in the header, not the cells
    assert unit([0.005, 0.02])[1](0.005) == "5.0" and unit([1.5, 12.0])[0] == "s"


def test_the_instance_table_explains_its_columns(runs):
    from tokenpilot.report import metrics_json, simulate_text

    _, metrics = runs
    text = simulate_text(metrics_json(metrics[0], fleet={"name": "mixed"}, fleet_desc="mixed",
                                      workload="poisson", capacity_rps=80.0, rate_rps=20.0,
                                      load=0.25))
    assert "load: seconds of full-speed work" in text and "compute / bandwidth:" in text
    assert "ttft (ms)" in text or "ttft (s)" in text


def _overlapping_tick_labels(ax) -> list[tuple[str, str]]:
    lo, hi = ax.get_xlim()
    shown = [t for t in ax.get_xticklabels()
             if t.get_text() and lo <= t.get_position()[0] <= hi]
    boxes = [(t.get_window_extent(), t.get_text()) for t in shown]
    boxes.sort(key=lambda b: b[0].x0)
    return [(a[1], b[1]) for a, b in itertools.pairwise(boxes) if a[0].x1 > b[0].x0]


def test_latency_tick_labels_do_not_collide_on_wide_ranges(runs, tmp_path, monkeypatch):
    """Over three decades (40 ms to 30 s, as a busy fleet's end-to-end latencies span) 1-2-5
    labels ran into each other ("50 ms100 ms200 ms"): only the decades are labelled then."""
    import numpy as np

    from tokenpilot.report import plots

    sims, _ = runs
    wide = np.geomspace(0.04, 30.0, 500)
    monkeypatch.setattr(plots, "_latencies", lambda sim: {
        "TTFT (s)": wide, "TPOT (s)": np.geomspace(0.005, 0.05, 500), "end-to-end (s)": wide})
    figures = []
    monkeypatch.setattr(plots.plt, "close", figures.append)
    plots.latency_cdfs(sims[:1], tmp_path / "cdf.png", 1.0, 0.1)
    (fig,) = figures
    fig.canvas.draw()
    for ax in fig.axes:
        assert not _overlapping_tick_labels(ax), (ax.get_xlabel(), _overlapping_tick_labels(ax))
        assert len([t for t in ax.get_xticklabels() if t.get_text()]) >= 2
    plt.close(fig)
