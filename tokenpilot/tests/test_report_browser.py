"""The HTML report as a person sees it: rendered by headless Chromium in a 1400 px window.

Skipped where no Chromium is installed (``.ci/run`` installs Debian's ``chromium``)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest
from builders import fleet_runs

from tokenpilot.report import write_report

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no chromium on PATH (apt-get install "
                                "chromium) to render the report")

# Appended to a copy of the page: it writes what the layout came to into the DOM, which
# --dump-dom prints once the page (and its images) have loaded.
PROBE = """<script>window.addEventListener('load', () => {
  const r = {viewport: document.documentElement.clientWidth,
             page: document.documentElement.scrollWidth,
             tables: [...document.querySelectorAll('table')].map(t => ({
               width: t.getBoundingClientRect().right,
               box: t.parentElement.clientWidth, inner: t.parentElement.scrollWidth})),
             pres: [...document.querySelectorAll('pre')].map(p => [p.clientWidth, p.scrollWidth]),
             images: [...document.images].map(i => [i.getAttribute('src'), i.naturalWidth,
                                                    i.getBoundingClientRect().right])};
  const pre = document.createElement('pre'); pre.id = 'probe';
  pre.textContent = JSON.stringify(r); document.body.appendChild(pre);
});</script>"""


def _layout(index, tmp_path) -> dict:
    probe = index.parent / "probe.html"
    probe.write_text(index.read_text(encoding="utf-8").replace("</body>", PROBE + "</body>"),
                     encoding="utf-8")
    out = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--allow-file-access-from-files",
         "--window-size=1400,900", "--virtual-time-budget=5000", f"--user-data-dir={tmp_path}/u",
         "--dump-dom", probe.as_uri()],
        capture_output=True, text=True, timeout=120, check=False)
    m = re.search(r'<pre id="probe">(.*?)</pre>', out.stdout, re.S)
    assert m, f"chromium printed no layout (exit {out.returncode}): {out.stderr[-500:]}"
    return json.loads(m.group(1).replace("&quot;", '"').replace("&amp;", "&"))


def test_the_comparison_report_fits_a_1400px_window_with_every_plot_loaded(tmp_path):
    sims, metrics = fleet_runs(("round-robin", "least-requests", "earliest-completion"))
    index = write_report(tmp_path / "report", sims, metrics)
    layout = _layout(index, tmp_path)
    assert layout["page"] <= layout["viewport"], layout  # no sideways scrolling of the page
    assert layout["tables"], layout
    for t in layout["tables"]:
        assert t["inner"] <= t["box"], f"a table is cut off in a 1400 px window: {t}"
    assert len(layout["images"]) >= 2, layout
    for src, natural, right in layout["images"]:
        assert natural > 0, f"{src} did not load"
        assert right <= layout["viewport"], f"{src} is wider than the window"


def test_a_scenario_page_wraps_its_long_notes_instead_of_scrolling(tmp_path):
    sims, metrics = fleet_runs(("round-robin",), n=100)
    note = "- " + "a note a reader must see whole, " * 12
    index = write_report(tmp_path / "report", sims, metrics,
                         summary="router  goodput/s\nround-robin  5.0\n\n" + note)
    layout = _layout(index, tmp_path)
    assert layout["pres"], layout
    for client, scroll in layout["pres"]:
        assert scroll <= client, f"a text block scrolls sideways: {scroll} > {client} px"
