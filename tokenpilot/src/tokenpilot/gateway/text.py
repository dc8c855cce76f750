"""From an OpenAI request body to what the policies see: prompt text, token counts, prefix hashes.

The gateway and the simulated backend count tokens the same way (a tokenizer when one is
configured, else ~4 characters per token) and hash prompt prefixes the same way (CRC32 chained
over fixed-size blocks of text, stable across processes), so a prefix the gateway's router
believes cached on a simulated instance is one the instance's engine really caches.
"""

from __future__ import annotations

import importlib.util
import zlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

CHARS_PER_TOKEN = 4  # the usual rule of thumb for English text with BPE tokenizers
PREFIX_BLOCK_TOKENS = 128


class BadRequest(ValueError):
    """The body is not a request we can serve; the message says what to fix."""

    status = 400  # the HTTP status that answers it

    def __init__(self, message: str, param: str | None = None,
                 code: str = "invalid_request") -> None:
        super().__init__(message)
        self.param = param
        self.code = code


def prompt_text(body: Mapping[str, Any], chat: bool) -> str:
    """The concatenated text of the prompt: message contents (chat) or ``prompt`` (completions)."""
    if chat:
        messages = body.get("messages")
        if not isinstance(messages, list) or not messages:
            raise BadRequest("'messages' is required: a non-empty list of {role, content} objects",
                             "messages")
        parts: list[str] = []
        for i, m in enumerate(messages):
            if not isinstance(m, Mapping):
                raise BadRequest(f"messages[{i}] must be an object with 'role' and 'content'",
                                 "messages")
            content = m.get("content")
            if isinstance(content, str):
                parts.append(content)
            elif isinstance(content, list):  # content parts: keep the text ones
                parts.extend(str(p.get("text", "")) for p in content if isinstance(p, Mapping))
            elif content is not None:
                raise BadRequest(f"messages[{i}].content must be a string or a list of parts",
                                 "messages")
        return "\n".join(parts)
    prompt = body.get("prompt")
    if isinstance(prompt, str) and prompt:
        return prompt
    if isinstance(prompt, list) and prompt and all(isinstance(p, str) for p in prompt):
        return "\n".join(prompt)
    raise BadRequest("'prompt' is required: a non-empty string (or list of strings)", "prompt")


class TokenCounter:
    """Counts prompt tokens: exactly with a local ``tokenizer.json``, else estimated.

    ``source`` says which, for ``/metrics`` and the logs.
    """

    def __init__(self, tokenizer: str | Path | None = None) -> None:
        self._tok = None
        self.source = f"estimate ({CHARS_PER_TOKEN} chars/token)"
        self._gguf = None  # a GGUF's tokenizer, chat template included (tokenize_gguf)
        if tokenizer and str(tokenizer).endswith(".gguf"):
            from tokenpilot.tokenize_gguf import GGUFTokenizer

            self._gguf = GGUFTokenizer(tokenizer)
            self._tok = self._gguf.tokenizer
            self.source = f"gguf {Path(tokenizer).name}"
        elif tokenizer:
            if importlib.util.find_spec("tokenizers") is None:
                self.source += "; 'tokenizers' not installed"
            else:
                from tokenizers import Tokenizer

                self._tok = Tokenizer.from_file(str(tokenizer))
                self.source = f"tokenizer {Path(tokenizer).name}"

    @property
    def exact(self) -> bool:
        return self._tok is not None

    def count_body(self, body: Mapping[str, Any], chat: bool, text: str) -> int:
        """Prompt tokens of a request as the server counts them: through the chat template
        when the tokenizer came from a GGUF that has one, else ``count(text)``."""
        g = self._gguf
        if g is not None:
            if chat and g.chat_template:
                try:
                    return g.count_chat(body["messages"])
                except Exception:  # noqa: BLE001 - a template Jinja refuses: count the contents
                    pass
            return max(1, g.count(text))
        return self.count(text)

    def count(self, text: str) -> int:
        if self._tok is not None:
            return max(1, len(self._tok.encode(text).ids))
        return estimate_tokens(text)


def estimate_tokens(text: str) -> int:
    return max(1, round(len(text) / CHARS_PER_TOKEN))


def prefix_hashes(text: str, block_tokens: int = PREFIX_BLOCK_TOKENS) -> tuple[int, ...]:
    """Chained CRC32 of each full block of ``block_tokens`` tokens' worth of text.

    Block k's hash covers blocks 0..k, as ``Request.prefix_hashes`` requires.
    """
    step = block_tokens * CHARS_PER_TOKEN
    n = len(text) // step
    if not n:
        return ()
    data = text.encode("utf-8", "surrogatepass")
    if len(data) != len(text):  # non-ASCII: hash by characters, not bytes
        blocks = [text[i * step:(i + 1) * step].encode("utf-8", "replace") for i in range(n)]
    else:
        blocks = [data[i * step:(i + 1) * step] for i in range(n)]
    out, h = [], 0
    for b in blocks:
        h = zlib.crc32(b, h)
        out.append(h)
    return tuple(out)


_FILLER = "the quick brown fox jumps over lazy dogs and then "


def synthetic_prompt(tokens: int, prefix: Sequence[int] = (), block_tokens: int = 512) -> str:
    """Text that counts as ``tokens`` estimated tokens; blocks named by equal ``prefix`` hashes
    are equal text, so shared prefixes in a workload become shared prefixes on the wire."""
    want = max(1, tokens) * CHARS_PER_TOKEN
    step = block_tokens * CHARS_PER_TOKEN
    parts: list[str] = []
    size = 0
    for h in prefix:
        if size + step > want:
            break
        unit = f"block {h:x} "
        parts.append((unit * (step // len(unit) + 1))[:step])
        size += step
    rest = want - size
    parts.append((_FILLER * (rest // len(_FILLER) + 1))[:rest])
    return "".join(parts)
