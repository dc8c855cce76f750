"""``tokenpilot epp`` as a real process on 127.0.0.1, in front of simulated backends, spoken to by
a real gRPC client over Envoy's ext_proc protocol definitions (PyPI's ``xds-protos``).

The test plays Envoy's part as GIE's manifests configure it (request and response bodies
``FULL_DUPLEX_STREAMED``): it streams the request's headers and body to the picker, sends the
body the picker hands back to the endpoint the picker names, and streams the answer back
through the picker, as the proxy would.
"""

from __future__ import annotations

import json
import os
import queue
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import httpx
import pytest
import yaml
from builders import chat, wait_until
from envoy.config.core.v3 import base_pb2
from envoy.extensions.filters.http.ext_proc.v3.processing_mode_pb2 import ProcessingMode
from envoy.service.ext_proc.v3 import external_processor_pb2 as pb
from envoy.service.ext_proc.v3 import external_processor_pb2_grpc as pb_grpc
from google.protobuf import json_format, struct_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc

from tokenpilot.gateway.fleet import start_sims
from tokenpilot.gateway.runner import ServerPool

pytestmark = pytest.mark.e2e  # every test here serves on 127.0.0.1

DEST = "x-gateway-destination-endpoint"
FULL_DUPLEX = pb.ProtocolConfiguration(request_body_mode=ProcessingMode.FULL_DUPLEX_STREAMED,
                                       response_body_mode=ProcessingMode.FULL_DUPLEX_STREAMED)


def address(url: str) -> str:
    return url.split("://", 1)[1]


class Picker:
    """A ``tokenpilot epp`` process: its gRPC channel, its metrics port, its stderr."""

    def __init__(self, tmp: Path, endpoints: list[str], config: dict | None = None) -> None:
        self.endpoints = tmp / "endpoints.yaml"
        self.write(endpoints)
        args = [sys.executable, "-m", "tokenpilot.cli", "epp", "--endpoints", str(self.endpoints),
                "--port", "0", "--reload-ms", "100", "--metrics-port", "0"]
        if config is not None:
            path = tmp / "gateway.yaml"
            path.write_text(yaml.safe_dump(config))
            args += ["--config", str(path)]
        self.err = tmp / "epp.log"
        self.proc = subprocess.Popen(args, stderr=self.err.open("w"), stdout=subprocess.DEVNULL,
                                     env={**os.environ, "PYTHONUNBUFFERED": "1"})
        m = wait_until(lambda: re.search(r"on grpc://127\.0\.0\.1:(\d+), metrics on "
                                         r"http://127\.0\.0\.1:(\d+)", self.log()),
                       "the picker's banner", timeout=60, interval=0.05)
        self.metrics_url = f"http://127.0.0.1:{m.group(2)}/metrics"
        self.channel = grpc.insecure_channel(f"127.0.0.1:{m.group(1)}")
        self.stub = pb_grpc.ExternalProcessorStub(self.channel)

    def write(self, endpoints: list[str]) -> None:
        tmp = self.endpoints.with_suffix(".tmp")
        tmp.write_text(yaml.safe_dump({"endpoints": endpoints}))
        tmp.replace(self.endpoints)  # atomic, as the kubelet swaps a ConfigMap volume

    def log(self) -> str:
        return self.err.read_text()

    def close(self) -> None:
        self.channel.close()
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)


class Stream:
    """One ext_proc ``Process`` stream, as Envoy holds one per HTTP request."""

    def __init__(self, stub: pb_grpc.ExternalProcessorStub) -> None:
        self.q: queue.Queue = queue.Queue()
        self.responses: Iterator[pb.ProcessingResponse] = stub.Process(iter(self.q.get, None),
                                                                      timeout=30)

    def send(self, **kw) -> None:
        self.q.put(pb.ProcessingRequest(**kw))

    def recv(self) -> pb.ProcessingResponse:
        return next(self.responses)

    def close(self) -> None:
        self.q.put(None)
        for _ in self.responses:  # drain to the server's end of the stream
            pass


def header_map(pairs: dict[str, str]) -> base_pb2.HeaderMap:
    return base_pb2.HeaderMap(headers=[base_pb2.HeaderValue(key=k, raw_value=v.encode())
                                       for k, v in pairs.items()])


