"""``/dashboard`` in a real browser: Debian's Chromium driven by Selenium (chromium-driver)
against a gateway over simulated backends under load.

The DOM shows numbers that change as load runs, a killed backend shown down within its health
interval, and the swap marker once a backend is pushed into swapping. A screenshot of the page
is saved to ``tmp/artifacts/dashboard.png`` at the top of the checkout (not committed; the
folder is ignored), or under ``$TOKENPILOT_ARTIFACTS``.
"""

from __future__ import annotations

import gc
import json
import os
import re
import shutil
import threading
import time
from pathlib import Path

import httpx
import pytest
from builders import MODEL, wait_until

from tokenpilot.gateway.app import create_app
from tokenpilot.gateway.fleet import gateway_config, start_sims
from tokenpilot.gateway.runner import ServerPool
from tokenpilot.gateway.simbackend import SimConfig, create_sim_app

webdriver = pytest.importorskip("selenium.webdriver", reason="selenium not installed (the "
                                "dev extra)")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(CHROMIUM is None or DRIVER is None, reason="no chromium/chromedriver on "
                       "PATH (apt-get install chromium chromium-driver)"),
]
ARTIFACTS = Path(os.environ.get("TOKENPILOT_ARTIFACTS")
                 or Path(__file__).resolve().parents[2] / "tmp" / "artifacts")
HEALTH_MS, SAMPLE_MS = 300, 250


def _browser():
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    opts = Options()
    opts.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1400,1400"):
        opts.add_argument(arg)
    return webdriver.Chrome(service=Service(DRIVER), options=opts)


def _load(url: str, stop: threading.Event, deadline: float, body: dict, every_s: float,
          key: str = "", spawned: list | None = None) -> None:
    """Streamed requests, one every ``every_s``, each on its own thread (added to ``spawned``),
    until ``stop`` or ``deadline`` (bounded: at most (deadline - now) / every_s requests)."""
    headers = {"Authorization": f"Bearer {key}"} if key else {}

    def one() -> None:
        try:
            with httpx.stream("POST", url + "/v1/chat/completions", json=body, headers=headers,
                              timeout=30) as r:
                for _ in r.iter_bytes():
                    pass
        except httpx.HTTPError:
            pass  # a killed backend's streams end badly: that is part of the test

    while not stop.is_set() and time.monotonic() < deadline:
        t = threading.Thread(target=one, daemon=True)
        t.start()
        if spawned is not None:
            spawned.append(t)
        stop.wait(every_s)


def _text(driver, css: str) -> str:
    """The text of the first element ``css`` selects, "" if none: read in the page in one go
    (the page re-renders every poll, so a found element may be gone a moment later)."""
    return driver.execute_script(
        "const e = document.querySelector(arguments[0]); return e ? e.textContent.trim() : ''",
        css)


def _number(text: str) -> float | None:
    m = re.search(r"[-\d.]+", text.replace("k", ""))
    return float(m.group()) * (1000 if "k" in text else 1) if m else None


def test_dashboard_live_in_chromium() -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    stop = threading.Event()
    threads: list[threading.Thread] = []
    try:
        _run(stop, threads)
    finally:
        _end(stop, threads)


