"""The dashboard's arithmetic and its door: percentiles from buckets, imbalance, the admin key."""

from __future__ import annotations

import asyncio
import json
import math
import sys
import threading
import time

import httpx
import pytest
from builders import chat

from tokenpilot.gateway.dashboard import (
    BACKEND_SERIES,
    FLEET_SERIES,
    BadSince,
    Columns,
    Raw,
    accepts_gzip,
    dumps_with_raw,
    imbalance,
    quantile,
    since_of,
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
    kept = None  # what a page polling ``?since=`` holds (``merge``, as dashboard.html does)
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
        data = json.loads(body(live))
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
        # A page that has the ring gets the newest point alone, and what it merges is the ring.
        if kept is not None:
            part = json.loads(body(live, since=kept["seq"]))
            assert part["since"] == part["seq"] - 1 and len(part["t"]) == 1
            kept = merge(kept, part)
            assert _series(kept) == _series(data)
            again = json.loads(body(live, since=kept["seq"]))  # nothing new: the same point
            assert _series(merge(kept, again)) == _series(data)
        else:
            kept = data
        assert data["since"] is None and data["seq"] == live.columns.n
    # A gap (or a seq from another gateway's life) gets the whole ring.
    assert json.loads(body(live, since=kept["seq"] - 2))["since"] is None
    assert json.loads(body(live, since=kept["seq"] + 1))["since"] is None
    # The error outcome's counter stays: a rate of 0 since, as a scrape would show it.
    assert data["fleet"]["rps"]["upstream_error"][-1] == 0.0
    assert data["backends"][0]["series"]["prompt"][-1] > 0
    # Polled no more, the sampler stops making the JSON; the next poll makes it at once.
    for _ in range(4):
        live.sample()
    assert live.snapshot is None
    assert json.loads(body(live))["t"] == [p["t"] for p in live.points]


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


def _series(d: dict) -> dict:
    return {"t": d["t"], "fleet": d["fleet"], "responses": d["responses"],
            "backends": {b["name"]: b["series"] for b in d["backends"]}}


def merge(kept: dict, d: dict) -> dict:
    """dashboard.html's ``merge``: the newest points of ``d`` appended to ``kept``'s series,
    a series new in a group padded with zeros, one ``d`` lacks dropped, the ring trimmed."""
    if d["since"] is None:
        return d
    assert d["since"] <= kept["seq"] <= d["seq"] and d["run"] == kept["run"]
    k, keep, n = d["seq"] - kept["seq"], d["ring"], len(kept["t"])

    def tail(old: list, add: list) -> list:
        a = old + add[len(add) - k:] if k > 0 else list(old)
        return a[-keep:]

    def group(old: dict, add: dict) -> dict:
        return {key: tail(old.get(key, [0] * n), v) for key, v in add.items()}

    d = json.loads(json.dumps(d))
    d["t"] = tail(kept["t"], d["t"])
    d["fleet"] = {key: group(kept["fleet"]["rps"], v) if key == "rps" else
                  tail(kept["fleet"][key], v) for key, v in d["fleet"].items()}
    old = {b["name"]: b["series"] for b in kept["backends"]}
    for b in d["backends"]:
        b["series"] = {key: group(old[b["name"]]["rps"], v) if key == "rps" else
                       tail(old[b["name"]][key], v) for key, v in b["series"].items()}
    d["responses"] = group(kept["responses"], d["responses"])
    return d


def test_since_and_accept_encoding_are_read_or_refused_in_one_line() -> None:
    assert since_of(b"") is None and since_of(b"x=1") is None and since_of(b"since=") is None
    assert since_of(b"a=b&since=42") == 42 and since_of("since=0") == 0
    for bad in (b"since=-1", b"since=1.5", b"since=abc", b"since=" + b"9" * 30,
                b"since=%C2%B2", b"since=%D9%A3"):  # digits to str.isdigit, not to int()
        with pytest.raises(BadSince, match="not a point's sequence number"):
            since_of(bad)
    assert accepts_gzip("gzip, deflate, br") and accepts_gzip("br;q=1.0, gzip;q=0.5")
    assert accepts_gzip("*") and not accepts_gzip("gzip;q=0") and not accepts_gzip("br")
    assert not accepts_gzip(None) and not accepts_gzip("gzip;q=x")


@pytest.mark.e2e
def test_the_admin_listener_serves_the_same_dashboard_behind_the_same_key(tmp_path) -> None:
    import gzip

    from tokenpilot.gateway.fleet import start_gateway, start_sims
    from tokenpilot.gateway.runner import ServerPool

    before = sys.getswitchinterval()
    with ServerPool() as pool:
        sims = start_sims(pool, ("h100-sxm",), speedup=50)
        gw = start_gateway(pool, sims, extra={
            "tenants": {"sk-a": "acme"}, "dashboard": {"admin_keys": ["sk-ops"],
                                                     "sample_ms": 100, "listen": "0"}})
        admin = gw.app.state.gateway.admin
        assert sys.getswitchinterval() == pytest.approx(0.0002, rel=0.01)  # gil_switch_ms
        assert admin is not None and admin.url.startswith("http://127.0.0.1:")
        assert admin.url != gw.url
        ops = {"Authorization": "Bearer sk-ops"}
        # Each admin answer is counted on the serving loop's thread, not the admin thread's
        # (the metrics' label dicts and the access log are the serving loop's).
        gateway, threads = gw.app.state.gateway, []
        serving = asyncio.run_coroutine_threadsafe(_thread_id(), admin._main).result(10)
        counted = gateway.responded

        def responded(route, ex):
            threads.append(threading.get_ident())
            counted(route, ex)

        gateway.responded = responded
        assert httpx.post(gw.url + "/v1/chat/completions", json=chat(max_tokens=3),
                          headers={"Authorization": "Bearer sk-a"}, timeout=30).status_code == 200
        # The same door: no key, a tenant's key, a wrong key refused; the admin key let in.
        for headers in ({}, {"Authorization": "Bearer sk-a"}, {"Authorization": "Bearer x"}):
            for path in ("/dashboard", "/dashboard/data"):
                r = httpx.get(admin.url + path, headers=headers)
                assert r.status_code == 401 and r.json()["error"]["code"] == "invalid_admin_key"
        with httpx.Client(base_url=admin.url) as c:  # ?key= once: a cookie, then no key
            r = c.get("/dashboard?key=sk-ops", follow_redirects=True)
            assert r.status_code == 200 and "{{" not in r.text and 'id="tiles"' in r.text
            assert c.get("/dashboard/data").status_code == 200
        assert httpx.get(admin.url + "/v1/models", headers=ops).status_code == 404
        r = httpx.get(admin.url + "/dashboard/data?since=x", headers=ops)
        assert r.status_code == 400 and r.json()["error"]["param"] == "since"
        # The same data as the gateway's port: the same snapshot's bytes (a sample may come
        # between the two reads: then again), gzipped when asked, the newest point by since.
        plain = {**ops, "Accept-Encoding": "identity"}
        # Kept-alive clients, and a bound in time (a loaded machine can take longer than one
        # 100 ms sample over two fresh connections, try after try).
        with httpx.Client(headers=plain) as ca, httpx.Client(headers=plain) as cm:
            end = time.monotonic() + 20
            while True:
                a = ca.get(admin.url + "/dashboard/data")
                m = cm.get(gw.url + "/dashboard/data")
                if a.json()["seq"] == m.json()["seq"] or time.monotonic() > end:
                    break
        assert a.content == m.content and a.headers.get("content-encoding") is None
        assert a.json()["backends"][0]["name"] == "h100-sxm-0"
        z = httpx.get(admin.url + "/dashboard/data", headers={**ops, "Accept-Encoding": "gzip"})
        assert z.headers["content-encoding"] == "gzip" and z.json()["since"] is None
        seq = z.json()["seq"]
        part = httpx.get(admin.url + f"/dashboard/data?since={seq}", headers=plain).json()
        # The newest point alone, unless more than one came since (a slow machine): the ring.
        if part["seq"] - 1 <= seq:
            assert part["since"] == part["seq"] - 1 and len(part["t"]) == 1
        else:
            assert part["since"] is None and len(part["t"]) > 2
        with httpx.stream("GET", gw.url + "/dashboard/data",
                          headers={**ops, "Accept-Encoding": "gzip"}) as raw:
            body = b"".join(raw.iter_raw())  # as sent: gzip's own bytes
        assert raw.headers["content-encoding"] == "gzip"
        assert json.loads(gzip.decompress(body))["seq"] >= seq
        # The gateway's metrics count the admin listener's answers too (only it saw 401s),
        # once the serving loop has run the counts handed to it.
        for _ in range(50):
            refused = [line for line in httpx.get(gw.url + "/metrics").text.splitlines()
                       if line.startswith("tokenpilot_responses_total{")
                       and 'reason="invalid_admin_key"' in line and 'route="dashboard"' in line]
            if refused and float(refused[0].rsplit(" ", 1)[1]) >= 6:
                break
            time.sleep(0.02)
        assert refused and float(refused[0].rsplit(" ", 1)[1]) >= 6
        assert len(threads) >= 6 and set(threads) == {serving}
        # A Unix socket: the same answers there.
        sock = str(tmp_path / "admin.sock")
        ugw = start_gateway(pool, sims, extra={"dashboard": {"listen": f"unix:{sock}"}})
        assert ugw.app.state.gateway.admin.url == f"unix:{sock}"
        with httpx.Client(transport=httpx.HTTPTransport(uds=sock)) as c:
            assert c.get("http://admin/dashboard/data").json()["backends"][0]["name"] == \
                "h100-sxm-0"
        pool.stop(ugw)
        assert not (tmp_path / "admin.sock").exists()
    assert sys.getswitchinterval() == before  # as it was once the listeners stopped


def body(live, since=None) -> bytes:
    """A poll's body as the serving loop answers it (``Snapshot.answer``), not gzipped."""
    return live.latest().answer(since, False)[0]


async def _thread_id() -> int:
    return threading.get_ident()


def test_a_bad_admin_listen_address_is_one_line() -> None:
    from tokenpilot.config_section import from_mapping
    from tokenpilot.gateway.config import ConfigError, GatewayConfig, admin_address

    assert admin_address("9090") == ("127.0.0.1", 9090)
    assert admin_address(":9090") == ("127.0.0.1", 9090)
    assert admin_address("0.0.0.0:1") == ("0.0.0.0", 1)
    assert admin_address("[::1]:9090") == ("::1", 9090)
    assert admin_address("/run/tp.sock") == "/run/tp.sock" == admin_address("unix:/run/tp.sock")
    for bad in ("host:", "x:99999", "localhost", "unix:", "::1:80:x"):
        with pytest.raises(ConfigError, match="listen"):
            from_mapping(GatewayConfig, {"backends": ["http://127.0.0.1:9"],
                                         "dashboard": {"listen": bad}}, "gateway config",
                         ConfigError)