def request(s: Stream, body: bytes | None, path: str = "/v1/chat/completions",
            key: str | None = None, mode: pb.ProtocolConfiguration = FULL_DUPLEX,
            subset: list[str] | None = None) -> None:
    """Send a request's headers (and body, in two chunks) as Envoy does."""
    h = {":method": "POST" if body is not None else "GET", ":path": path,
         ":authority": "gw", "content-type": "application/json"}
    if key:
        h["authorization"] = f"Bearer {key}"
    meta = base_pb2.Metadata()
    if subset is not None:
        hint = struct_pb2.Struct()
        hint.update({"x-gateway-destination-endpoint-subset": subset})
        meta.filter_metadata["envoy.lb.subset_hint"].CopyFrom(hint)
    s.send(request_headers=pb.HttpHeaders(headers=header_map(h), end_of_stream=body is None),
           protocol_config=mode, metadata_context=meta)
    if body is not None:
        half = len(body) // 2
        s.send(request_body=pb.HttpBody(body=body[:half], end_of_stream=False))
        s.send(request_body=pb.HttpBody(body=body[half:], end_of_stream=True))


def set_headers(mutation: pb.HeaderMutation) -> dict[str, str]:
    return {o.header.key: o.header.raw_value.decode() for o in mutation.set_headers}


def picked(s: Stream) -> tuple[str, bytes]:
    """The endpoint the picker chose (header and metadata agreeing) and the body it sends on."""
    first = s.recv()
    assert first.WhichOneof("response") == "request_headers", first
    common = first.request_headers.response
    assert common.clear_route_cache
    meta = json_format.MessageToDict(first.dynamic_metadata)
    dest = set_headers(common.header_mutation)[DEST]
    assert meta == {"envoy.lb": {DEST: dest}}
    body = s.recv()
    assert body.WhichOneof("response") == "request_body"
    sr = body.request_body.response.body_mutation.streamed_response
    assert sr.end_of_stream
    assert set_headers(common.header_mutation)["content-length"] == str(len(sr.body))
    return dest, sr.body


def refused(s: Stream) -> tuple[int, dict[str, str], dict]:
    r = s.recv()
    assert r.WhichOneof("response") == "immediate_response", r
    ir = r.immediate_response
    return ir.status.code, set_headers(ir.headers), json.loads(ir.body)


def relay(s: Stream, dest: str, body: bytes, say_served: bool = False) -> bytes:
    """Envoy's part after the pick: send ``body`` to ``dest``, stream its answer through the
    picker; what the client would get. ``say_served``: tell the picker which endpoint served
    (``x-gateway-destination-endpoint-served``), as a proxy that went down a list does."""
    out = b""
    meta = base_pb2.Metadata()
    if say_served:
        served = struct_pb2.Struct()
        served.update({"x-gateway-destination-endpoint-served": dest})
        meta.filter_metadata["envoy.lb"].CopyFrom(served)
    with httpx.stream("POST", f"http://{dest}/v1/chat/completions", content=body,
                      headers={"content-type": "application/json"}, timeout=30) as r:
        s.send(response_headers=pb.HttpHeaders(headers=header_map(
            {":status": str(r.status_code), "content-type": r.headers["content-type"]})),
            metadata_context=meta)
        assert s.recv().WhichOneof("response") == "response_headers"
        for chunk in r.iter_raw():
            s.send(response_body=pb.HttpBody(body=chunk, end_of_stream=False))
            out += s.recv().response_body.response.body_mutation.streamed_response.body
    s.send(response_body=pb.HttpBody(body=b"", end_of_stream=True))
    last = s.recv().response_body.response.body_mutation.streamed_response
    assert last.end_of_stream
    return out + last.body


@pytest.fixture(scope="module")
def sims():
    with ServerPool() as pool:
        yield [address(h.url) for h in start_sims(pool, ("h100-sxm", "a100-80gb"), speedup=50)]


@pytest.fixture(scope="module")
def shared(tmp_path_factory, sims):
    """One picker process for the tests that need no config of their own (a start costs
    seconds of a loaded machine's CPU)."""
    p = Picker(tmp_path_factory.mktemp("epp"), sims)
    yield p
    p.close()


@pytest.fixture
def picker(shared, sims):
    """The shared picker, its pool as the test found it again afterwards."""
    yield shared
    if shared.endpoints.read_text() != yaml.safe_dump({"endpoints": sims}):
        shared.write(sims)
        # Restored means every endpoint back and checked healthy (a new one is checked at
        # once, but a loaded machine may take a moment), not merely listed.
        def restored() -> bool:
            page = httpx.get(shared.metrics_url, timeout=5).text
            return all(f'tokenpilot_backend_healthy{{backend="{s}"}} 1.0' in page for s in sims)

        wait_until(restored, "the pool restored", timeout=20, interval=0.1)


