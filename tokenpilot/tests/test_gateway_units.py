"""The gateway's parts on their own: metrics adapters, config, SSE relay, token counting, CLI."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from tokenpilot.cli import app
from tokenpilot.config_section import from_mapping
from tokenpilot.gateway.adapters import parse_metrics
from tokenpilot.gateway.config import ConfigError, GatewayConfig
from tokenpilot.gateway.relay import StreamTally
from tokenpilot.gateway.runner import ServerPool
from tokenpilot.gateway.simbackend import SimConfig, create_sim_app
from tokenpilot.gateway.text import estimate_tokens, prefix_hashes, synthetic_prompt

VLLM = """\
# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{engine="0",model_name="m"} 3.0
# TYPE vllm:num_requests_waiting gauge
vllm:num_requests_waiting{engine="0",model_name="m"} 5.0
# TYPE vllm:gpu_cache_usage_perc gauge
vllm:gpu_cache_usage_perc{model_name="m"} 0.9
# TYPE vllm:kv_cache_usage_perc gauge
vllm:kv_cache_usage_perc{engine="0",model_name="m"} 0.25
# TYPE vllm:prefix_cache_queries counter
vllm:prefix_cache_queries_total{model_name="m"} 1000.0
# TYPE vllm:prefix_cache_hits counter
vllm:prefix_cache_hits_total{model_name="m"} 400.0
# TYPE vllm:num_preemptions counter
vllm:num_preemptions_total{model_name="m"} 7.0
"""
SGLANG = """\
# TYPE sglang:num_running_reqs gauge
sglang:num_running_reqs{model_name="m"} 2.0
# TYPE sglang:num_queue_reqs gauge
sglang:num_queue_reqs{model_name="m"} 4.0
# TYPE sglang:token_usage gauge
sglang:token_usage{model_name="m"} 0.5
# TYPE sglang:cache_hit_rate gauge
sglang:cache_hit_rate{model_name="m"} 0.3
"""
LLAMACPP = """\
# TYPE llamacpp:requests_processing gauge
llamacpp:requests_processing 1
# TYPE llamacpp:requests_deferred gauge
llamacpp:requests_deferred 6
"""


def test_adapters_read_each_servers_names() -> None:
    v = parse_metrics(VLLM, "vllm")
    assert (v.running, v.waiting, v.kv_usage, v.preemptions) == (3, 5, 0.25, 7)
    assert v.prefix_hit_rate == pytest.approx(0.4)
    s = parse_metrics(SGLANG, "sglang")
    assert (s.running, s.waiting, s.kv_usage, s.prefix_hit_rate) == (2, 4, 0.5, 0.3)
    ll = parse_metrics(LLAMACPP, "llamacpp")
    assert (ll.running, ll.waiting, ll.kv_usage) == (1, 6, None)
    old = parse_metrics(VLLM.replace("kv_cache_usage_perc", "other_thing"), "vllm")
    assert old.kv_usage == 0.9  # the pre-0.10 name still works
    assert parse_metrics(VLLM, "openai").running is None


# A vLLM scrape as it comes: HELP/TYPE lines, histograms (a line per bucket), counters with their
# _created samples, two engines, a timestamp, and an info line whose labels need unescaping.
FULL_VLLM = VLLM + """\
# HELP vllm:time_to_first_token_seconds Histogram of time to first token in seconds.
# TYPE vllm:time_to_first_token_seconds histogram
""" + "".join(f'vllm:time_to_first_token_seconds_bucket{{le="{le}",model_name="m"}} {i}\n'
              for i, le in enumerate(("0.001", "0.005", "0.01", "0.1", "1.0", "+Inf"))) + """\
