"""The gateway's request log (``log: {requests, bodies}``), end to end: a real ``tokenpilot
serve`` process on loopback in front of a simulated backend, an agent's turns sent through it,
then the log read back: one line per completion request with tokens, cached tokens and
timings, per-message hashes that repeat from turn to turn, rotation by size, and ``tokenpilot
audit`` reading it."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time

import httpx
import pytest
import yaml
from builders import MODEL, cli

from tokenpilot.gateway.fleet import start_sims
from tokenpilot.gateway.runner import ServerPool

SYSTEM = "You are a careful coding agent. Follow the repository's style guide.\n" * 30
TOOLS = [{"type": "function", "function": {"name": "read_file", "description": "Read a file",
                                            "parameters": {"type": "object", "properties": {
                                                "path": {"type": "string"}}}}}]


def _serve(cfg_path, timeout: float = 60.0) -> tuple[subprocess.Popen, str]:
    """``tokenpilot serve --config cfg --port 0``: the process and its URL, read from the
    banner it prints on standard error once bound."""
    proc = subprocess.Popen([sys.executable, "-m", "tokenpilot.cli", "serve", "--config",
                             str(cfg_path), "--port", "0"], stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + timeout
    seen = []
    while time.monotonic() < deadline:
        line = proc.stderr.readline()
        if not line:
            break
        seen.append(line)
        m = re.search(r"on (http://127\.0\.0\.1:\d+)", line)
        if m:
            return proc, m.group(1)
    proc.kill()
    raise AssertionError("tokenpilot serve did not start: " + "".join(seen))


def _stop(proc: subprocess.Popen) -> str:
    proc.send_signal(signal.SIGINT)  # a graceful shutdown: the log writer drains and closes
    try:
        _, err = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise
    return err


def _turns(n: int) -> list[dict]:
    """An agent's ``n`` requests: each resends the whole conversation so far."""
    messages = [{"role": "system", "content": SYSTEM},
                {"role": "user", "content": "Fix the failing test in parser.py, please."}]
    bodies = []
    for i in range(n):
        bodies.append({"model": MODEL, "messages": [dict(m) for m in messages], "tools": TOOLS,
                       "max_tokens": 4 + i, "stream": i % 2 == 1})
        messages.append({"role": "assistant", "content": None, "tool_calls": [
            {"id": f"c{i}", "type": "function",
             "function": {"name": "read_file", "arguments": json.dumps({"path": f"f{i}.py"})}}]})
        messages.append({"role": "tool", "tool_call_id": f"c{i}",
                         "content": f"def f{i}():\n    return {i}\n" * 40})
    return bodies


def test_a_stuck_writer_never_holds_up_the_request_path(tmp_path) -> None:
    """With the writer thread stuck (a disk that does not answer), ``put`` still returns at
    once: what the queue cannot hold is dropped and counted, and the rest is written after."""
    import threading

    from tokenpilot.gateway.accesslog import LogWriter

    gate = threading.Event()

    def encode(item: int) -> str:
        gate.wait(30)
        return json.dumps({"n": item})

    w = LogWriter(str(tmp_path / "r.jsonl"), encode, queue_size=3)
    for i in range(10):  # the thread takes item 0 and waits; 3 wait in the queue; 6 dropped
        w.put(i)
        if i == 0:
            deadline = time.monotonic() + 10
            while not w._q.empty() and time.monotonic() < deadline:  # the thread takes item 0
                time.sleep(0.001)
    assert w.dropped == 6
    gate.set()
    w.close()
    assert [json.loads(x)["n"] for x in (tmp_path / "r.jsonl").read_text().splitlines()] == \
        [0, 1, 2, 3]