def series(url: str, name: str) -> dict[str, float]:
    """One metric's series from a /metrics page: labels -> value."""
    out = {}
    for line in httpx.get(url, timeout=5).text.splitlines():
        if line.startswith(name + "{"):
            labels, _, value = line[len(name):].rpartition(" ")
            out[labels] = float(value)
    return out


def test_picks_an_endpoint_and_streams_the_answer_through(picker, sims) -> None:
    before = {n: series(picker.metrics_url, n) for n in (
        "tokenpilot_requests_total", "tokenpilot_completion_tokens_total")}
    s = Stream(picker.stub)
    request(s, json.dumps(chat(max_tokens=12, stream=True)).encode())
    dest, body = picked(s)
    assert dest in sims
    sent = json.loads(body)
    # The picker asks for usage (its books settle on the true count) ...
    assert sent["stream_options"] == {"include_usage": True}
    # The proxy went to the other endpoint (a fallback) and says so: the books follow it.
    other = next(a for a in sims if a != dest)
    text = relay(s, other, body, say_served=True).decode()
    s.close()
    events = [e[6:] for e in text.split("\n") if e.startswith("data: ")]
    # ... and cuts the usage event out of what the client, who did not ask for it, gets.
    assert events[-1] == "[DONE]"
    assert not any('"usage"' in e and '"choices":[]' in e for e in events)
    assert sum(1 for e in events[:-1] if json.loads(e)["choices"][0]["delta"].get("content")) \
        == 12
    # The books, as the gateway keeps them: one success, the tokens streamed, the load gone.
    def grown(name: str) -> dict[str, float]:
        was = before[name]
        return {k: v - was.get(k, 0.0) for k, v in series(picker.metrics_url, name).items()
                if v != was.get(k, 0.0)}

    assert grown("tokenpilot_requests_total") == {
        f'{{backend="{other}",outcome="success",tenant="default"}}': 1.0}
    assert grown("tokenpilot_completion_tokens_total") == {
        f'{{backend="{other}",tenant="default"}}': 12.0}
    text = httpx.get(picker.metrics_url, timeout=5).text
    inflight = [line for line in text.splitlines()
                if line.startswith("tokenpilot_backend_inflight_requests{")]
    assert inflight and all(line.endswith(" 0.0") for line in inflight), inflight
    # Each endpoint's own /metrics is scraped, as the gateway scrapes its backends: what a
    # scrape alone brings (the backend's prefix-cache lookups) is there for both.
    for a in sims:
        assert f'tokenpilot_backend_prefix_cache_queries_total{{backend="{a}"}}' in text
    health = health_pb2_grpc.HealthStub(picker.channel)
    for service in ("liveness", "readiness", "envoy.service.ext_proc.v3.ExternalProcessor"):
        got = health.Check(health_pb2.HealthCheckRequest(service=service), timeout=5)
        assert got.status == health_pb2.HealthCheckResponse.SERVING


def test_bodyless_request_is_routed_and_subset_hint_is_obeyed(picker, sims) -> None:
    s = Stream(picker.stub)
    request(s, None, path="/v1/models")
    r = s.recv()
    assert set_headers(r.request_headers.response.header_mutation)[DEST] in sims
    s.close()
    for want in sims:  # the proxy's subset hint: only that endpoint may be picked
        s = Stream(picker.stub)
        request(s, json.dumps(chat()).encode(), subset=[want])
        assert picked(s)[0] == want
        s.close()
    s = Stream(picker.stub)
    request(s, json.dumps(chat()).encode(), subset=["10.9.9.9:8000"])
    status, headers, err = refused(s)
    assert status == 503 and err["error"]["code"] == "no_healthy_backend"
    assert headers["retry-after"] == "1"
    s.close()
    # A body whose end comes with trailers (end_of_stream on neither chunk): picked on them.
    s = Stream(picker.stub)
    raw = json.dumps(chat()).encode()
    s.send(request_headers=pb.HttpHeaders(headers=header_map({":path": "/v1/chat/completions"})),
           protocol_config=FULL_DUPLEX)
    s.send(request_body=pb.HttpBody(body=raw, end_of_stream=False))
    s.send(request_trailers=pb.HttpTrailers(trailers=header_map({"x-end": "1"})))
    assert picked(s)[0] in sims
    assert s.recv().WhichOneof("response") == "request_trailers"
    s.close()


