"""One record per request the gateway answers, and the JSON logs written from it.

``GatewayApp`` opens an ``Exchange`` when a request arrives; the gateway and the relay fill it
in as the request goes (tenant, backend, tokens, cached tokens, time to first token); when the
response's last byte is out it is counted in ``tokenpilot_responses`` and handed to the logs:

- the access log (``access_log.enabled``): one JSON line per answer, of the chosen fields. Its
  fields include those of a per-request measurement log (``tokenpilot.calibrate.logs``:
  ``arrival_s``, ``prompt_tokens``, ``output_tokens``, ``ttft_s``, ``tpot_s``; ``ttft_s`` from
  the request's arrival at the gateway), so the answered lines of a gateway's access log are a
  measurement log of what its clients saw;
- the request log (``log.requests``): one JSON line per completion request, every field, and
  with ``log.bodies: hashed`` each message's role, part, tokens and hash plus a chained hash per
  512-token block of the prompt (``tokenpilot audit`` finds repetition and prefix-cache breaks
  from them without the content), or with ``full`` the request body itself.

Both go through a ``LogWriter``: the request path only puts the record on a bounded queue (a
full queue drops the record and counts it, it never waits); a thread of its own hashes,
encodes and writes, and rotates the file by size.
"""

from __future__ import annotations

import json
import logging
import queue
import sys
import threading
import time
from collections.abc import Callable, Mapping
from logging.handlers import RotatingFileHandler
from typing import IO, Any

from tokenpilot.gateway.config import ACCESS_LOG_FIELDS, AccessLogConfig, RequestLogConfig

log = logging.getLogger("tokenpilot.gateway")


class Exchange:
    """What the access log says about one request; ``None``: not known (never reached there)."""

    __slots__ = (*ACCESS_LOG_FIELDS, "t0", "body", "chat")

    def __init__(self, method: str = "POST", path: str = "", arrival_s: float = 0.0) -> None:
        self.t0 = time.perf_counter()
        self.ts = round(time.time(), 3)
        self.arrival_s = arrival_s
        self.method = method
        self.path = path
        self.status = 0
        self.reason = ""
        self.tenant: str | None = None
        self.model: str | None = None
        self.backend: str | None = None
        self.stream: bool | None = None
        self.prompt_tokens: int | None = None
        self.output_tokens: int | None = None
        self.cached_tokens: int | None = None  # prompt tokens the backend found cached
        self.ttft_s: float | None = None
        self.tpot_s: float | None = None
        self.latency_s = 0.0
        self.body: Mapping[str, Any] | None = None  # the request body, for the request log
        self.chat = True

    def since_arrival(self, t: float) -> float:
        """Seconds from the request's arrival to ``t`` (a ``perf_counter`` reading)."""
        return t - self.t0

    def record(self, fields: tuple[str, ...]) -> dict[str, Any]:
        return {f: getattr(self, f) for f in fields}


class LogWriter:
    """JSON lines written by a thread of its own: ``put`` never blocks the request path.

    ``encode(item)`` (run on the writer thread) makes the line of each item put. A ``path`` of
    "-" writes to standard error; a file is appended to and, past ``max_bytes`` (0: never),
    rotated to ``PATH.1`` ... ``PATH.<backups>`` (``logging.handlers.RotatingFileHandler``).
    """

    def __init__(self, path: str, encode: Callable[[Any], str], max_bytes: int = 0,
                 backups: int = 0, queue_size: int = 10000) -> None:
        self.path = path
        self.encode = encode
        self.dropped = 0  # records the full queue refused
        self._q: queue.Queue = queue.Queue(queue_size)
        self._out: IO[str] | None = sys.stderr if path == "-" else None
        self._file = None if path == "-" else RotatingFileHandler(
            path, maxBytes=max_bytes, backupCount=backups, encoding="utf-8")
        if self._file is not None:
            self._file.setFormatter(logging.Formatter("%(message)s"))
        self._thread = threading.Thread(target=self._run, name=f"log {path}", daemon=True)
        self._thread.start()

    def put(self, item: Any) -> None:
        try:
            self._q.put_nowait(item)
        except queue.Full:
            self.dropped += 1
            if self.dropped in (1, 1000) or not self.dropped % 100000:
                log.warning("log %s: the writer is behind; %d record(s) dropped so far",
                            self.path, self.dropped)

    def _run(self) -> None:
        while (item := self._q.get()) is not None:
            try:
                line = self.encode(item)
                if self._file is not None:
                    self._file.emit(logging.makeLogRecord({"msg": line}))
                else:
                    self._out.write(line + "\n")  # type: ignore[union-attr]
            except Exception:  # noqa: BLE001 - one bad record must not stop the log
                log.exception("log %s: a record could not be written", self.path)

    def close(self) -> None:
        """Write what is queued, then close the file."""
        self._q.put(None)
        self._thread.join(timeout=30)
        if self._file is not None:
            self._file.close()


