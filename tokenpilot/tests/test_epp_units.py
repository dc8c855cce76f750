"""The endpoint picker's parts without a server: the endpoints file and its watcher, the
decisions, and the books kept from an answer streamed through (``tokenpilot.epp``)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from builders import chat, cli

from tokenpilot.config_section import from_mapping
from tokenpilot.epp.endpoints import EndpointsError, Watcher, address_of, parse_endpoints
from tokenpilot.epp.picker import Exchange, Picker, Refusal
from tokenpilot.gateway.config import ConfigError, GatewayConfig

POOL = ["10.0.0.5:8000", {"address": "10.0.0.6:8000", "name": "vllm-b", "gpu": "h100-sxm",
                          "model": "llama-3.1-8b", "labels": ["long-context"]}]


def picker(**cfg) -> Picker:
    return Picker(from_mapping(GatewayConfig, cfg, "test", ConfigError),
                  parse_endpoints({"endpoints": POOL}, "pool"))


def test_endpoints_are_backends_named_by_address() -> None:
    a, b = parse_endpoints({"endpoints": POOL}, "pool")
    assert (a.url, a.name, address_of(a)) == ("http://10.0.0.5:8000", "10.0.0.5:8000",
                                              "10.0.0.5:8000")
    assert (b.name, b.gpu, b.labels, address_of(b)) == ("vllm-b", "h100-sxm",
                                                        ("long-context",), "10.0.0.6:8000")
    assert parse_endpoints({"endpoints": None}, "pool") == []
    assert parse_endpoints(None, "pool") == []


@pytest.mark.parametrize(("data", "says"), [
    (["10.0.0.5:8000"], "expected a mapping with one key, 'endpoints'"),
    ({"endpoints": ["10.0.0.5"]}, "endpoints[0]: address '10.0.0.5' is not ip:port"),
    ({"endpoints": ["10.0.0.5:99999"]}, "is not ip:port"),
    ({"endpoints": ["a:1", "a:1"]}, "endpoints[1]: address a:1 is listed twice"),
    ({"endpoints": [{"url": "http://a:1", "address": "a:1"}]}, "by 'address' (ip:port)"),
    ({"endpoints": [{"name": "x"}]}, "a mapping with 'address: ip:port'"),
    ({"endpoints": [{"address": "a:1", "gpus": "h100"}]}, "endpoints[0]"),
    ({"endpoints": "a:1"}, "'endpoints' must be a list"),
])
def test_bad_endpoints_say_which_and_how(data, says) -> None:
    with pytest.raises(EndpointsError) as info:
        parse_endpoints(data, "pool.yaml")
    assert says in str(info.value) and str(info.value).startswith("pool.yaml: ")


def test_the_example_pool_reads() -> None:
    w = Watcher(Path(__file__).resolve().parents[1] / "examples" / "endpoints.yaml")
    assert [(address_of(c), c.gpu) for c in w.load()] == [("127.0.0.1:8001", ""),
                                                          ("127.0.0.1:8002", "a100-80gb")]


def test_watcher_reloads_on_change_and_keeps_the_last_good_pool(tmp_path) -> None:
    path = tmp_path / "endpoints.yaml"
    path.write_text("endpoints: [10.0.0.5:8000]\n")
    w = Watcher(path)
    assert [address_of(c) for c in w.load()] == ["10.0.0.5:8000"]
    assert w.poll() is None  # nothing changed
    path.write_text("endpoints: [10.0.0.5:8000, 10.0.0.7:8000]\n")
    assert [address_of(c) for c in w.poll()] == ["10.0.0.5:8000", "10.0.0.7:8000"]
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))  # touched, same text
    assert w.poll() is None and w.reloads == 1
    path.write_text("endpoints: [nope]\n")
    assert w.poll() is None and w.failures == 1  # bad: the pool stays as it was
    path.unlink()
    assert w.poll() is None and w.failures == 2
    path.write_text("endpoints: []\n")
    assert w.poll() == [] and w.reloads == 2


def test_a_pick_names_an_endpoint_and_asks_for_usage() -> None:
    p = picker()
    raw = json.dumps(chat(stream=True)).encode()
    ex = p.decide({":path": "/v1/chat/completions", ":method": "POST"}, raw)
    assert isinstance(ex, Exchange)
    assert ex.address in ("10.0.0.5:8000", "10.0.0.6:8000")
    assert json.loads(ex.payload)["stream_options"] == {"include_usage": True} and ex.strip
    assert ex.backend.inflight == 1 and p.admission.in_flight == 1
    kept = p.decide({":path": "/v1/chat/completions"}, raw, rewrite=False)
    assert kept.payload == raw and not kept.strip  # a buffering proxy: the body goes on as is


@pytest.mark.parametrize(("headers", "raw", "status", "code"), [
    ({":path": "/v1/embeddings"}, b"{}", 404, "not_found"),
    ({":path": "/v1/completions"}, b"[1]", 400, "invalid_request"),
    ({":path": "/v1/completions"}, b"x" * 5000, 413, "body_too_large"),
    ({":path": "/v1/chat/completions"}, json.dumps(chat(max_tokens=40000)).encode(), 400,
     "invalid_request"),
])
def test_refusals_carry_the_gateways_status_and_code(headers, raw, status, code) -> None:
    p = picker(limits={"max_body_bytes": 4096})
    r = p.decide(headers, raw)
    assert isinstance(r, Refusal) and (r.status, r.code) == (status, code), r
    assert json.loads(r.body())["error"]["code"] == code
    assert r.log is not None and (r.log.status, r.log.reason) == (status, code)
    assert p.admission.in_flight == 0


def test_subset_hint_and_a_full_pool() -> None:
    p = picker(backends=[])
    raw = json.dumps(chat()).encode()
    h = {":path": "/v1/chat/completions"}
    assert p.decide(h, raw, subset=["10.0.0.6:8000"]).address == "10.0.0.6:8000"
    r = p.decide(h, raw, subset=["10.1.1.1:1"])
    assert (r.status, r.code, r.retry_after_s) == (503, "no_healthy_backend", 1.0)
    for b in p.backends:
        b.inflight = b.cfg.max_concurrency
    r = p.decide(h, raw)
    assert (r.status, r.code) == (429, "pool_full")  # ready but full: drop, GIE's 429
    assert p.admission.in_flight == 1  # the first pick only: refusals hold no charge


def sse(*events: dict) -> bytes:
    return b"".join(b"data: " + json.dumps(e, separators=(",", ":")).encode() + b"\n\n"
                    for e in events)  # compact, as vLLM and the simulated backend write it


def settled(p: Picker) -> list[tuple[int, int]]:
    """The (charged, actual) tokens of each settlement of ``p``'s tenant buckets, from now on."""
    calls: list[tuple[int, int]] = []
    store = p.admission.store
    real = store.settle

    def settle(key, charged, actual, limits, now) -> None:
        calls.append((charged, actual))
        real(key, charged, actual, limits, now)

    store.settle = settle
    return calls


