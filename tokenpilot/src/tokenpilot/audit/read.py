"""Reading what ``tokenpilot audit`` audits into ``Call`` records, one per request.

Three shapes, told apart by content, not by file name:

- the gateway's request log (``log.requests``): JSON lines with ``prompt_tokens`` and the
  access-log fields, with per-message hashes (``bodies: hashed``), the body (``full``) or
  neither;
- OpenAI chat-completions request bodies, one JSON object per line (``{"messages": [...],
  "tools": [...]}``, optionally as ``{"request": BODY, "response": ANSWER}``), as an agent
  framework logs its calls;
- a JSON file holding one run's messages (a list of ``{role, content}``, or ``{"messages":
  [...], "tools": [...]}``), or a list of such runs: each assistant message is the output of a
  request whose prompt is every message before it.

A record that cannot be read (truncated JSON, not OpenAI-shaped) is one line in ``problems``
naming it; the rest is still read.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tokenpilot.audit.parts import content_text, digest, part_of, tools_text
from tokenpilot.gateway.text import TokenCounter

MAX_PROBLEM_LINES = 20  # per kind of problem; the rest are counted


@dataclass(slots=True)
class Segment:
    """One message of a prompt (or its tool definitions), in prompt order."""

    part: str
    role: str
    tokens: int
    hash: str
    text: str | None = None  # None: read from a hashed log


@dataclass(slots=True)
class Call:
    """One request: its prompt's segments, tokens, and what the backend said of it."""

    where: str  # FILE:LINE, or FILE run R message M
    run: str  # the conversation it belongs to
    model: str | None
    segments: list[Segment]
    prompt_tokens: int  # the backend's count where logged, else the segments' sum
    output_tokens: int
    output_known: bool = True
    cached_tokens: int | None = None  # the backend's prefix-cache hits, where logged
    blocks: list[str] | None = None  # a hashed log's chained 512-token block hashes
    block_tokens: int = 512
    ttft_s: float | None = None
    tpot_s: float | None = None
    counted: bool = True  # prompt_tokens counted here (else reported by a backend)


class Counter:
    """Tokens of a text: exact with a tokenizer.json or GGUF (``TokenCounter``, as the gateway
    counts), else ~4 characters per token; each distinct text counted once."""

    def __init__(self, tokenizer: Path | None = None) -> None:
        self.tc = TokenCounter(tokenizer)
        self.exact = self.tc.exact
        self.source = self.tc.source
        self._seen: dict[str, int] = {}

    def __call__(self, text: str) -> int:
        if not text:
            return 0
        n = self._seen.get(text)
        if n is None:
            n = self._seen[text] = self.tc.count(text)
            if len(self._seen) > 200000:
                self._seen.clear()
        return n


class NotOpenAI(ValueError):
    """A record that is not an OpenAI chat request; the message says what is wrong."""


