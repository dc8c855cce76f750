"""Relaying one upstream SSE stream to the client, chunk by chunk, watching for ``usage``.

Chunks go out as they come in; the relay only looks at complete events (it keeps the bytes
after the last blank line for the next chunk) to find the final ``usage`` and to count content
events when no usage arrives. When the gateway itself asked for usage (the client did not),
the usage event is cut out, which holds back at most one partial event.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

SEP = b"\n\n"


@dataclass
class StreamTally:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    content_events: int = 0
    usage_seen: bool = False
    tail: bytes = b""

    def feed(self, chunk: bytes, strip_usage: bool) -> bytes:
        """Account for ``chunk``; return what to send on (``chunk`` itself unless stripping)."""
        window = self.tail + chunk if self.tail else chunk
        cut = window.rfind(SEP)
        if cut < 0:
            self.tail = window
            return b"" if strip_usage else chunk
        complete, self.tail = window[:cut + 2], window[cut + 2:]
        self.content_events += complete.count(b'"finish_reason":null')
        if b'"usage":{' not in complete:
            return complete if strip_usage else chunk
        kept = []
        for event in complete.split(SEP):
            if not event:
                continue
            if b'"usage":{' in event and self._read_usage(event) and strip_usage and (
                    b'"choices":[]' in event):
                continue  # the usage-only event the client did not ask for
            kept.append(event + SEP)
        return b"".join(kept) if strip_usage else chunk

    def flush(self, strip_usage: bool) -> bytes:
        rest, self.tail = self.tail, b""
        return rest if strip_usage else b""

    def _read_usage(self, event: bytes) -> bool:
        start = event.find(b"{")
        try:
            usage = json.loads(event[start:]).get("usage")
        except ValueError:
            return False
        if not isinstance(usage, dict):
            return False
        self.prompt_tokens = int(usage.get("prompt_tokens") or 0)
        self.completion_tokens = int(usage.get("completion_tokens") or 0)
        self.usage_seen = True
        return True

    @property
    def tokens_out(self) -> int:
        return self.completion_tokens if self.usage_seen else self.content_events