vllm:time_to_first_token_seconds_count{model_name="m"} 5.0
vllm:time_to_first_token_seconds_sum{model_name="m"} 0.25
vllm:prefix_cache_hits_created{model_name="m"} 1.7e+09
vllm:num_requests_running{engine="1",model_name="m"} 2.0 1700000000000
vllm:num_requests_waiting_by_reason{reason="x",model_name="m"} 9.0
# TYPE tokenpilot:sim_info gauge
tokenpilot:sim_info{gpu="l40s",model="a \\"quoted\\" name",kv_blocks="100"} 1.0
"""


def test_metrics_read_only_the_lines_they_use_as_the_full_parser_would() -> None:
    """``parse_metrics`` looks only at the samples it reads; on a full scrape it agrees with
    prometheus_client's parser run over the whole text (the way it read them before)."""
    from prometheus_client.parser import text_string_to_metric_families

    from tokenpilot.gateway.adapters import ADAPTERS

    def oracle(text: str, kind: str) -> tuple[dict[str, float], dict[str, str]]:
        sums: dict[str, float] = {}
        info: dict[str, str] = {}
        for fam in text_string_to_metric_families(text):
            for sample in fam.samples:
                name = sample.name.removesuffix("_total")
                if name == "tokenpilot:sim_info":
                    info = dict(sample.labels)
                elif name in ADAPTERS[kind]:
                    sums[name] = sums.get(name, 0.0) + sample.value
        return sums, info

    for text, kind in ((FULL_VLLM, "vllm"), (SGLANG, "sglang"), (LLAMACPP, "llamacpp")):
        sums, info = oracle(text, kind)
        snap = parse_metrics(text, kind)
        assert snap.info == info
        for name, value in sums.items():
            if name != "vllm:gpu_cache_usage_perc":
                assert getattr(snap, ADAPTERS[kind][name]) == value, name
    snap = parse_metrics(FULL_VLLM, "vllm")
    assert snap.running == 5  # both engines, the timestamped sample too
    assert snap.waiting == 5  # not the longer name that starts like it
    assert snap.info == {"gpu": "l40s", "model": 'a "quoted" name', "kv_blocks": "100"}
    assert snap.prefix_hit_rate == pytest.approx(0.4)  # not the _created sample
    with pytest.raises(ValueError):
        parse_metrics("vllm:num_requests_running{model_name=\"m\"} lots\n", "vllm")


@pytest.mark.e2e
def test_sim_backend_metrics_parse_as_vllm() -> None:
    with ServerPool() as pool:
        h = pool.start(create_sim_app(SimConfig(gpu="l40s", speedup=20)))
        import httpx

        r = httpx.post(h.url + "/v1/completions", json={"prompt": "a" * 4000, "max_tokens": 3})
        assert r.status_code == 200
        text = httpx.get(h.url + "/metrics").text
    snap = parse_metrics(text, "vllm")
    assert snap.running == 0 and snap.waiting == 0
    assert snap.prefix_queries == 1000  # the prompt's tokens were looked up
    assert snap.info["gpu"] == "l40s"
    assert "vllm:time_to_first_token_seconds_count" in text
    assert "vllm:generation_tokens_total" in text


def _config(data: dict) -> GatewayConfig:
    return from_mapping(GatewayConfig, data, "gateway config", ConfigError)


def test_config_errors_name_the_key() -> None:
    with pytest.raises(ConfigError, match="unknown key"):
        _config({"backend": []})
    with pytest.raises(ConfigError, match="not an http"):
        _config({"backends": ["ftp://x"]})
    with pytest.raises(ConfigError, match="kind: expected one of openai, vllm, sglang"):
        _config({"backends": [{"url": "http://a:1", "kind": "tgi"}]})
    with pytest.raises(ConfigError, match="timeouts.connect_s"):
        _config({"timeouts": {"connect_s": 0}})
    cfg = _config({"backends": ["http://127.0.0.1:9/"],
                                   "limits": {"retries": 0}})
    assert cfg.backends[0].url == "http://127.0.0.1:9" and cfg.limits.retries == 0


def _event(obj: dict) -> bytes:
    return b"data: " + json.dumps(obj, separators=(",", ":")).encode() + b"\n\n"


def test_stream_tally_finds_usage_across_chunk_boundaries_and_can_strip_it() -> None:
    token = _event({"choices": [{"delta": {"content": "a"}, "finish_reason": None}]})
    usage = _event({"choices": [], "usage": {"prompt_tokens": 9, "completion_tokens": 2}})
    stream = token * 2 + usage + b"data: [DONE]\n\n"
    for cut in range(1, len(stream)):
        for strip in (False, True):
            t = StreamTally()
            out = t.feed(stream[:cut], strip) + t.feed(stream[cut:], strip) + t.flush(strip)
            assert (t.prompt_tokens, t.completion_tokens, t.tokens_out) == (9, 2, 2)
            assert out == (token * 2 + b"data: [DONE]\n\n" if strip else stream)


def test_token_estimates_and_prefix_hashes() -> None:
    assert estimate_tokens("abcd" * 100) == 100
    text = synthetic_prompt(3000, (11, 22), 512)
    assert estimate_tokens(text) == 3000
    other = synthetic_prompt(2000, (11, 33), 512)
    a, b = prefix_hashes(text, 128), prefix_hashes(other, 128)
    assert a[:4] == b[:4] and a[4] != b[4]  # the first 512-token block is shared, not the 2nd


@pytest.mark.e2e
def test_cli_bench_against_a_sim_backend(tmp_path) -> None:
    out = tmp_path / "bench.json"
    with ServerPool() as pool:
        h = pool.start(create_sim_app(SimConfig(speedup=50)))
        r = CliRunner().invoke(app, [
            "bench", "--target", h.url, "--workload", "poisson:rps=50,n=20,prompt=200,output=8",
            "--max-requests", "20", "--duration", "10", "--output", str(out), "-f", "json"])
    assert r.exit_code == 0, r.output
    summary = json.loads(r.stdout)
    assert summary["ok"] == 20 and summary["errors"] == 0
    assert summary["ttft_p50_s"] > 0
    records = json.loads(out.read_text())["requests"]
    assert all(rec["completion_tokens"] == 8 for rec in records)


