"""Bad input, authentication and admission: each refusal is a clear 4xx/5xx, and the gateway
keeps serving afterwards."""

from __future__ import annotations

import httpx
import pytest
from builders import MODEL, chat, wait_until

from tokenpilot.gateway.fleet import start_gateway, start_sims
from tokenpilot.gateway.runner import ServerPool

pytestmark = pytest.mark.e2e  # every test here serves on 127.0.0.1

KEYS = {"sk-acme": "acme", "sk-beta": "beta"}


@pytest.fixture(scope="module")
def gw():
    with ServerPool() as pool:
        sims = start_sims(pool, ("h100-sxm",), speedup=50)
        handle = start_gateway(pool, sims, "least-tokens", {
            "tenants": KEYS,
            "limits": {"max_body_bytes": 100_000, "max_tokens": 4096},
            "admission": {"max_context": 8192,
                          "tenants": {"beta": {"tokens_per_minute": 600}}},
        })
        yield handle


def post(gw, body, key: str | None = "sk-acme", raw: bytes | None = None) -> httpx.Response:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    if raw is not None:
        return httpx.post(gw.url + "/v1/chat/completions", content=raw, headers=headers,
                          timeout=10)
    return httpx.post(gw.url + "/v1/chat/completions", json=body, headers=headers, timeout=10)


def error_of(r: httpx.Response) -> dict:
    err = r.json()["error"]
    assert err["message"] and err["type"]
    return err


@pytest.mark.parametrize("body, raw, status, says", [
    (None, b"{not json", 400, "not valid JSON"),
    (None, b"[1, 2]", 400, "JSON object"),
    ({"model": MODEL, "max_tokens": 4}, None, 400, "'messages' is required"),
    ({"model": MODEL, "messages": "hi"}, None, 400, "'messages' is required"),
    (chat(max_tokens=0), None, 400, "at least 1"),
    (chat(max_tokens=-5), None, 400, "at least 1"),
    (chat(max_tokens="many"), None, 400, "positive integer"),
    (chat(max_tokens=10**9), None, 400, "limit of 4096"),
    (chat(stream="yes"), None, 400, "'stream' must be true or false"),
    (chat("word " * 8000, 100), None, 400, "exceeds the maximum context of 8192"),
    ({**chat(), "model": "gpt-17"}, None, 404, "not served here"),
    (chat("x" * 200_000), None, 413, "100000-byte limit"),
])
def test_bad_input_gets_a_4xx_that_says_what_to_fix(gw, body, raw, status, says) -> None:
    r = post(gw, body, raw=raw)
    assert r.status_code == status, r.text
    assert says in error_of(r)["message"]
    # ... and the gateway keeps serving.
    assert post(gw, chat()).status_code == 200


def test_unknown_or_missing_key_is_401(gw) -> None:
    for key in ("sk-nope", None):
        r = post(gw, chat(), key=key)
        assert r.status_code == 401
        assert "API key" in error_of(r)["message"]


def test_rate_limit_is_429_with_retry_after_and_per_tenant(gw) -> None:
    """beta's bucket (600 tokens/min) runs dry; acme's budget is untouched by it."""
    codes = [post(gw, chat("z" * 400, 50), key="sk-beta") for _ in range(8)]
    limited = [r for r in codes if r.status_code == 429]
    assert limited, [r.status_code for r in codes]
    assert int(limited[0].headers["retry-after"]) >= 1
    assert error_of(limited[0])["code"] == "rate_limited"
    assert post(gw, chat("z" * 400, 50), key="sk-acme").status_code == 200
    metrics = httpx.get(gw.url + "/metrics").text
    assert 'tokenpilot_rejections_total{reason="rate_limited",tenant="beta"}' in metrics


def test_no_healthy_backend_is_503() -> None:
    with ServerPool() as pool:
        sims = start_sims(pool, ("l40s",), speedup=50)
        gw = start_gateway(pool, sims, "round-robin",
                           {"health": {"interval_ms": 50, "timeout_s": 0.5}})
        pool.stop(sims[0])
        backend = gw.app.state.gateway.backends[0]
        wait_until(lambda: not backend.available, "the health check to take the backend out")
        r = post(gw, chat(), key=None)
        assert r.status_code == 503
        assert "retry-after" in r.headers
        assert "no healthy backend" in error_of(r)["message"]
        assert httpx.get(gw.url + "/health").status_code == 503


def test_unknown_route_and_method_are_json_errors(gw) -> None:
    r = httpx.get(gw.url + "/v1/chat/completions")
    assert r.status_code == 405 and error_of(r)
    r = httpx.get(gw.url + "/v2/nothing")
    assert r.status_code == 404 and error_of(r)


@pytest.mark.parametrize("content_type, status", [
    ("text/plain", 415), ("application/x-www-form-urlencoded", 415),
    ("application/json; charset=utf-8", 200), ("application/vnd.api+json", 200),
])
def test_a_body_declared_as_something_else_than_json_gets_415(gw, content_type, status) -> None:
    import json

    r = httpx.post(gw.url + "/v1/chat/completions", content=json.dumps(chat()).encode(),
                   headers={"Authorization": "Bearer sk-acme", "Content-Type": content_type},
                   timeout=10)
    assert r.status_code == status, r.text
    if status == 415:
        assert "application/json" in error_of(r)["message"]


def test_the_simulated_backend_names_the_prompt_length_and_the_context() -> None:
    import json

    with ServerPool() as pool:
        (sim,) = start_sims(pool, ("h100-sxm",), model="llama-2-7b", speedup=50)
        url = sim.url + "/v1/chat/completions"
        long = {**chat("word " * 5000, 16), "model": "llama-2-7b"}
        r = httpx.post(url, json=long, timeout=10)
        assert r.status_code == 400
        msg = error_of(r)["message"]
        assert "the prompt is" in msg and "context is 4096 tokens" in msg, msg
        r = httpx.post(url, content=json.dumps(long).encode(),
                       headers={"Content-Type": "text/plain"}, timeout=10)
        assert r.status_code == 415