@pytest.mark.e2e  # a gateway process and a simulated backend on 127.0.0.1
def test_request_log_records_every_completion_hashed_and_rotated(tmp_path) -> None:
    log = tmp_path / "requests.jsonl"
    with ServerPool() as pool:
        sims = start_sims(pool, ("h100-sxm",), speedup=50)
        sim = sims[0].app.state.sim
        cfg = tmp_path / "gateway.yaml"
        cfg.write_text(yaml.safe_dump({
            "backends": [{"url": sims[0].url, "name": "sim-0", "kind": "vllm",
                          "gpu": "h100-sxm", "model": sim.model_name}],
            "log": {"requests": str(log), "bodies": "hashed", "max_bytes": 1500,
                    "backups": 20}}))
        proc, url = _serve(cfg)
        try:
            usages = []
            with httpx.Client(base_url=url, timeout=30) as c:
                for body in _turns(4):
                    if body["stream"]:
                        body["stream_options"] = {"include_usage": True}
                        r = c.post("/v1/chat/completions", json=body)
                        events = [json.loads(x[6:]) for x in r.text.split("\n\n")
                                  if x.startswith("data: {")]
                        usages.append(next(e["usage"] for e in events if e.get("usage")))
                    else:
                        r = c.post("/v1/chat/completions", json=body)
                        usages.append(r.json()["usage"])
                    assert r.status_code == 200, r.text
                assert c.get("/health").status_code == 200  # not a completion: not logged
                assert c.post("/v1/chat/completions", json={"model": "nope", "messages": [
                    {"role": "user", "content": "hi"}]}).status_code == 404
        finally:
            err = _stop(proc)
    # uvicorn shuts down gracefully, then re-raises the SIGINT it caught.
    assert proc.returncode in (0, 128 + signal.SIGINT, -signal.SIGINT), err
    assert "Traceback" not in err, err
    # Oldest first: requests.jsonl.N ... requests.jsonl.1, then requests.jsonl.
    files = sorted(tmp_path.glob("requests.jsonl*"),
                   key=lambda p: -int(p.suffix[1:]) if p.suffix[1:].isdigit() else 0)
    assert len(files) > 2, "the 1,500-byte limit rotated the log"  # .N oldest ... current
    assert all(p.stat().st_size <= 1500 or p.read_text().count("\n") == 1 for p in files)
    recs = [json.loads(x) for p in files for x in p.read_text().splitlines()]
    assert [r["status"] for r in recs] == [200, 200, 200, 200, 404]  # in order, none lost
    ok = recs[:4]
    assert [r["prompt_tokens"] for r in ok] == [u["prompt_tokens"] for u in usages]
    assert [r["output_tokens"] for r in ok] == [4, 5, 6, 7]
    # The backend's prefix-cache hits, as it reported them, in the log.
    assert [r["cached_tokens"] for r in ok] == [
        u["prompt_tokens_details"]["cached_tokens"] for u in usages]
    assert ok[0]["cached_tokens"] == 0 and ok[3]["cached_tokens"] > 0
    for r in ok:
        assert r["backend"] == "sim-0" and r["model"] == MODEL and r["ttft_s"] > 0
        assert "body" not in r and r["tools"]["n"] == 1
        assert "content" not in json.dumps(r["messages"])  # hashes, never the text
    assert ok[1]["stream"] is True and ok[1]["tpot_s"] > 0
    # Per message: role, part and hash; the conversation's first messages hash alike each turn.
    roles = [m["role"] for m in ok[3]["messages"]]
    assert roles == ["system", "user"] + ["assistant", "tool"] * 3
    assert [m["part"] for m in ok[3]["messages"][:4]] == ["system", "history", "history",
                                                          "tool_results"]
    assert ok[3]["messages"][0]["tokens"] == round(len(SYSTEM) / 4)  # ~4 chars/token
    assert len({r["messages"][0]["hash"] for r in ok}) == 1
    assert ok[2]["messages"] == ok[3]["messages"][:len(ok[2]["messages"])]
    # Block hashes chain: each turn's blocks start with the previous turn's.
    for a, b in zip(ok, ok[1:], strict=False):
        assert a["blocks"] and b["blocks"][:len(a["blocks"])] == a["blocks"]
    assert recs[4]["reason"] == "model_not_found"
    # tokenpilot audit reads the rotated files as one log: one conversation, the backend's
    # cache hits beside the reuse the hashes predict, the refused request not audited.
    r = cli("audit", *map(str, files), "--format", "json")
    assert r.exit_code == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["requests"] == 4 and d["runs"] == 1 and d["skipped"] == {"not answered": 1}
    assert d["tokens"]["prompt"] == sum(u["prompt_tokens"] for u in usages)
    rep = d["repetition"]
    assert rep["measured_cached_tokens"] == sum(x["cached_tokens"] for x in ok)
    assert rep["breaks"] == [] and rep["reusable_tokens"] > 0
    assert d["tokens"]["parts"]["tool_results"]["tokens"] > 0


@pytest.mark.e2e  # a gateway in front of real llama.cpp servers on 127.0.0.1
def test_request_log_takes_cached_tokens_from_a_real_llama_server(tmp_path, realfleet,
                                                                  smollm2) -> None:
    """llama.cpp says how much of a prompt its slot had cached (``timings.cache_n``, or
    ``usage.prompt_tokens_details``): the request log has that figure, request by request, and
    per-message token counts from the model's own tokenizer."""
    from tokenpilot.config_section import from_mapping
    from tokenpilot.gateway.app import create_app
    from tokenpilot.gateway.config import GatewayConfig
    from tokenpilot.gateway.relay import cached_tokens
    from tokenpilot.tokenize_gguf import GGUFTokenizer

    log = tmp_path / "requests.jsonl"
    cfg = from_mapping(GatewayConfig, {
        "backends": realfleet.backend_configs(), "tokenizer": str(smollm2),
        "log": {"requests": str(log), "bodies": "hashed"}}, "gateway config")
    system = "You answer in one short sentence about colours."
    body = {"messages": [{"role": "system", "content": system},
                         {"role": "user", "content": "Name a warm colour."}],
            "max_tokens": 4, "temperature": 0, "seed": 42}
    answers = []
    with ServerPool() as pool:
        gw = pool.start(create_app(cfg))
        with httpx.Client(base_url=gw.url, timeout=60) as c:
            for _ in range(3):  # the same prompt again: a slot that served it has it cached
                r = c.post("/v1/chat/completions", json=body)
                assert r.status_code == 200, r.text
                answers.append(r.json())
    recs = [json.loads(x) for x in log.read_text().splitlines()]
    assert len(recs) == 3
    reported = [cached_tokens(a) for a in answers]
    assert all(isinstance(n, int) for n in reported), answers[0]  # llama.cpp reports it
    assert [x["cached_tokens"] for x in recs] == reported
    assert [x["prompt_tokens"] for x in recs] == [a["usage"]["prompt_tokens"] for a in answers]
    tok = GGUFTokenizer(smollm2)
    assert recs[0]["messages"][0]["tokens"] == len(tok.encode(system))
