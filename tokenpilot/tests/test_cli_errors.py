"""A newcomer's mistakes get a one-line error and an exit code, never a traceback (issue 19)."""

from __future__ import annotations

import importlib.util
import socket
import time

import pytest
from builders import cli

COST = ("cost", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--output-tokens", "10")
NOT_UTF8 = b"\xff\xfe not UTF-8 \xe9\n"


def refused(r, *words: str) -> None:
    """``r`` failed with exit 2 and a one-line error naming ``words``, without a traceback."""
    assert r.exit_code == 2, r.output
    assert "Traceback" not in r.output
    for w in words:
        assert w in r.output, (w, r.output)


def test_cost_refuses_an_empty_prompt_file(tmp_path):
    empty = tmp_path / "empty.txt"
    empty.write_text("  \n")
    refused(cli(*COST, "--prompt-file", str(empty)), "empty.txt is empty")


def test_cost_refuses_impossible_requests():
    refused(cli(*COST, "--prompt-tokens", "10000000000"), "context of 131072")
    refused(cli(*COST, "--prompt-tokens", "100", "--tp", "3"), "32 attention heads", "1, 2, 4")
    r = cli("cost", "--model", "llama-3.1-70b", "--gpu", "l4", "--tp", "8",
            "--prompt-tokens", "120000", "--output-tokens", "8000", "--kv-dtype", "int4")
    assert r.exit_code in (0, 1) and "Traceback" not in r.output


@pytest.mark.parametrize("command", [("sim-backend",), ("serve", "--backend",
                                                        "http://127.0.0.1:1")])
@pytest.mark.parametrize("port", ["70000", "-1"])
def test_a_port_out_of_range_is_a_usage_error(command, port):
    refused(cli(*command, "--port", port), "--port")


def test_a_used_port_fails_before_the_banner():
    holder = socket.socket()  # bound, not listening: a second bind without SO_REUSEADDR fails
    holder.bind(("127.0.0.1", 0))
    try:
        r = cli("sim-backend", "--port", str(holder.getsockname()[1]))
    finally:
        holder.close()
    refused(r, "cannot listen on 127.0.0.1")
    assert "simulated" not in r.output  # the banner comes once the port is bound


def test_files_that_are_not_utf8_are_errors(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_bytes(b"instances: []\n# " + NOT_UTF8)
    csv = tmp_path / "bad.csv"
    csv.write_bytes(b"arrival,prompt_tokens,output_tokens\n0,10,10\n1,10,10 " + NOT_UTF8)
    for args in (("serve", "--config", str(bad)), ("simulate", "--fleet", str(bad)),
                 ("simulate", "-w", f"file:{csv}"), ("simulate", "-r", str(bad))):
        refused(cli(*args), "not UTF-8 text (byte 0xff")


def test_expected_count_is_known_before_the_workload_is_made(tmp_path):
    from tokenpilot.workload import expected_count

    assert expected_count("poisson:rps=5,n=100000000") == 100_000_000
    assert expected_count("poisson:rps=5,duration=100") == 500
    assert expected_count("gamma:rps=5,cv=2,n=1000,duration=10@n=20") == 20
    assert expected_count("azure-conv") is None
    f = tmp_path / "w.csv"
    f.write_text("arrival,prompt_tokens,output_tokens\n" + "".join(
        f"{i},100,10\n" for i in range(5000)))
    assert 4500 < expected_count(f"file:{f}") < 5500


def test_simulate_refuses_a_run_too_big_for_memory_before_starting(monkeypatch):
    import tokenpilot.cli_sim

    # Set first: without the check, the command would build 10^8 requests (GBs) before failing.
    monkeypatch.setattr(tokenpilot.cli_sim, "available_memory", lambda: 8 << 30)
    t0 = time.monotonic()
    r = cli("simulate", "-w", "poisson:rps=5,n=100000000")
    refused(r, "100,000,000 requests", "139.7 GiB", "bound of 6.4 GiB", "80% of the 8.0 GiB",
            "lower n=")
    assert time.monotonic() - t0 < 10  # refused, not generated then killed
    refused(cli("compare", "-w", "poisson:rps=5,n=1000000", "--max-memory", "1"),
            "under 3 routers", "(--max-memory)")
    ok = cli("simulate", "-w", "poisson:rps=5,n=200", "--max-memory", "1")
    assert ok.exit_code == 0, ok.output


needs_llama = pytest.mark.skipif(importlib.util.find_spec("xllamacpp") is None,
                                 reason="xllamacpp is not installed")


@needs_llama
def test_llama_fleet_refuses_a_model_that_is_not_gguf(tmp_path):
    model = tmp_path / "model.gguf"
    model.write_text("hello, not a model\n")
    refused(cli("llama-fleet", "--model", str(model), "--servers", "1", "--slots", "1",
                "--ctx", "512"), "is not a GGUF model file")


@needs_llama
@pytest.mark.e2e
def test_a_llama_server_that_cannot_load_its_model_says_so_without_a_traceback(tmp_path):
    model = tmp_path / "truncated.gguf"
    model.write_bytes(b"GGUF\x03\x00\x00\x00 truncated")
    r = cli("llama-fleet", "--model", str(model), "--servers", "1", "--slots", "1",
            "--ctx", "512", "--duration", "1")
    assert r.exit_code == 1, r.output
    assert "could not start a server" in r.output and "exit code 1" in r.output
    assert "Traceback" not in r.output


@pytest.mark.e2e
def test_port_0_banner_shows_the_port_really_bound():
    import re
    import subprocess
    import sys

    import httpx

    p = subprocess.Popen([sys.executable, "-m", "tokenpilot.cli", "sim-backend", "--port", "0",
                          "--host", "127.0.0.1"], stderr=subprocess.PIPE, text=True)
    try:
        banner = p.stderr.readline()
        m = re.search(r"on http://127\.0\.0\.1:(\d+)$", banner.strip())
        assert m and m.group(1) != "0", banner
        r = httpx.get(f"http://127.0.0.1:{m.group(1)}/v1/models", timeout=10)
        assert r.status_code == 200
    finally:
        p.terminate()
        p.wait(10)
        p.stderr.close()
