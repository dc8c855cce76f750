"""What part of a prompt a chat message is, and its hash: shared by the gateway's request log
(``bodies: hashed``) and ``tokenpilot audit``, so a hashed log and a transcript are read alike.

Parts: ``system`` (role system or developer), ``tools`` (the request's tool definitions),
``history`` (user and assistant turns), ``tool_results`` (role tool or function), ``documents``
(a user message, or content part, that is an attached document: a ``file``/``document`` part,
text that opens with a ``<document``/``<file``/``<doc`` tag, or user text of at least
``DOCUMENT_TOKENS`` tokens) and, for the answer, ``output``.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from typing import Any

PARTS = ("system", "tools", "history", "tool_results", "documents", "output")
PROMPT_PARTS = PARTS[:-1]
DOCUMENT_TOKENS = 1000  # user text this long counts as an attached document
BLOCK_TOKENS = 512  # the request log's block hashes cover this many tokens each
_DOC_TAG = re.compile(r"\s*<(document|file|doc)\b", re.IGNORECASE)
_DOC_PART_TYPES = {"file", "input_file", "document"}


def digest(text: str) -> str:
    """A stable 16-hex-digit hash of ``text`` (BLAKE2b)."""
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()


def content_text(m: Mapping[str, Any]) -> str:
    """The text a message puts in the prompt: its content (text parts joined by newlines) and
    the arguments of the tool calls it makes."""
    content = m.get("content")
    if isinstance(content, list):
        text = "\n".join(_part_text(p) for p in content if isinstance(p, Mapping))
    else:
        text = "" if content is None else str(content)
    calls = m.get("tool_calls")
    if not isinstance(calls, list) or not calls:
        return text
    pieces = [text] if text else []
    pieces += [json.dumps(c.get("function", c), sort_keys=True) for c in calls
               if isinstance(c, Mapping)]
    return "\n".join(pieces)


def _part_text(p: Mapping[str, Any]) -> str:
    if "text" in p:
        return str(p["text"])
    inner = p.get(p.get("type", ""))
    if isinstance(inner, Mapping):  # {"type": "file", "file": {"file_data": ...}}
        return str(inner.get("file_data") or inner.get("text") or inner.get("data") or "")
    return ""


def tools_text(tools: Any) -> str:
    """The request's tool (or legacy function) definitions as JSON, one tool per line (so a
    changed tool is found by its line, as a changed line of a system prompt is)."""
    if not isinstance(tools, list) or not tools:
        return ""
    return "\n".join(json.dumps(t, sort_keys=True, separators=(",", ":")) for t in tools)


def part_of(m: Mapping[str, Any], tokens: int) -> str:
    """The part a message of ``tokens`` tokens belongs to (module doc)."""
    role = m.get("role")
    if role in ("system", "developer"):
        return "system"
    if role in ("tool", "function"):
        return "tool_results"
    if role == "user":
        content = m.get("content")
        if isinstance(content, list) and any(isinstance(p, Mapping) and
                                             p.get("type") in _DOC_PART_TYPES for p in content):
            return "documents"
        text = content if isinstance(content, str) else ""
        if tokens >= DOCUMENT_TOKENS or (text and _DOC_TAG.match(text)):
            return "documents"
    return "history"


def block_hashes(text: str, block_chars: int) -> list[str]:
    """Chained hashes of each full block of ``block_chars`` characters of ``text``: block k's
    hash covers blocks 0..k, so two prompts share a prefix of k blocks when their first k
    hashes are equal."""
    out = []
    h = hashlib.blake2b(digest_size=8)
    for i in range(len(text) // block_chars):
        h.update(text[i * block_chars:(i + 1) * block_chars].encode("utf-8", "surrogatepass"))
        out.append(h.copy().hexdigest()[:12])
    return out
