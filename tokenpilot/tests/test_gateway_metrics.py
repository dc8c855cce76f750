"""Metrics that miss nothing: every answer counted by status and reason, an end-to-end latency
histogram, the fleet's prefix-cache counters, no ``_created`` twins, a JSON access log."""

from __future__ import annotations

import json

import httpx
import pytest
from builders import MODEL, chat, wait_until

from tokenpilot.gateway.fleet import start_gateway, start_sims
from tokenpilot.gateway.runner import ServerPool

pytestmark = pytest.mark.e2e  # a gateway and a simulated backend on 127.0.0.1


def _value(text: str, name: str, **labels: str) -> float:
    """The sum of ``name``'s samples whose labels include ``labels``."""
    from prometheus_client.parser import text_string_to_metric_families

    total = 0.0
    for fam in text_string_to_metric_families(text):
        for s in fam.samples:
            if s.name == name and all(s.labels.get(k) == v for k, v in labels.items()):
                total += s.value
    return total


def test_every_answer_is_counted_and_logged(tmp_path) -> None:
    log = tmp_path / "access.jsonl"
    with ServerPool() as pool:
        sims = start_sims(pool, ("h100-sxm",), speedup=50)
        gw = start_gateway(pool, sims, extra={
            "tenants": {"sk-a": "acme"},
            "admission": {"tenants": {"acme": {"tokens_per_minute": 100000}}},
            "limits": {"max_body_bytes": 20000},
            "access_log": {"enabled": True, "path": str(log)}})
        key = {"Authorization": "Bearer sk-a"}
        with httpx.Client(base_url=gw.url, timeout=30) as c:
            assert c.post("/v1/chat/completions", json=chat()).status_code == 401
            assert c.post("/v1/chat/completions", json=chat(model="nope"),
                          headers=key).status_code == 404
            assert c.post("/v1/chat/completions", json=chat("x" * 30000),
                          headers=key).status_code == 413
            assert c.post("/v1/chat/completions", content=b"{not json",
                          headers=key).status_code == 400
            assert c.post("/v1/chat/completions", json=chat(max_tokens=5),
                          headers=key).status_code == 200
            r = c.post("/v1/chat/completions", json=chat(max_tokens=6, stream=True), headers=key)
            assert r.status_code == 200 and "[DONE]" in r.text
            assert c.get("/no/such/path").status_code == 404
            # The backend's prefix-cache counters, relayed per backend (next health check).
            def relayed() -> str | None:
                t = c.get("/metrics").text
                return t if _value(t, "tokenpilot_backend_prefix_cache_queries_total") else None

            text = wait_until(relayed, "the gateway to relay the backend's prefix-cache counters")
    # Every answer above is in tokenpilot_responses, under its status and reason.
    want = [("chat", "401", "invalid_api_key"), ("chat", "404", "model_not_found"),
            ("chat", "413", "body_too_large"), ("chat", "400", "invalid_json"),
            ("chat", "200", "success"), ("other", "404", "not_found")]
    for route, status, reason in want:
        assert _value(text, "tokenpilot_responses_total", route=route, status=status,
                      reason=reason) >= 1, (route, status, reason)
    assert _value(text, "tokenpilot_responses_total", route="chat", status="200") == 2
    assert _value(text, "tokenpilot_responses_total", route="chat", **{"class": "4xx"}) == 4
    # The end-to-end histogram saw every completion request, answered or refused.
    assert _value(text, "tokenpilot_request_duration_seconds_count", route="chat") == 6
    assert "_created" not in text
    # Tokens as counters; the streamed ones counted once though they are counted on the go.
    assert _value(text, "tokenpilot_completion_tokens_total", tenant="acme") == 11
    assert _value(text, "tokenpilot_tenant_tokens_per_minute_limit", tenant="acme") == 100000
    assert 'tokenpilot_backend_compute_bound_share{backend="h100-sxm-0",source="reported"}' \
        in text
    lines = [json.loads(x) for x in log.read_text().splitlines()]
    assert [x["status"] for x in lines if x["path"] == "/v1/chat/completions"] == \
        [401, 404, 413, 400, 200, 200]
    ok = [x for x in lines if x["status"] == 200 and x["path"].startswith("/v1/")]
    for x in ok:  # the fields a per-request measurement log has (tokenpilot.calibrate.logs)
        assert x["tenant"] == "acme" and x["backend"] == "h100-sxm-0" and x["model"] == MODEL
        assert x["prompt_tokens"] > 0 and x["ttft_s"] > 0 and x["latency_s"] >= x["ttft_s"]
    assert [x["output_tokens"] for x in ok] == [5, 6]
    assert ok[1]["stream"] is True and ok[1]["tpot_s"] > 0
    assert lines[0]["tenant"] is None and lines[0]["reason"] == "invalid_api_key"


def test_access_log_fields_are_configurable_and_checked(tmp_path) -> None:
    from tokenpilot.config_section import from_mapping
    from tokenpilot.gateway.config import ConfigError, GatewayConfig

    with pytest.raises(ConfigError, match="'nope' not known"):
        from_mapping(GatewayConfig, {"access_log": {"fields": ["status", "nope"]}}, "cfg",
                     ConfigError)
    log = tmp_path / "a.jsonl"
    with ServerPool() as pool:
        sims = start_sims(pool, ("h100-sxm",), speedup=50)
        gw = start_gateway(pool, sims, extra={"access_log": {
            "enabled": True, "path": str(log), "fields": ["status", "reason", "tenant"]}})
        assert httpx.post(gw.url + "/v1/chat/completions", json=chat(max_tokens=2),
                          timeout=30).status_code == 200
    assert json.loads(log.read_text()) == {"status": 200, "reason": "success",
                                           "tenant": "default"}


def test_the_loop_series_render_as_prometheus_clients_own() -> None:
    # The series the request path counts (LoopFamily: no lock per call) export exactly what
    # prometheus_client's Counter and Histogram export for the same observations: values on a
    # bucket's bound, above every bound, several label sets, in the order first used.
    from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest

    from tokenpilot.gateway.metrics import TTFT_BUCKETS, LoopFamily

    ours, theirs = CollectorRegistry(), CollectorRegistry()
    c1 = LoopFamily("x_requests", "Requests", ["a", "b"], ours)
    h1 = LoopFamily("x_seconds", "Seconds", ["a"], ours, TTFT_BUCKETS)
    c2 = Counter("x_requests", "Requests", ["a", "b"], registry=theirs)
    h2 = Histogram("x_seconds", "Seconds", ["a"], buckets=TTFT_BUCKETS, registry=theirs)
    for c in (c1, c2):
        c.labels("p", "q").inc()
        c.labels("r", "s").inc(2.5)
        c.labels("p", "q").inc(3)
    for h in (h1, h2):
        for v in (0.001, 0.0011, 0.0, 60.0, 61.0, 1e9, 0.3):
            h.labels("p").observe(v)
        h.labels("z").observe(0.02)
    assert generate_latest(ours) == generate_latest(theirs)
