"""The dashboard's arithmetic and its door: percentiles from buckets, imbalance, the admin key."""

from __future__ import annotations

import math

import httpx
import pytest
from builders import chat

from tokenpilot.gateway.dashboard import imbalance, quantile


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