def test_cli_usage_errors_exit_2() -> None:
    runner = CliRunner()
    r = runner.invoke(app, ["serve"])
    assert r.exit_code == 2 and "no backends" in r.output
    r = runner.invoke(app, ["bench", "--target", "http://127.0.0.1:1", "--workload", "bogus"])
    assert r.exit_code == 2 and "workload" in r.output
    r = runner.invoke(app, ["sim-backend", "--gpu", "tpu-v9"])
    assert r.exit_code == 2 and "tpu-v9" in r.output


def test_example_config_loads() -> None:
    from pathlib import Path

    from tokenpilot.gateway.app import create_app

    path = Path(__file__).resolve().parents[1] / "examples" / "gateway.yaml"
    gw = create_app(GatewayConfig.load(path)).state.gateway
    assert [b.name for b in gw.backends] == ["h100", "a100", "l40s"]
    assert gw.tenants.resolve("Bearer sk-acme-example") == "acme"
    assert gw.tenants.resolve("Bearer sk-acme-examplX") is None


@pytest.mark.e2e
def test_demo_small_run_answers_every_request() -> None:
    from tokenpilot.demo import DemoSettings, render, run_demo

    lines: list[str] = []
    d = run_demo(DemoSettings(requests=30, rps=20, speedup=4), progress=lines.append)
    assert len(lines) == 4 and lines[0].startswith("[1/2] round-robin: replaying 30 requests")
    assert [r["router"] for r in d["rows"]] == ["round-robin", "earliest-completion"]
    for row in d["rows"]:
        assert row["by_status"] == {"200": 30}
        assert row["goodput_rps"] > 0 and row["token_imbalance"] >= 1.0
        assert sum(row["requests_by_backend"].values()) == 30
    # Round-robin's even request counts: the "fake balance" the token-load row exposes.
    assert list(d["rows"][0]["requests_by_backend"].values()) == [10, 10, 10]
    assert d["rows"][0]["request_imbalance"] == 1.0
    assert "p99 TTFT, short requests" in render(d) and "10/10/10" in render(d)


@pytest.mark.e2e
def test_passive_ejection_then_readmission_by_health_check() -> None:
    import asyncio

    from tokenpilot.gateway.backends import Backend
    from tokenpilot.gateway.config import BackendConfig
    from tokenpilot.gateway.health import check
    from tokenpilot.gateway.transport import Upstream

    with ServerPool() as pool:
        h = pool.start(create_sim_app(SimConfig(gpu="l40s", speedup=20)))
        b = Backend(BackendConfig(h.url, name="x"), 0)
        for _ in range(2):
            b.failed(threshold=3)
        assert b.available  # two failures: still in rotation
        b.failed(threshold=3)
        assert b.ejected and not b.available and not b.view(0).healthy

        async def probe() -> bool:
            up = Upstream()
            try:
                return await check(up, b, 2.0)
            finally:
                await up.aclose()

        assert asyncio.run(probe())
        assert b.available and b.failures == 0
        assert b.model == "llama-3.1-8b" and b.gpu == "l40s"  # learned from the backend
        pool.stop(h)
        assert not asyncio.run(probe()) and not b.available


@pytest.mark.e2e
def test_pooled_connections_closed_by_the_server_are_redialled() -> None:
    """A backend that drops idle keep-alive connections (llama.cpp's server does after a few
    seconds) must not look failed: the pool dials anew instead of trying the next stale one."""
    import asyncio

    from tokenpilot.gateway.wire import WireClient

    async def run() -> list[int]:
        live: list[asyncio.StreamWriter] = []

        async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            live.append(writer)
            try:
                while await reader.readuntil(b"\r\n\r\n"):
                    body = b"%d" % int(await reader.readexactly(2))  # two-digit test bodies
                    writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%b"
                                 % (len(body), body))
                    await writer.drain()
            except (asyncio.IncompleteReadError, ConnectionError):
                pass  # the client or the test closed the connection

        server = await asyncio.start_server(serve, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        client = WireClient(f"http://127.0.0.1:{port}")

        def post(n: int):
            return client.send_raw(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n"
                                   b"%02d" % n)

        async def ask(n: int) -> int:
            return int(await (await post(n)).read())

        got = list(await asyncio.gather(ask(11), ask(12), ask(13)))  # three pooled connections
        for w in live:  # the server's idle timeout: every pooled connection is now dead
            w.close()
        await asyncio.gather(*(w.wait_closed() for w in live))
        got.append(await ask(14))
        await client.aclose()
        server.close()
        return got

    assert asyncio.run(run()) == [11, 12, 13, 14]