def test_bad_request_body_is_an_immediate_400(picker) -> None:
    for body, code in ((b'{"model": "llama-3.1-8b", "messages": [', "invalid_json"),
                       (b'{"model": "llama-3.1-8b"}', "invalid_request"),
                       (b'{"model": "gpt-9", "messages": [{"role": "user", "content": "x"}]}',
                        "model_not_found")):
        s = Stream(picker.stub)
        request(s, body)
        status, headers, err = refused(s)
        assert (status, err["error"]["code"]) == (404 if code == "model_not_found" else 400,
                                                  code), err
        assert headers["content-type"] == "application/json"
        s.close()


def test_admission_refusal_is_an_immediate_429(tmp_path, sims) -> None:
    cfg = {"tenants": {"sk-a": "acme"},
           "admission": {"tenants": {"acme": {"tokens_per_minute": 1000}}}}
    p = Picker(tmp_path, sims, cfg)
    try:
        s = Stream(p.stub)
        request(s, json.dumps(chat()).encode(), key="sk-nope")
        status, _, err = refused(s)
        assert (status, err["error"]["code"]) == (401, "invalid_api_key")
        s.close()
        s = Stream(p.stub)  # ~300 prompt tokens + 8: within the budget, and served
        request(s, json.dumps(chat()).encode(), key="sk-a")
        dest, body = picked(s)
        assert json.loads(relay(s, dest, body))["usage"]["completion_tokens"] == 8
        s.close()
        s = Stream(p.stub)  # 300 + 1900 needs the full bucket (1000); ~690 left for 18 s
        request(s, json.dumps(chat(max_tokens=1900)).encode(), key="sk-a")
        status, headers, err = refused(s)
        s.close()
        assert (status, err["error"]["code"]) == (429, "rate_limited")
        assert int(headers["retry-after"]) >= 1
        assert "acme" in err["error"]["message"]
    finally:
        p.close()


def test_endpoints_file_reload(picker, sims) -> None:
    a, b = sims

    def only(want: str) -> bool:
        s = Stream(picker.stub)
        request(s, json.dumps(chat()).encode())
        got = picked(s)[0]
        s.close()
        return got == want

    picker.write([a])
    assert wait_until(lambda: all(only(a) for _ in range(3)), "the pool of A alone", timeout=10,
                      interval=0.1)
    picker.write([b])
    assert wait_until(lambda: all(only(b) for _ in range(3)), "the pool of B alone", timeout=10,
                      interval=0.1)
    picker.write(["127.0.0.1:1", b])  # a new endpoint is checked at once: a dead one is out
    wait_until(lambda: 'tokenpilot_backend_healthy{backend="127.0.0.1:1"} 0.0' in httpx.get(
        picker.metrics_url, timeout=5).text, "the dead endpoint marked unhealthy", timeout=10)
    assert all(only(b) for _ in range(6))
    picker.endpoints.write_text("endpoints: [not-an-address]\n")  # a bad edit keeps B
    wait_until(lambda: "not ip:port" in picker.log(), "the bad edit logged", timeout=10)
    assert all(only(b) for _ in range(3))
    picker.write([])  # an empty pool: nothing is ready
    time.sleep(0.3)

    def empty() -> bool:
        s = Stream(picker.stub)
        request(s, json.dumps(chat()).encode())
        r = s.recv()
        s.close()
        return r.WhichOneof("response") == "immediate_response" and \
            r.immediate_response.status.code == 503

    wait_until(empty, "503 from an empty pool", timeout=10, interval=0.1)


def test_buffering_proxy_gets_the_pick_on_the_body(picker, sims) -> None:
    """A proxy that buffers the body (``request_body_mode: BUFFERED``) waits for the headers'
    answer before it sends the body: the picker answers them at once, the pick rides on the
    body's answer, and the body goes on unchanged."""
    mode = pb.ProtocolConfiguration(request_body_mode=ProcessingMode.BUFFERED,
                                    response_body_mode=ProcessingMode.NONE)
    s = Stream(picker.stub)
    raw = json.dumps(chat(stream=True)).encode()
    request(s, raw, mode=mode)
    assert s.recv().request_headers == pb.HeadersResponse()
    r = s.recv()
    common = r.request_body.response
    dest = set_headers(common.header_mutation)[DEST]
    assert dest in sims and common.clear_route_cache
    assert not common.HasField("body_mutation")
    assert json_format.MessageToDict(r.dynamic_metadata) == {"envoy.lb": {DEST: dest}}
    s.close()
