"""The dashboard's arithmetic and its door: percentiles from buckets, imbalance, the admin key."""

from __future__ import annotations

import json
import math

import httpx
import pytest
from builders import chat

from tokenpilot.gateway.dashboard import (
    BACKEND_SERIES,
    FLEET_SERIES,
    Columns,
    Raw,
    dumps_with_raw,
    imbalance,
    quantile,
)


def test_quantile_interpolates_in_buckets_as_prometheus_does() -> None:
    # 10 observations <= 0.1, 10 more in (0.1, 0.5]: the median is the first bucket's edge,
    # p75 halfway into the second, as histogram_quantile answers.
    b = {0.1: 10.0, 0.5: 20.0, math.inf: 20.0}
    assert quantile(0.5, b) == pytest.approx(0.1)
    assert quantile(0.75, b) == pytest.approx(0.3)
    assert quantile(0.99, {0.1: 0.0, 1.0: 0.0, math.inf: 5.0}) == 1.0  # beyond the last bound
    assert quantile(0.5, {0.1: 0.0, math.inf: 0.0}) is None
    assert quantile(0.5, {}) is None


def test_imbalance_is_max_over_mean() -> None:
    assert imbalance([1, 1, 1, 1]) == 1.0
    assert imbalance([4, 0, 0, 0]) == 4.0
    assert imbalance([0, 0]) is None and imbalance([]) is None


def _by_key(rows: list[dict[str, float]]) -> dict[str, list[float]]:
    keys = sorted({k for r in rows for k in r})
    return {k: [round(r.get(k, 0.0), 4) for r in rows] for k in keys}


def _r(x: float | None) -> float | None:
    return None if x is None else round(x, 4)


def test_columns_fill_what_a_point_lacks_and_drop_what_left_the_ring() -> None:
    cols = Columns(3)
    for point in ({"a": 1.0}, {"a": 2.0, "b": 5.0}, {"a": 3.0}, {}, {}, {"b": 1.23456}):
        cols.add({("x", k): v for k, v in point.items()}, 0.0)
        cols.close()
    # "a" was last in the third point, which left the 3-point ring; "b" came back.
    assert json.loads(cols.group("x").text) == {"b": [0.0, 0.0, 1.2346]}
    assert json.loads(cols.get(("x", "a"), 0.0).text) == [0.0, 0.0, 0.0]


def test_raw_json_goes_into_the_document_as_it_is_and_a_lookalike_string_stays_a_string():
    doc = {"a": Raw("[1,2]"), "b": [Raw('{"x":[null]}'), "n\0raw1"], "c": 1.5}
    assert dumps_with_raw(doc) == '{"a":[1,2],"b":[{"x":[null]},"n\\u0000raw1"],"c":1.5}'
    doc["b"][1] = "\0raw1\0"  # exactly a place's text: the slow way, still right
    assert json.loads(dumps_with_raw(doc)) == {"a": [1, 2], "b": [{"x": [None]}, "\0raw1\0"],
                                               "c": 1.5}


def test_the_polled_series_are_the_ring_of_points_and_made_only_for_an_open_page() -> None:
    # A gateway not serving (its backends' URLs answer nothing; no sampler task): its
    # registry moved by hand between samples, past the ring's length, with an outcome and a
    # response reason that appear and then stop, and a second backend that joins late.
    from tokenpilot.config_section import from_mapping
    from tokenpilot.gateway.app import create_app
    from tokenpilot.gateway.config import GatewayConfig

    app = create_app(from_mapping(GatewayConfig, {
        "backends": ["http://127.0.0.1:9", "http://127.0.0.1:10"],
        "dashboard": {"history_s": 10, "sample_ms": 1000}}, "gateway config"))
    gw = app.state.gateway
    live, (a, b) = gw.live, [be.name for be in gw.backends]
    live.sample()
    for i in range(25):
        pair = gw.metrics.of(a, "default")
        pair.prompt_tokens.inc(100 + i)
        pair.outcome("success").inc(2)
        pair.ttft.observe(0.01 * (i % 5 + 1))
        if 3 <= i < 8:
            pair.outcome("upstream_error").inc()
            gw.metrics.responded("chat", 502, "upstream_error", 0.01)
        if i >= 15:
            gw.metrics.of(b, "default").prompt_tokens.inc(7)
        live.sample()
        data = json.loads(live.data())
        pts = list(live.points)
        assert len(pts) == min(i + 1, 10)
        assert data["t"] == [p["t"] for p in pts]
        for be in data["backends"]:
            for key in BACKEND_SERIES:
                assert be["series"][key] == [_r(p["backends"][be["name"]][key]) for p in pts]
            assert be["series"]["rps"] == _by_key([p["backends"][be["name"]]["rps"]
                                                   for p in pts])
        for key in FLEET_SERIES:
            assert data["fleet"][key] == [_r(p["fleet"][key]) for p in pts]
        assert data["fleet"]["rps"] == _by_key([p["fleet"]["rps"] for p in pts])
        assert data["responses"] == _by_key([p["responses"] for p in pts])
    # The error outcome's counter stays: a rate of 0 since, as a scrape would show it.
    assert data["fleet"]["rps"]["upstream_error"][-1] == 0.0
    assert data["backends"][0]["series"]["prompt"][-1] > 0
    # Polled no more, the sampler stops making the JSON; the next poll makes it at once.
    for _ in range(4):
        live.sample()
    assert live._json == b""
    assert json.loads(live.data())["t"] == [p["t"] for p in live.points]


@pytest.mark.e2e
def test_the_dashboard_needs_an_admin_key_once_tenants_are_configured() -> None:
    from tokenpilot.gateway.fleet import start_gateway, start_sims
    from tokenpilot.gateway.runner import ServerPool

    with ServerPool() as pool:
        sims = start_sims(pool, ("h100-sxm",), speedup=50)
        open_gw = start_gateway(pool, sims)
        closed = start_gateway(pool, sims, extra={"tenants": {"sk-a": "acme"}})
        keyed = start_gateway(pool, sims, extra={"tenants": {"sk-a": "acme"},
                                                 "dashboard": {"admin_keys": ["sk-ops"]}})
        assert httpx.post(open_gw.url + "/v1/chat/completions", json=chat(max_tokens=3),
                          timeout=30).status_code == 200
        page = httpx.get(open_gw.url + "/dashboard")
        assert page.status_code == 200 and "{{" not in page.text
        # One document: nothing fetched from elsewhere (no CDN, no script or style files).
        for outside in ("<script src", "<link", "http://", "https://", "@import"):
            assert outside not in page.text, outside
        data = httpx.get(open_gw.url + "/dashboard/data").json()
        assert [b["name"] for b in data["backends"]] == ["h100-sxm-0"]
        r = httpx.get(closed.url + "/dashboard")
        assert r.status_code == 403 and "dashboard.admin_keys" in r.json()["error"]["message"]
        assert httpx.get(keyed.url + "/dashboard/data").status_code == 401
        assert httpx.get(keyed.url + "/dashboard/data",
                         headers={"Authorization": "Bearer sk-a"}).status_code == 401
        assert httpx.get(keyed.url + "/dashboard/data",
                         headers={"Authorization": "Bearer sk-ops"}).status_code == 200
        with httpx.Client(base_url=keyed.url) as c:  # ?key= once: a cookie, then no key
            r = c.get("/dashboard?key=sk-ops", follow_redirects=True)
            assert r.status_code == 200 and str(r.url).endswith("/dashboard")
            assert c.get("/dashboard/data").status_code == 200
        assert httpx.get(keyed.url + "/dashboard?key=wrong").status_code == 401
