"""The gateway in front of real llama.cpp servers: completions, token limits, context, failover."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest

from tokenpilot.config_section import from_mapping
from tokenpilot.gateway.app import create_app
from tokenpilot.gateway.config import GatewayConfig
from tokenpilot.gateway.runner import ServerPool
from tokenpilot.llamafleet import LlamaFleet, LlamaServerSpec
from tokenpilot.tokenize_gguf import GGUFTokenizer

pytestmark = pytest.mark.e2e  # every test here serves on 127.0.0.1

EXACT = {"temperature": 0, "seed": 42, "ignore_eos": True}


def gateway_cfg(fleet: LlamaFleet, model, **extra) -> GatewayConfig:
    return from_mapping(GatewayConfig, {
        "backends": fleet.backend_configs(), "tokenizer": str(model),
        "health": {"interval_ms": 100, "timeout_s": 1, "failures_to_eject": 1}, **extra},
        "gateway config")


@pytest.fixture(scope="module")
def gateway(realfleet, smollm2):
    with ServerPool() as pool:
        app = create_app(gateway_cfg(realfleet, smollm2, admission={
            "default_tenant": {"tokens_per_minute": 1_000_000}}))
        yield pool.start(app), app.state.gateway


def server_metric(url: str, name: str) -> float:
    for line in httpx.get(url + "/metrics").text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    raise AssertionError(f"{name} not in {url}/metrics")


def test_completion_usage_equals_the_servers(gateway, realfleet, smollm2) -> None:
    handle, gw = gateway
    tok = GGUFTokenizer(smollm2)
    body = {"prompt": "The three primary colors are", "max_tokens": 9, **EXACT}
    r = httpx.post(handle.url + "/v1/completions", json=body, timeout=30)
    assert r.status_code == 200, r.text
    backend = next(s for s in realfleet.servers if s.name == r.headers["x-tokenpilot-backend"])
    direct = httpx.post(backend.url + "/v1/completions", json=body, timeout=30).json()
    usage = r.json()["usage"]
    assert usage["completion_tokens"] == 9
    assert usage["prompt_tokens"] == direct["usage"]["prompt_tokens"] == tok.count(body["prompt"])
    assert r.json()["choices"][0]["text"] == direct["choices"][0]["text"]
    assert gw.last_decision[0].prompt_tokens == usage["prompt_tokens"]  # counted before routing


def test_streaming_chat_exact_length_and_usage(gateway, smollm2) -> None:
    handle, gw = gateway
    messages = [{"role": "user", "content": "Count from one to ten."}]
    body = {"messages": messages, "max_tokens": 11, "stream": True,
            "stream_options": {"include_usage": True}, **EXACT}
    with httpx.stream("POST", handle.url + "/v1/chat/completions", json=body, timeout=30) as r:
        assert r.status_code == 200
        events = [line[6:] for line in r.iter_lines() if line.startswith("data: ")]
    assert events[-1] == "[DONE]"
    chunks = [json.loads(e) for e in events[:-1]]
    usage = next(c["usage"] for c in chunks if c.get("usage"))
    assert usage["completion_tokens"] == 11
    assert usage["prompt_tokens"] == GGUFTokenizer(smollm2).count_chat(messages)
    assert gw.last_decision[0].prompt_tokens == usage["prompt_tokens"]
    text = "".join((c["choices"][0]["delta"].get("content") or "") for c in chunks
                   if c.get("choices"))
    assert text


def test_prompt_over_every_context_is_rejected_before_any_server(gateway, realfleet) -> None:  # noqa: E501
    handle, _ = gateway
    before = [server_metric(u, "llamacpp:prompt_tokens_total") for u in realfleet.urls]
    prompt = "word " * 2100  # 2100 tokens: more than the largest context here (2048)
    r = httpx.post(handle.url + "/v1/completions", json={"prompt": prompt, "max_tokens": 4},
                   timeout=30)
    assert r.status_code == 400
    assert r.json()["error"]["code"] == "context_too_long"
    after = [server_metric(u, "llamacpp:prompt_tokens_total") for u in realfleet.urls]
    assert after == before


def test_token_rate_limit_uses_real_counts(realfleet, smollm2) -> None:
    tok = GGUFTokenizer(smollm2)
    prompt = "Summarise the history of the printing press in detail, please."
    per_request = tok.count(prompt) + 4  # charged up front: prompt + max_tokens
    cfg = gateway_cfg(realfleet, smollm2, admission={
        "default_tenant": {"tokens_per_minute": 3 * per_request}})
    with ServerPool() as pool:
        handle = pool.start(create_app(cfg))
        codes = [httpx.post(handle.url + "/v1/completions", timeout=30, json={
            "prompt": prompt, "max_tokens": 4, **EXACT}).status_code for _ in range(4)]
    # A full bucket holds exactly three such requests; an estimate of 4 chars/token would not.
    assert codes == [200, 200, 200, 429]
    assert tok.count(prompt) != round(len(prompt) / 4)


def test_killed_server_is_ejected_and_traffic_continues(smollm2) -> None:
    specs = [LlamaServerSpec(1, 512), LlamaServerSpec(1, 512)]
    with LlamaFleet(specs, model=smollm2) as fleet, ServerPool() as pool:
        handle = pool.start(create_app(gateway_cfg(fleet, smollm2, router="round-robin")))

        async def run() -> list[httpx.Response]:
            async with httpx.AsyncClient(base_url=handle.url, timeout=30) as c:
                body = {"prompt": "Once upon a time", "max_tokens": 6, **EXACT}
                first = [await c.post("/v1/completions", json=body) for _ in range(2)]
                await asyncio.to_thread(fleet.servers[0].kill)
                later = [await c.post("/v1/completions", json=body) for _ in range(6)]
                return first + later

        responses = asyncio.run(run())
        dead, alive = fleet.servers
        assert not dead.alive  # the process is gone, and its port with it
        with pytest.raises(httpx.TransportError):
            httpx.get(dead.url + "/health", timeout=2)
        gw_backends = handle.app.state.gateway.backends
        assert not gw_backends[0].available and gw_backends[1].available
    assert all(r.status_code == 200 for r in responses), [r.text for r in responses]
    names = [r.headers["x-tokenpilot-backend"] for r in responses]
    assert set(names[:2]) == {dead.name, alive.name}
    assert set(names[2:]) == {alive.name}
