"""The KV options a tradeoff run compares, by name, and what each means on both sides.

- ``f16``: the baseline (f16 K and V cache, the full context). Listing it again as an option
  measures the baseline against a fresh copy of itself: zero divergence.
- ``kv-<type>`` or ``kv-<K>-<V>``: llama.cpp's ``cache_type_k``/``cache_type_v`` (f16, q8_0,
  q4_0, ...). In the simulator the nearest ``kv_dtype`` by bytes per element (q8_0:
  fp8, q4_0: int4), which is what the same choice is on a GPU engine.
- ``window-<N>`` or ``window-<N>-keep<K>``: llama.cpp's context shift: a slot of N tokens that,
  when full, keeps its first K tokens and drops half of the rest (``--context-shift``,
  ``n_keep``). In the simulator a sliding window of N tokens (KV capped at N per request).
- ``truncate-<N>``: a context of N tokens and the document's start cut so the prompt fits (the
  "just cut the prompt" choice). In the simulator ``max_model_len`` N with every prompt cut to
  fit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tokenpilot.llamafleet import KV_CACHE_TYPES

# Bytes per element of each llama.cpp KV type: ggml blocks of 32 elements (q8_0: 32 bytes and
# an f16 scale; q4_0: 16 bytes and a scale; q4_1/q5_1 add an f16 minimum).
GGML_BYTES = {"f32": 4.0, "f16": 2.0, "bf16": 2.0, "q8_0": 34 / 32, "q4_0": 18 / 32,
              "q4_1": 20 / 32, "iq4_nl": 18 / 32, "q5_0": 22 / 32, "q5_1": 24 / 32}
# The simulator's KV dtypes by bytes per element (costmodel.DTYPE_BYTES), smallest first.
SIM_DTYPES = (("int4", 0.5), ("fp8", 1.0), ("bf16", 2.0))
MIN_CTX = 256  # llama.cpp's smallest slot context
DEFAULT_OPTIONS = "kv-q8_0,kv-q4_0,window-512,truncate-512"

FORMS = ("f16", "kv-<type>", "kv-<K>-<V>", "window-<N>", "window-<N>-keep<K>", "truncate-<N>")


class OptionError(ValueError):
    """An option name that is not one of the forms, or one llama.cpp cannot run."""


@dataclass(frozen=True)
class Option:
    name: str
    cache_type_k: str = "f16"
    cache_type_v: str = "f16"
    window: int = 0  # context shift: the slot's context (0: off)
    n_keep: int = 0
    truncate: int = 0  # a smaller context with the document's start cut (0: off)

    @property
    def kind(self) -> str:
        if self.window:
            return "window"
        if self.truncate:
            return "truncate"
        return "baseline" if self.kv_bytes_per_elem == 2.0 else "kv"

    @property
    def kv_bytes_per_elem(self) -> float:
        return (GGML_BYTES[self.cache_type_k] + GGML_BYTES[self.cache_type_v]) / 2

    @property
    def sim_kv_dtype(self) -> str:
        """The simulator's dtype nearest to this cache's bytes per element (q8_0's 1.06: fp8,
        q4_0's 0.56: int4); a tie goes to the larger."""
        b = self.kv_bytes_per_elem
        return min(reversed(SIM_DTYPES), key=lambda d: abs(d[1] - b))[0]

    @property
    def context(self) -> int:
        """The slot context this option gives a request (0: the baseline's)."""
        return self.window or self.truncate


def parse_option(name: str) -> Option:
    s = name.strip()
    if s in ("f16", "baseline"):
        return Option(s)
    m = re.fullmatch(r"kv-([a-z0-9_]+)(?:-([a-z0-9_]+))?", s)
    if m:
        k, v = m.group(1), m.group(2) or m.group(1)
        for t in (k, v):
            if t not in KV_CACHE_TYPES:
                raise OptionError(f"option {s}: {t!r} is not a KV cache type llama.cpp takes "
                                  f"(cache_type_k/v: {', '.join(KV_CACHE_TYPES)})")
        return Option(s, cache_type_k=k, cache_type_v=v)
    m = re.fullmatch(r"window-(\d+)(?:-keep(\d+))?", s)
    if m:
        n, keep = int(m.group(1)), int(m.group(2) or 0)
        if n < MIN_CTX:
            raise OptionError(f"option {s}: llama.cpp's smallest context is {MIN_CTX} tokens")
        if keep >= n // 2:
            raise OptionError(f"option {s}: n_keep {keep} must be under half the window {n}")
        return Option(s, window=n, n_keep=keep)
    m = re.fullmatch(r"truncate-(\d+)", s)
    if m:
        n = int(m.group(1))
        if n < MIN_CTX:
            raise OptionError(f"option {s}: llama.cpp's smallest context is {MIN_CTX} tokens")
        return Option(s, truncate=n)
    raise OptionError(f"unknown option {s!r}; the forms are {', '.join(FORMS)} "
                      f"(e.g. {DEFAULT_OPTIONS})")


def parse_options(text: str) -> list[Option]:
    names = [x.strip() for x in text.split(",") if x.strip()]
    if not names:
        raise OptionError("--options is empty: name at least one option, e.g. "
                          f"{DEFAULT_OPTIONS}")
    if len(set(names)) != len(names):
        raise OptionError(f"--options names one option twice: {text}")
    return [parse_option(n) for n in names]


def context_shift(tokens: list[int], n_ctx: int, n_keep: int) -> list[int]:
    """The tokens a llama.cpp slot of ``n_ctx`` holds after ``tokens`` went through it one by
    one with context shift on: whenever the next token would fill the slot (``n_past + 1 >=
    n_ctx``) it keeps the first ``n_keep`` and drops half of the others, oldest first
    (llama-server's ``n_discard = n_left / 2``). ``check_context_shift`` holds this against a
    real server."""
    kept: list[int] = []
    for t in tokens:
        if len(kept) + 1 >= n_ctx:
            n_discard = (len(kept) - n_keep) // 2
            del kept[n_keep:n_keep + n_discard]
        kept.append(t)
    return kept
