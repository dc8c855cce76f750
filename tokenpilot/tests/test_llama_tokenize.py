"""The tokenizer read out of the GGUF counts exactly what llama-server counts."""

from __future__ import annotations

import httpx
import pytest

from tokenpilot.gateway.text import TokenCounter
from tokenpilot.tokenize_gguf import GGUFTokenizer, UnsupportedTokenizer, read_metadata

PROMPTS = [
    "Hello world",
    "  leading spaces and trailing  ",
    "numbers 12345 and 3.14159, 1e10 -42",
    "Ünïcödé café naïve — “quotes” 日本語テキスト 🚀🔥",
    "<|im_start|>user\nhi<|im_end|>\n",
    "tabs\tand\nnewlines\n\n\nend",
    "don't won't it's I'M we'll they'd",
    "def f(x):\n    return x**2  # comment\n",
    "a" * 300,
    "   ",
    "x <|endoftext|> y",
]
CHATS = [
    [{"role": "user", "content": "What is the capital of France? Answer in one word."}],
    [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi there"},
     {"role": "assistant", "content": "Hello!"}, {"role": "user", "content": "List 3 colors."}],
    [{"role": "user", "content": [{"type": "text", "text": "Parts "}, {"type": "text",
                                                                        "text": "joined 123"}]}],
]


@pytest.fixture(scope="module")
def tok(smollm2) -> GGUFTokenizer:
    return GGUFTokenizer(smollm2)


def test_metadata_reader(smollm2) -> None:
    meta = read_metadata(smollm2)
    assert meta["tokenizer.ggml.model"] == "gpt2"
    assert len(meta["tokenizer.ggml.tokens"]) == 49152
    assert meta["llama.context_length"] == 8192


def test_not_a_gguf_is_a_clear_error(tmp_path) -> None:
    bad = tmp_path / "x.gguf"
    bad.write_bytes(b"not a model")
    with pytest.raises(UnsupportedTokenizer, match="not a readable GGUF"):
        GGUFTokenizer(bad)


@pytest.mark.e2e
def test_tokens_equal_the_servers(realfleet, tok) -> None:
    url = realfleet.urls[0]
    for p in PROMPTS:
        server = httpx.post(url + "/tokenize", json={"content": p, "add_special": True}).json()
        assert tok.encode(p, add_special=True) == server["tokens"], p


@pytest.mark.e2e
def test_chat_and_completion_counts_equal_the_servers_usage(realfleet, tok) -> None:
    counter = TokenCounter(str(tok.path))
    assert counter.exact and counter.source.startswith("gguf")
    with httpx.Client(base_url=realfleet.urls[1], timeout=30) as c:
        for messages in CHATS:
            body = {"messages": messages, "max_tokens": 1}
            usage = c.post("/v1/chat/completions", json=body).json()["usage"]
            assert tok.count_chat(messages) == usage["prompt_tokens"]
            assert counter.count_body(body, True, "") == usage["prompt_tokens"]
        for p in PROMPTS[:4]:
            usage = c.post("/v1/completions", json={"prompt": p, "max_tokens": 1}).json()["usage"]
            assert counter.count_body({"prompt": p}, False, p) == usage["prompt_tokens"]
