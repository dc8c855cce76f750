"""What one llama.cpp server says about a text: teacher-forced log-probabilities, greedy
continuations, needle answers, and how fast it read and wrote them.

Teacher forcing: llama-server returns log-probabilities for the tokens it *generates*, not for
the prompt (``echo`` is not supported), so each reference token is one request: the prompt is
the context plus the reference so far, one token is generated with a +100 ``logit_bias`` on the
reference token (so it is the one sampled), and ``n_probs`` returns that token's log-probability
under the raw model distribution (the bias acts in the sampler, after the logits are read) and
the top-k others. ``cache_prompt`` keeps the context's KV between these requests, so each one
computes a single new token: the cost of a decode step.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import httpx

FORCE_BIAS = 100.0  # a logit bias no other token can beat: the reference token is sampled


class ProbeError(RuntimeError):
    """The server refused a request or answered something a measurement cannot use."""


@dataclass
class ForcedToken:
    logprob: float  # the reference token's log-probability
    top: dict[int, float] = field(default_factory=dict)  # top-k token id -> log-probability


@dataclass
class Timing:
    """Tokens and milliseconds the server reported, summed over requests."""

    prompt_n: int = 0
    prompt_ms: float = 0.0
    predicted_n: int = 0
    predicted_ms: float = 0.0

    def add(self, t: dict[str, Any], prompt: bool = True, predicted: bool = True) -> None:
        if prompt:
            self.prompt_n += int(t.get("prompt_n", 0))
            self.prompt_ms += float(t.get("prompt_ms", 0.0))
        if predicted:
            self.predicted_n += int(t.get("predicted_n", 0))
            self.predicted_ms += float(t.get("predicted_ms", 0.0))

    @property
    def prompt_tps(self) -> float:
        return self.prompt_n / self.prompt_ms * 1e3 if self.prompt_ms > 0 else float("nan")

    @property
    def predicted_tps(self) -> float:
        return self.predicted_n / self.predicted_ms * 1e3 if self.predicted_ms > 0 else float("nan")


class Probe:
    """A client of one llama.cpp server (``/tokenize`` and ``/completion``)."""

    def __init__(self, url: str, timeout_s: float = 300.0) -> None:
        self.http = httpx.Client(base_url=url, timeout=timeout_s)
        self.prefill = Timing()  # long prompts (the needle documents): prompt speed
        self.decode = Timing()  # greedy generations: generation speed

    def close(self) -> None:
        self.http.close()

    def _post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        try:
            r = self.http.post(path, json=body)
        except httpx.HTTPError as exc:
            raise ProbeError(f"{path}: {type(exc).__name__}: {exc}") from None
        if r.status_code != 200:
            raise ProbeError(f"{path}: HTTP {r.status_code}: {r.text[:300]}")
        return r.json()

    def tokenize(self, text: str) -> list[int]:
        return list(self._post("/tokenize", {"content": text, "add_special": False})["tokens"])

    def complete(self, prompt: list[int], n_predict: int, **kw: Any) -> dict[str, Any]:
        body = {"prompt": prompt, "n_predict": n_predict, "temperature": 0.0, "top_k": 1,
                "cache_prompt": True, "return_tokens": True, "seed": 0, **kw}
        return self._post("/completion", body)

    def greedy(self, prompt: list[int], n: int) -> list[int]:
        """``n`` greedy tokens after ``prompt`` (end of text does not stop them)."""
        out = self.complete(prompt, n, ignore_eos=True)
        self.decode.add(out.get("timings", {}), prompt=False)
        return list(out.get("tokens") or [])

    def forced(self, context: list[int], reference: list[int], top_k: int) -> list[ForcedToken]:
        """Each reference token's log-probability after the context and the reference before
        it, with the top-k distribution there."""
        out = []
        for i, tok in enumerate(reference):
            r = self.complete(context + reference[:i], 1, n_probs=top_k,
                              logit_bias=[[tok, FORCE_BIAS]])
            probs = r.get("completion_probabilities") or []
            if not probs or probs[0].get("id") != tok:
                raise ProbeError(f"forced token {tok} was not the one generated ({probs[:1]})")
            p = probs[0]
            out.append(ForcedToken(float(p["logprob"]), {int(t["id"]): float(t["logprob"])
                                                         for t in p.get("top_logprobs", [])}))
        return out

    def answer(self, prompt: list[int], n: int) -> str:
        """Greedy text after a needle question; the document's prefill is timed."""
        r = self.complete(prompt, n)
        self.prefill.add(r.get("timings", {}), predicted=False)
        return str(r.get("content", ""))


def answered(text: str, code: str) -> bool:
    """Exact match: the first number in the answer is the code."""
    m = re.search(r"\d+", text)
    return m is not None and m.group(0) == code