def test_books_from_a_stream_the_proxy_passes_through() -> None:
    p = picker(admission={"default_tenant": {"tokens_per_minute": 60000}})
    calls = settled(p)
    ex = p.decide({":path": "/v1/chat/completions"},
                  json.dumps(chat(max_tokens=50, stream=True)).encode())
    b = ex.backend
    assert b.decode_pending == 50 and b.prefill_pending == ex.req.prompt_tokens
    ex.response_head(200, "text/event-stream")
    token = {"choices": [{"delta": {"content": "x"}, "finish_reason": None}]}
    usage = {"choices": [], "usage": {"prompt_tokens": 280, "completion_tokens": 3}}
    out = ex.response_chunk(sse(token, token), False)
    assert out == sse(token, token)
    assert b.prefill_pending == 0 and b.decode_pending == 48  # first token in, two streamed
    out = ex.response_chunk(sse(token, usage) + b"data: [DONE]\n\n", True)
    assert out == sse(token) + b"data: [DONE]\n\n"  # the usage the client did not ask for: cut
    ex.finish("success")
    ex.finish("cancelled")  # once only
    assert (b.inflight, b.decode_pending) == (0, 0) and p.admission.in_flight == 0
    # Settled once, on the usage (280 + 3), not on the estimate charged (prompt + 50).
    assert calls == [(ex.req.prompt_tokens + 50, 283)]


def test_proxy_serving_elsewhere_moves_the_load() -> None:
    p = picker()
    ex = p.decide({":path": "/v1/chat/completions"}, json.dumps(chat()).encode())
    other = next(b for b in p.backends if b is not ex.backend)
    first = ex.backend
    ex.served_by(address_of(other.cfg))
    assert (first.inflight, other.inflight, ex.backend) == (0, 1, other)


def test_a_pool_that_stops_answering_keeps_its_charge() -> None:
    p = picker(admission={"default_tenant": {"tokens_per_minute": 60000}})
    calls = settled(p)
    ex = p.decide({":path": "/v1/chat/completions"}, json.dumps(chat(max_tokens=20)).encode())
    ex.sees_answers = False  # response_body_mode NONE: the picker never sees the answer
    ex.finish("cancelled")
    assert calls == [(p.admission.estimate(ex.req),) * 2]  # no refund, no extra charge
    ex = p.decide({":path": "/v1/chat/completions"}, json.dumps(chat(max_tokens=20)).encode())
    ex.finish("cancelled")  # a proxy that does send answers: gone before one came, no charge
    assert calls[1] == (p.admission.estimate(ex.req), 0)


def test_cli_errors_are_one_line(tmp_path) -> None:
    r = cli("epp", "--endpoints", str(tmp_path / "none.yaml"))
    assert r.exit_code == 2 and "none.yaml: cannot read" in r.output
    (tmp_path / "e.yaml").write_text("endpoints: [10.0.0.5]\n")
    r = cli("epp", "--endpoints", str(tmp_path / "e.yaml"))
    assert r.exit_code == 2 and "is not ip:port" in r.output and "Traceback" not in r.output
    (tmp_path / "e.yaml").write_text("endpoints: [10.0.0.5:8000]\n")
    (tmp_path / "g.yaml").write_text("backends: [http://10.0.0.9:8000]\n")
    r = cli("epp", "--endpoints", str(tmp_path / "e.yaml"), "--config", str(tmp_path / "g.yaml"))
    assert r.exit_code == 2 and "move the config's backends there" in r.output
    # A shared store the picker would not use is refused, never ignored.
    (tmp_path / "g.yaml").write_text("state: {store: redis, url: 'redis://127.0.0.1:1/0'}\n")
    r = cli("epp", "--endpoints", str(tmp_path / "e.yaml"), "--config", str(tmp_path / "g.yaml"))
    assert r.exit_code == 2 and "keeps its budgets and load in memory" in r.output