@dataclass
class Reader:
    count: Counter
    calls: list[Call] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    skipped: dict[str, int] = field(default_factory=dict)  # kind -> records skipped
    _kinds: dict[str, int] = field(default_factory=dict)
    _hashed: dict[str, Segment] = field(default_factory=dict)  # a hashed log's messages

    def problem(self, kind: str, line: str) -> None:
        n = self._kinds.get(kind, 0) + 1
        self._kinds[kind] = n
        self.skipped[kind] = self.skipped.get(kind, 0) + 1
        if n <= MAX_PROBLEM_LINES:
            self.problems.append(line)
        elif n == MAX_PROBLEM_LINES + 1:
            self.problems.append(f"(further '{kind}' problems are counted, not listed)")

    # ---- files ------------------------------------------------------------------------------
    def read(self, path: Path) -> None:
        """One file: ``.json`` is one document, ``.jsonl`` JSON lines, anything else (a rotated
        ``requests.jsonl.1``) is told by its content."""
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                suffix = path.suffix.lower()
                if suffix == ".json":
                    self._json_file(path, f.read())
                elif suffix in (".jsonl", ".ndjson"):
                    self._jsonl(path, f)
                else:
                    text = f.read()
                    first = text.lstrip()[:1]
                    if first == "[" or (first == "{" and "\n" in text.strip()
                                        and _one_object(text)):
                        self._json_file(path, text)
                    elif first == "{":
                        self._jsonl(path, text.splitlines())
                    elif first:
                        self.problem("not json", f"{path}: neither JSON nor JSON lines (it "
                                     f"starts with {first!r}); skipped")
        except OSError as e:
            self.problem("unreadable", f"{path}: cannot read it ({e.strerror}); skipped")

    def _json_file(self, path: Path, text: str) -> None:
        try:
            doc = json.loads(text)
        except ValueError as e:
            self.problem("bad json", f"{path}: not valid JSON ({e}); skipped")
            return
        runs = doc if isinstance(doc, list) and doc and all(
            isinstance(r, list) or (isinstance(r, Mapping) and "messages" in r) for r in doc) \
            else [doc]
        for r, run in enumerate(runs):
            where = f"{path}" + (f" run {r + 1}" if len(runs) > 1 else "")
            try:
                messages, tools, model = _run_of(run)
                self._expand(where, messages, tools, model)
            except NotOpenAI as e:
                self.problem("not openai", f"{where}: {e}; skipped")

    def _expand(self, where: str, messages: list, tools: Any, model: str | None) -> None:
        """A run's messages as requests: one per assistant message, its prompt all before."""
        segs = [*self._tool_segment(tools), *(self._segment(m, where, i)
                                              for i, m in enumerate(messages))]
        first = len(segs) - len(messages)
        run = f"{where}#{len(self.calls)}"
        for i, m in enumerate(messages):
            if m.get("role") == "assistant" and i > 0:
                out = segs[first + i]
                prompt = segs[:first + i]
                self.calls.append(Call(f"{where} message {i + 1}", run, model, prompt,
                                       sum(s.tokens for s in prompt), max(1, out.tokens)))

    def _jsonl(self, path: Path, lines: Iterable[str]) -> None:
        bodies: list[Call] = []
        for n, line in enumerate(lines, 1):
            if not line.strip():
                continue
            where = f"{path}:{n}"
            try:
                rec = json.loads(line)
            except ValueError:
                self.problem("bad json", f"{where}: not a complete JSON object (a truncated "
                             "line?); skipped")
                continue
            try:
                if not isinstance(rec, Mapping):
                    raise NotOpenAI("not a JSON object")
                if "prompt_tokens" in rec and "status" in rec:  # the gateway's request log
                    self._log_record(where, rec)
                else:
                    bodies.append(self._body(where, rec))
            except NotOpenAI as e:
                self.problem("not openai", f"{where}: {e}; skipped")
        _infer_outputs(bodies)
        self.calls.extend(bodies)

    # ---- records ----------------------------------------------------------------------------
    def _log_record(self, where: str, rec: Mapping[str, Any]) -> None:
        if rec.get("status") != 200 or rec.get("output_tokens") is None:
            self.skipped["not answered"] = self.skipped.get("not answered", 0) + 1
            return
        prompt, out = rec.get("prompt_tokens"), rec.get("output_tokens")
        if not isinstance(prompt, int) or not isinstance(out, int) or prompt <= 0:
            raise NotOpenAI("prompt_tokens and output_tokens must be integers")
        segs: list[Segment] = []
        body = rec.get("body")
        if isinstance(body, Mapping) and isinstance(body.get("messages"), list):
            segs = self._segments(body, where)
        else:
            tools = rec.get("tools")
            if isinstance(tools, Mapping):
                segs.append(Segment("tools", "tools", int(tools.get("tokens") or 0),
                                    str(tools.get("hash"))))
            known = self._hashed
            for m in rec.get("messages") or ():
                try:  # (no isinstance here: this runs for every message of every request)
                    seg = known.get(m["hash"])
                except (TypeError, KeyError):
                    raise NotOpenAI("its 'messages' are not the request log's hashed rows"
                                    ) from None
                # A conversation resends its messages every turn: one Segment per message
                # (a hash names the role and text, so its part and tokens are the same).
                if seg is None:
                    seg = Segment(str(m.get("part") or "history"), str(m.get("role")),
                                  int(m.get("tokens") or 0), str(m["hash"]))
                    if len(known) > 1 << 20:
                        known.clear()
                    known[seg.hash] = seg
                segs.append(seg)
        blocks = rec.get("blocks")
        cached = rec.get("cached_tokens")
        self.calls.append(Call(
            where, _run_key(rec.get("tenant"), rec.get("model"), segs), rec.get("model"), segs,
            prompt, max(1, out), True, cached if isinstance(cached, int) else None,
            blocks if isinstance(blocks, list) else None, int(rec.get("block_tokens") or 512),
            rec.get("ttft_s"), rec.get("tpot_s"), counted=False))

    def _body(self, where: str, rec: Mapping[str, Any]) -> Call:
        body = rec.get("request", rec)
        if not isinstance(body, Mapping) or not isinstance(body.get("messages"), list) \
                or not body["messages"]:
            keys = ", ".join(sorted(map(str, rec))[:6]) or "none"
            raise NotOpenAI(f"not an OpenAI chat request (no 'messages' list; its keys: {keys})")
        segs = self._segments(body, where)
        out, known = 1, False
        resp = rec.get("response")
        if isinstance(resp, Mapping):
            usage = resp.get("usage") or {}
            if isinstance(usage.get("completion_tokens"), int):
                out, known = max(1, usage["completion_tokens"]), True
            else:
                choices = resp.get("choices") or [{}]
                msg = choices[0].get("message") if isinstance(choices[0], Mapping) else None
                if isinstance(msg, Mapping):
                    out, known = max(1, self.count(content_text(msg))), True
        model = body.get("model") if isinstance(body.get("model"), str) else None
        return Call(where, _run_key(None, model, segs), model, segs,
                    sum(s.tokens for s in segs), out, known)

    def _segments(self, body: Mapping[str, Any], where: str) -> list[Segment]:
        return [*self._tool_segment(body.get("tools") or body.get("functions")),
                *(self._segment(m, where, i) for i, m in enumerate(body["messages"]))]

    def _tool_segment(self, tools: Any) -> list[Segment]:
        text = tools_text(tools)
        return [Segment("tools", "tools", self.count(text), digest(text), text)] if text else []

    def _segment(self, m: Any, where: str, i: int) -> Segment:
        if not isinstance(m, Mapping) or not isinstance(m.get("role"), str):
            raise NotOpenAI(f"message {i + 1} is not a {{role, content}} object")
        content = m.get("content")
        if content is not None and not isinstance(content, str | list):
            raise NotOpenAI(f"message {i + 1}'s content is neither text nor a list of parts")
        text = content_text(m)
        n = self.count(text)
        role = m["role"]
        return Segment(part_of(m, n), role, n, digest(f"{role}\0{text}"), text)