def _dumps(record: Mapping[str, Any]) -> str:
    return json.dumps(record, separators=(",", ":"))


class AccessLog:
    """The access log: the configured fields of every answer (``access_log``)."""

    def __init__(self, cfg: AccessLogConfig) -> None:
        self.fields = cfg.fields
        self.writer = LogWriter(cfg.path, _dumps)

    def write(self, ex: Exchange) -> None:
        self.writer.put(ex.record(self.fields))

    def close(self) -> None:
        self.writer.close()


class RequestLog:
    """The request log: every field of each completion request, and its body hashed or whole
    (``log``); ``count`` counts a text's tokens as the gateway does."""

    def __init__(self, cfg: RequestLogConfig, count: Callable[[str], int]) -> None:
        self.bodies = cfg.bodies
        self.count = count
        self.writer = LogWriter(cfg.requests, self._encode, cfg.max_bytes, cfg.backups,
                                cfg.queue_size)

    def write(self, ex: Exchange) -> None:
        self.writer.put((ex.record(ACCESS_LOG_FIELDS), ex.body, ex.chat))

    def _encode(self, item: tuple[dict[str, Any], Mapping[str, Any] | None, bool]) -> str:
        record, body, chat = item
        if body is not None and self.bodies == "full":
            record["body"] = body
        elif body is not None and self.bodies == "hashed":
            record.update(hashed_body(body, chat, self.count))
        return _dumps(record)

    def close(self) -> None:
        self.writer.close()


def hashed_body(body: Mapping[str, Any], chat: bool, count: Callable[[str], int]
                ) -> dict[str, Any]:
    """What ``bodies: hashed`` keeps of a request body: per message its role, part, tokens,
    characters and hash; the tool definitions' tokens and hash; and the chained hashes of the
    prompt's 512-token blocks (tools first, then the messages, as templates render them)."""
    from tokenpilot.audit.parts import (
        BLOCK_TOKENS,
        block_hashes,
        content_text,
        digest,
        part_of,
        tools_text,
    )
    from tokenpilot.gateway.text import CHARS_PER_TOKEN

    out: dict[str, Any] = {}
    texts = []
    tools = tools_text(body.get("tools") or body.get("functions"))
    if tools:
        texts.append(tools)
        out["tools"] = {"n": len(body.get("tools") or body.get("functions") or ()),
                        "tokens": count(tools), "chars": len(tools), "hash": digest(tools)}
    prompt = body.get("prompt")
    messages = body.get("messages") if chat else [{"role": "user", "content": "\n".join(
        map(str, prompt)) if isinstance(prompt, list) else prompt}]
    rows = []
    for m in messages if isinstance(messages, list) else ():
        if not isinstance(m, Mapping):
            continue
        text = content_text(m)
        n = count(text) if text else 0
        rows.append({"role": m.get("role"), "part": part_of(m, n), "tokens": n,
                     "chars": len(text), "hash": digest(f"{m.get('role')}\0{text}")})
        texts.append(text)
    out["messages"] = rows
    out["block_tokens"] = BLOCK_TOKENS
    out["blocks"] = block_hashes("\n".join(texts), BLOCK_TOKENS * CHARS_PER_TOKEN)
    return out