def _run(stop: threading.Event, threads: list[threading.Thread]) -> None:
    with ServerPool() as pool:
        sims = start_sims(pool, ("h100-sxm", "a100-80gb"), speedup=10)
        # A small KV pool that swaps when preempted: pushed into swapping on purpose below.
        tight = pool.start(create_sim_app(SimConfig(gpu="l40s", speedup=10, name="l40s-tight",
                                                    gpu_memory_utilization=0.4,
                                                    preemption="swap")))
        cfg = gateway_config([*sims, tight], "least-requests",
                             tenants={"sk-acme": "acme", "sk-beta": "beta"},
                             admission={"tenants": {"acme": {"tokens_per_minute": 400000},
                                                    "beta": {"tokens_per_minute": 300}}},
                             health={"interval_ms": HEALTH_MS},
                             dashboard={"admin_keys": ["sk-ops"], "sample_ms": SAMPLE_MS})
        gw = pool.start(create_app(cfg))
        # Tenants configured: the dashboard needs the admin key; a tenant's key is not one.
        assert httpx.get(gw.url + "/dashboard/data").status_code == 401
        assert httpx.get(gw.url + "/dashboard/data",
                         headers={"Authorization": "Bearer sk-acme"}).status_code == 401
        body = {"model": MODEL, "messages": [{"role": "user", "content": "hello " * 300}],
                "max_tokens": 60, "stream": True}
        t_end = time.monotonic() + 60
        loaders = [threading.Thread(target=_load, args=(gw.url, stop, t_end, body, 0.04,
                                                        "sk-acme", threads), daemon=True),
                   threading.Thread(target=_load, args=(gw.url, stop, t_end, body, 0.5,
                                                        "sk-beta", threads), daemon=True)]
        for t in loaders:
            t.start()
        threads.extend(loaders)
        driver = _browser()
        try:
            driver.get(gw.url + "/dashboard?key=sk-ops")  # sets the cookie, drops the key
            assert driver.current_url.endswith("/dashboard")
            # Numbers present, and changing as the load runs.
            first = wait_until(lambda: _number(_text(driver, "#fleet-gen .v")),
                               "generation tokens/s on the page", timeout=15, interval=0.1)
            seen = {first}
            wait_until(lambda: seen.add(_number(_text(driver, "#fleet-gen .v"))) or
                       len(seen) >= 3, "the generation rate to change", 15, 0.1)
            wait_until(lambda: _number(_text(driver, '#backends tr[data-backend="h100-sxm-0"] '
                                             '.gen')), "h100-sxm-0's generation rate", 15, 0.1)
            assert _text(driver, '#backends tr[data-backend="h100-sxm-0"] .status') == "up"
            assert "%" in _text(driver, "#fleet-kv .v")
            # The over-budget tenant: its rejections by reason, its use against its budget.
            wait_until(lambda: _text(driver, '#reasons tr[data-rejection="rate_limited"]'),
                       "rate_limited rejections on the page", 15, 0.1)
            assert "acme" in _text(driver, "#tenants")
            # A killed backend is shown down within its health interval: the gateway sees it
            # within HEALTH_MS of the kill (ServerPool.kill itself may take a while: it waits
            # for the server task), the page within a sample and a poll (both SAMPLE_MS) of
            # that; the slack is for a 2-core machine other jobs share (the page took 0.1-0.4 s
            # on quiet moments, 1.6-1.7 s with a load average of 11).
            row = '#backends tr[data-backend="a100-80gb-1"] .status'
            assert _text(driver, row) == "up"
            gateway = gw.app.state.gateway
            assert gateway.backends[1].name == "a100-80gb-1"
            t_kill = time.monotonic()
            pool.kill(sims[1])
            t_dead = time.monotonic()
            wait_until(lambda: not gateway.backends[1].healthy, "the gateway to see it down",
                       10, 0.01)
            t_seen = time.monotonic()
            wait_until(lambda: _text(driver, row) == "down", "the killed backend shown down",
                       10, 0.02)
            t_shown = time.monotonic()
            why = (f"killing took {t_dead - t_kill:.2f} s; the gateway saw it down "
                   f"{t_seen - t_dead:.2f} s after, the page {t_shown - t_seen:.2f} s after that")
            assert t_seen - t_dead <= HEALTH_MS / 1000 + 0.5, why
            assert t_shown - t_seen <= 2 * SAMPLE_MS / 1000 + 2.0, why
            # Push the tight backend into swapping: long requests straight at it.
            assert not _text(driver, '.swap-marker[data-backend="l40s-tight"]')
            heavy = {"model": MODEL, "messages": [{"role": "user", "content": "word " * 6000}],
                     "max_tokens": 3000, "stream": True}
            pusher = threading.Thread(target=_load, args=(tight.url, stop,
                                                          time.monotonic() + 8, heavy, 0.05, "",
                                                          threads), daemon=True)
            pusher.start()
            threads.append(pusher)
            wait_until(lambda: _text(driver, '.swap-marker[data-backend="l40s-tight"]'),
                       "the swap marker for l40s-tight", 30, 0.1)
            assert "started swapping" in _text(driver, "#swaps")
            time.sleep(1.0)  # a few more points on the charts for the screenshot
            driver.save_screenshot(str(ARTIFACTS / "dashboard.png"))
            assert not _text(driver, "#error")
        finally:
            stop.set()
            for t in loaders:
                t.join(10)  # no new client threads once the pool closes
            driver.quit()