def _one_object(text: str) -> bool:
    """Whether ``text`` is a single JSON value (a pretty-printed file), not JSON lines."""
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def _run_of(run: Any) -> tuple[list, Any, str | None]:
    if isinstance(run, Mapping):
        messages, tools, model = run.get("messages"), run.get("tools"), run.get("model")
    else:
        messages, tools, model = run, None, None
    if not isinstance(messages, list) or not messages:
        raise NotOpenAI("not an OpenAI chat transcript (expected a list of {role, content} "
                        "messages, or an object with 'messages')")
    return messages, tools, model if isinstance(model, str) else None


def _run_key(tenant: Any, model: Any, segs: list[Segment]) -> str:
    """Requests of one conversation: same tenant and model, same first message after the
    system prompt and tools (which may change from turn to turn)."""
    first = next((s.hash for s in segs if s.part not in ("system", "tools")), "")
    return f"{tenant}|{model}|{first}"


def _infer_outputs(calls: list[Call]) -> None:
    """A logged request without its answer: the assistant message the next request of its
    conversation carries right after this request's messages is its output (the system prompt
    and tools aside: they may change from turn to turn)."""
    last: dict[str, Call] = {}
    for c in calls:
        prev = last.get(c.run)
        last[c.run] = c
        if prev is None or prev.output_known:
            continue
        a = [s.hash for s in prev.segments if s.part not in ("tools", "system")]
        b = [s for s in c.segments if s.part not in ("tools", "system")]
        if len(b) > len(a) and [s.hash for s in b[:len(a)]] == a and \
                b[len(a)].role == "assistant":
            prev.output_tokens, prev.output_known = max(1, b[len(a)].tokens), True
