"""A real llama.cpp fleet: start, and the metrics adapter against live /metrics and /slots.

(Killing a server is tested with the gateway in test_llama_gateway.py.)
"""

from __future__ import annotations

import threading

import httpx
import pytest
from builders import wait_until
from conftest_llama import FLEET_SPECS

from tokenpilot.gateway.adapters import parse_llamacpp_slots, parse_metrics


@pytest.mark.e2e
def test_fleet_is_heterogeneous_and_healthy(realfleet) -> None:
    assert len(realfleet.urls) == len(FLEET_SPECS)
    for server, spec in zip(realfleet.servers, FLEET_SPECS, strict=True):
        assert httpx.get(server.url + "/health").status_code == 200
        slots = parse_llamacpp_slots(httpx.get(server.url + "/slots").json())
        assert slots.slot_ctx == spec.ctx
        assert slots.total_ctx == spec.ctx * spec.slots
    labels = [b["labels"] for b in realfleet.backend_configs()]
    assert labels == [[], [], ["long-context"]]


@pytest.mark.e2e
def test_adapter_reads_running_waiting_and_kv_from_a_live_server(realfleet) -> None:
    url = realfleet.servers[0].url  # one slot: a second request must wait
    idle = parse_metrics(httpx.get(url + "/metrics").text, "llamacpp")
    assert idle.running == 0 and idle.waiting == 0
    body = {"prompt": "Tell me a story about a fox.", "max_tokens": 120, "temperature": 0,
            "seed": 7, "ignore_eos": True}
    threads = [threading.Thread(target=httpx.post, args=(url + "/v1/completions",),
                                kwargs={"json": body, "timeout": 60}) for _ in range(2)]

    def one_running_one_deferred():
        snap = parse_metrics(httpx.get(url + "/metrics").text, "llamacpp")
        slots = parse_llamacpp_slots(httpx.get(url + "/slots").json())
        if snap.running == 1 and snap.waiting == 1 and slots.kv_usage > 0:
            return snap, slots
        return None

    for t in threads:
        t.start()
    try:
        snap, slots = wait_until(one_running_one_deferred,
                                 "one request running and one deferred", 20, 0.05)
    finally:
        for t in threads:
            t.join(60)
    assert slots.busy == 1
    # Prompt (8 tokens) plus some of the 120 generated, out of 512: in (0, 128/512].
    assert 0 < slots.kv_usage <= 128 / 512
    done = parse_llamacpp_slots(httpx.get(url + "/slots").json())
    assert done.kv_usage == 0 and done.busy == 0



def test_cli_usage_errors_exit_2_without_starting_anything() -> None:
    from typer.testing import CliRunner

    from tokenpilot.cli import app

    r = CliRunner().invoke(app, ["llama-fleet", "--servers", "2", "--slots", "1,2,3"])
    assert r.exit_code == 2
    r = CliRunner().invoke(app, ["llama-fleet", "--ctx", "big"])
    assert r.exit_code == 2