def test_dashboard_on_the_admin_listener_keeps_its_ring_from_the_newest_points() -> None:
    """The page on ``dashboard.listen``, under load: numbers that change, and the ring it
    builds from ``?since=`` answers (the newest point each) equal to the whole ring the
    gateway's port answers for the same point."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    stop = threading.Event()
    threads: list[threading.Thread] = []
    try:
        with ServerPool() as pool:
            sims = start_sims(pool, ("h100-sxm", "a100-80gb"), speedup=10)
            cfg = gateway_config(sims, "least-requests", tenants={"sk-acme": "acme"},
                                 dashboard={"admin_keys": ["sk-ops"], "sample_ms": SAMPLE_MS,
                                            "history_s": 10, "listen": "127.0.0.1:0"})
            gw = pool.start(create_app(cfg))
            admin = gw.app.state.gateway.admin
            body = {"model": MODEL, "messages": [{"role": "user", "content": "hello " * 300}],
                    "max_tokens": 60, "stream": True}
            loader = threading.Thread(target=_load, args=(gw.url, stop, time.monotonic() + 40,
                                                          body, 0.04, "sk-acme", threads),
                                      daemon=True)
            loader.start()
            threads.append(loader)
            driver = _browser()
            try:
                driver.get(admin.url + "/dashboard?key=sk-ops")
                assert driver.current_url == admin.url + "/dashboard"
                first = wait_until(lambda: _number(_text(driver, "#fleet-gen .v")),
                                   "generation tokens/s on the page", timeout=15, interval=0.1)
                seen = {first}
                wait_until(lambda: seen.add(_number(_text(driver, "#fleet-gen .v"))) or
                           len(seen) >= 3, "the generation rate to change", 15, 0.1)
                # Past the 10 s ring (40 points): the page trims as the gateway does.
                wait_until(lambda: driver.execute_script("return kept.seq") > 45,
                           "the ring to fill", 30, 0.2)
                ops = {"Authorization": "Bearer sk-ops"}
                # The page's ring at its seq against the gateway's whole ring, read just after:
                # on a loaded machine the page can trail by a poll or two all along (CI: 96 vs
                # 98 through a 15 s wait), so the rings are compared over the points both hold
                # (the page's newest points are the gateway's, k points back), exactly when
                # some poll catches the page at the gateway's point.
                best = None
                deadline = time.monotonic() + 15
                while time.monotonic() < deadline:
                    mine = json.loads(driver.execute_script(
                        "return JSON.stringify({seq: kept.seq, since: kept.since, t: kept.t, "
                        "fleet: kept.fleet, responses: kept.responses, backends: "
                        "Object.fromEntries(kept.backends.map(b => [b.name, b.series]))})"))
                    whole = httpx.get(gw.url + "/dashboard/data", headers=ops).json()
                    lag = whole["seq"] - mine["seq"]
                    if lag >= 0 and (best is None or lag < best[0]):
                        best = (lag, mine, whole)
                    if lag == 0:
                        break
                    time.sleep(0.03)
                assert best is not None, "the page was ahead of the gateway in every poll"
                lag, mine, whole = best
                assert lag <= 8, f"the page trailed the gateway by {lag} points at best"
                assert mine["since"] is not None, "the page did not ask for the newest points"
                assert len(mine["t"]) == 40
                theirs = {"t": whole["t"], "fleet": whole["fleet"],
                          "responses": whole["responses"],
                          "backends": {b["name"]: b["series"] for b in whole["backends"]}}
                ours = {key: mine[key] for key in theirs}
                assert _apart(ours, theirs, lag) == [], f"the rings differ ({lag} points apart)"
                driver.save_screenshot(str(ARTIFACTS / "dashboard-admin.png"))
                assert not _text(driver, "#error")
            finally:
                stop.set()
                loader.join(10)
                driver.quit()
    finally:
        _end(stop, threads)


def _apart(mine, whole, lag: int, path: str = "") -> list[str]:
    """Where the page's ring (``mine``) and the gateway's (``whole``, ``lag`` points newer)
    differ over the points both hold: each series of the page from its ``lag``-th point on
    against the gateway's up to its ``lag``-th newest. A series one side lacks (new in the
    newest points, or gone from the ring) holds zeros over those points on the other."""
    if isinstance(whole, list) or isinstance(mine, list):
        a = mine[lag:] if mine is not None else None
        b = whole[:len(whole) - lag] if whole is not None else None
        if a is None:
            return [] if not any(b) else [path]
        if b is None:
            return [] if not any(a) else [path]
        return [] if a == b else [path]
    out: list[str] = []
    for key in sorted(set(mine or {}) | set(whole or {})):
        out += _apart((mine or {}).get(key), (whole or {}).get(key), lag, f"{path}/{key}")
    return out


def _end(stop: threading.Event, threads: list[threading.Thread]) -> None:
    """Every client thread ends before the test does (the servers are gone, so at once): none
    may outlive it into the next test or pytest's own teardown. The killed server's pending
    lifespan task is finalized here, not in whatever pytest runs next (Python 3.11 fails an
    ast.parse that a finalizer interrupts)."""
    stop.set()
    for t in threads:
        t.join(10)
    gc.collect()
    assert not any(t.is_alive() for t in threads), "a load thread did not end"
