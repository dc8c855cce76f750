"""Backends with an API key and extra headers (issue 19): a gateway in front of a vLLM started
with --api-key, or of a hosted OpenAI-compatible endpoint."""

from __future__ import annotations

import json

import httpx
import pytest
from builders import chat

from tokenpilot.config_section import from_mapping
from tokenpilot.gateway.app import create_app
from tokenpilot.gateway.config import BackendConfig, ConfigError, GatewayConfig
from tokenpilot.gateway.simbackend import SimConfig, create_sim_app

KEY = "sk-upstream-1"


def backend(**kw) -> BackendConfig:
    return from_mapping(BackendConfig, {"url": "http://127.0.0.1:1", **kw}, "backends[0]",
                        ConfigError)


def test_api_key_and_headers_are_read_and_checked(monkeypatch):
    b = backend(api_key=KEY, headers={"X-Org": "team-a"})
    assert b.upstream_headers == {"Authorization": f"Bearer {KEY}", "X-Org": "team-a"}
    assert KEY not in repr(b)  # a logged config does not leak the key
    monkeypatch.setenv("UPSTREAM_KEY", KEY)
    assert backend(api_key_env="UPSTREAM_KEY").upstream_headers["Authorization"].endswith(KEY)
    for kw, says in (({"api_key_env": "NOT_SET_ANYWHERE"}, "is not set"),
                     ({"api_key": "a", "api_key_env": "UPSTREAM_KEY"}, "not both"),
                     ({"headers": {"Bad Name": "x"}}, "not a valid header name"),
                     ({"headers": {"X-A": "a\r\nX-Injected: 1"}}, "line break"),
                     ({"headers": ["X-A"]}, "headers")):
        with pytest.raises(ConfigError, match=says):
            backend(**kw)


def guarded(app, seen: list):
    """``app`` behind a vLLM-style --api-key check on /v1/*, recording each request's headers."""
    async def asgi(scope, receive, send):
        if scope["type"] == "http":
            headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
            seen.append((scope["path"], headers))
            if scope["path"].startswith("/v1") and headers.get("authorization") != f"Bearer {KEY}":
                body = json.dumps({"error": {"message": "Unauthorized"}}).encode()
                await send({"type": "http.response.start", "status": 401,
                            "headers": [(b"content-type", b"application/json")]})
                await send({"type": "http.response.body", "body": body})
                return
        await app(scope, receive, send)
    return asgi


@pytest.mark.e2e
def test_the_gateway_sends_the_key_and_headers_to_its_backend():
    from tokenpilot.gateway.runner import ServerPool

    seen: list = []
    with ServerPool() as pool:
        sim = pool.start(guarded(create_sim_app(SimConfig(speedup=50)), seen))
        cfg = from_mapping(GatewayConfig, {"backends": [
            {"url": sim.url, "api_key": KEY, "headers": {"X-Org": "team-a"}}]}, "gw",
            ConfigError)
        gw = pool.start(create_app(cfg))
        for stream in (False, True):
            r = httpx.post(gw.url + "/v1/chat/completions", json=chat(stream=stream),
                           timeout=10)
            assert r.status_code == 200, r.text
        bare = pool.start(create_app(from_mapping(GatewayConfig, {"backends": [sim.url]},
                                                  "gw", ConfigError)))
        r = httpx.post(bare.url + "/v1/chat/completions", json=chat(), timeout=10)
        assert r.status_code == 401  # the same backend without the key: the upstream refuses
    keyed = [(p, h) for p, h in seen if h.get("authorization") == f"Bearer {KEY}"]
    assert {p for p, _ in keyed} >= {"/health", "/metrics", "/v1/chat/completions"}
    assert all(h.get("x-org") == "team-a" for _, h in keyed)
