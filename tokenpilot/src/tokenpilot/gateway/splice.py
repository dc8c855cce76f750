"""Relaying a streamed answer from the backend's socket straight to the client's.

The plain relay takes each SSE chunk through the asyncio stream reader, a task wake-up and three
async generators into uvicorn's ``send``: per relayed chunk more of the gateway's CPU than the
kernel's own work. ``Splice`` is the backend connection's protocol while one stream is relayed:
``data_received`` unframes the backend's chunked body, reads each chunk (``StreamTally``: the
usage, the tokens streamed), has the stream's books updated and writes all that arrived in one
read to the client's transport as one chunk of the client's chunked body, with no task woken.
Whatever came in one read leaves in one write, in order; nothing waits for more, so the first
token (sent before the splice starts) and every later one leave as soon as they are in.

The relay task wakes only when it has something to do (``next``): the chunk that ends with
``data: [DONE]`` (it goes out with the response's end, through the server's ``send``), a client
whose write buffer is full (it drains through ``send``; the backend is not read meanwhile), the
backend's body ending, or an error. Once the body's last chunk is in, the connection gets its
stream reader back and returns to its pool.

Where the connection cannot be taken over (``Splice.possible``: a body that is not chunked, a
reader in a state this does not know) the plain relay carries on. This module (and the
``Watchdog``) is compiled by mypyc where a C compiler is at hand (tokenpilot/setup.py), as the
engine is; the plain relay uses the same ``StreamTally``.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tokenpilot.gateway.watchdog import Watchdog
from tokenpilot.gateway.wire import WireError, WireResponse

log = logging.getLogger("tokenpilot.gateway")
DONE = b"data: [DONE]\n\n"
CRLF = b"\r\n"
SEP = b"\n\n"


@dataclass
class StreamTally:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int | None = None
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
        if cut + 2 == len(window):  # the rule: a chunk ends with its event; no copies then
            complete, self.tail = window, b""
        else:
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
            data = json.loads(event[start:])
        except ValueError:
            return False
        usage = data.get("usage")
        if not isinstance(usage, dict):
            return False
        self.cached_tokens = cached_tokens(data)
        self.prompt_tokens = int(usage.get("prompt_tokens") or 0)
        self.completion_tokens = int(usage.get("completion_tokens") or 0)
        self.usage_seen = True
        return True

    @property
    def tokens_out(self) -> int:
        return self.completion_tokens if self.usage_seen else self.content_events


def cached_tokens(answer: dict) -> int | None:
    """Prompt tokens the backend served from its prefix cache, where its answer says: OpenAI's
    and vLLM's ``usage.prompt_tokens_details.cached_tokens``, or llama.cpp's
    ``timings.cache_n``; None when it does not."""
    details = (answer.get("usage") or {}).get("prompt_tokens_details")
    if isinstance(details, dict) and isinstance(details.get("cached_tokens"), int):
        return details["cached_tokens"]
    timings = answer.get("timings")
    if isinstance(timings, dict) and isinstance(timings.get("cache_n"), int):
        return timings["cache_n"]
    return None



class Splice:
    """The backend connection's protocol while its stream is relayed (see the module's doc).

    ``tally`` reads each of the backend's chunks (``strip``: and cuts the usage event out);
    ``sent()`` accounts for what was written on (the stream's books: ``RelayStream.sent``),
    and may raise ``TimeoutError`` (the total deadline).
    """

    def __init__(self, resp: WireResponse, client: asyncio.WriteTransport, tally: StreamTally,
                 strip: bool, sent: Callable[[], None], read_s: float | None) -> None:
        self.resp = resp
        self.client = client
        self.tally = tally
        self.strip = strip
        self.sent = sent
        self.reader: Any = resp._reader
        self.upstream: Any = resp._writer.transport
        self.original: Any = None
        self.buf = bytearray()
        self.need = -1  # bytes of the current chunk still to come (with its CRLF); -1: a size line
        self.trailer = False  # the last chunk's size line is in: its trailer section is next
        self.ended = False  # the backend's body is in to its end (or failed)
        self.handed_over = False  # the [DONE] chunk went to the relay task: write no more
        self.paused = False
        self.events: deque[Any] = deque()  # bytes to send through the server, an error, None
        self.waiter: asyncio.Future | None = None
        # The response's read timer, taken over (one timer per request: ``watchdog``).
        self.watch: Watchdog = resp.watchdog(read_s)
        self.watch.expire = self._expire
        _, self.high = client.get_write_buffer_limits()

    @staticmethod
    def possible(resp: WireResponse) -> bool:
        """Whether ``resp``'s connection can be taken over from its stream reader here: a
        chunked body, a reader idle between two chunks, in the state this knows."""
        reader, upstream = resp._reader, resp._writer.transport
        return (resp.headers.get("transfer-encoding", "").lower() == "chunked"
                and isinstance(getattr(reader, "_buffer", None), bytearray)
                and getattr(reader, "_waiter", True) is None
                and getattr(reader, "_paused", True) is False and reader.exception() is None
                and not reader.at_eof() and upstream is not None and not upstream.is_closing())

    def start(self) -> None:
        """Take the connection over, with what its reader holds already (``possible`` first;
        the reader's own iteration must be over)."""
        self.original = self.upstream.get_protocol()
        buffered = self.reader._buffer
        pending = bytes(buffered)
        buffered.clear()
        self.upstream.set_protocol(self)
        self.watch.start()
        if pending:
            self.data_received(pending)

    # -- the protocol ------------------------------------------------------------------------

    def connection_made(self, transport: Any) -> None:  # not called: the connection is made
        pass

    def data_received(self, data: bytes) -> None:
        if self.ended:
            return
        self.watch.start()  # waiting for the next chunk from now on
        if self.buf:
            self.buf += data
            if self.need > len(self.buf):
                return  # the chunk is not in yet
            data = bytes(self.buf)
            self.buf.clear()
        chunks: list[bytes] = []
        pos, n = 0, len(data)
        end = -1  # where the body ended in ``data``, if it did
        try:
            while pos < n:
                if self.need < 0:
                    eol = data.find(CRLF, pos)
                    if eol < 0:
                        break
                    line = data[pos:eol]
                    pos = eol + 2
                    if self.trailer:
                        if not line:  # the end of the trailer section: the body is in
                            end = pos
                            break
                        continue  # a trailer field: nothing here reads it
                    semi = line.find(b";")  # a chunk extension: nothing here reads it
                    size = int((line if semi < 0 else line[:semi]).strip() or b"0", 16)
                    if size == 0:
                        self.trailer = True
                        continue
                    self.need = size + 2
                if n - pos < self.need:
                    break
                stop = pos + self.need
                if not data.startswith(CRLF, stop - 2):
                    raise ValueError("a chunk without its CRLF")
                chunks.append(data[pos:stop - 2])
                pos, self.need = stop, -1
        except ValueError as exc:
            self._fail(WireError(f"broken response body: {exc}"))
            return
        if end < 0 and pos < n:
            self.buf += data[pos:]
        if chunks:
            self._relay(chunks)
        if end >= 0 and not self.ended:
            self._body_end(data[end:])

    def _relay(self, chunks: list[bytes]) -> None:
        """What one read brought, to the client in one write (the [DONE] chunk excepted)."""
        tally, strip = self.tally, self.strip
        # One chunk per read is the rule (a token each): no list and join for it.
        out = (tally.feed(chunks[0], strip) if len(chunks) == 1 else
               b"".join([tally.feed(c, strip) for c in chunks]))
        if self.handed_over:
            if out.strip():
                log.debug("dropped %d bytes after [DONE]", len(out))
        elif out.endswith(DONE):
            self.handed_over = True  # the response's end goes out through the server
            self._emit(out)
        elif out:
            if self.client.is_closing():  # the client left; its watcher stops the relay
                self._pause()
                return
            self.client.write(b"%x\r\n%b\r\n" % (len(out), out))
            if self.client.get_write_buffer_size() > self.high:
                self._pause()
                self._emit(b"")  # the relay task drains the client, then resumes reading
        try:
            self.sent()
        except TimeoutError as exc:
            self._fail(exc)

    def eof_received(self) -> bool:
        return False  # close; connection_lost follows

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.ended:
            self._fail(WireError(f"connection closed mid-body{f': {exc!r}' if exc else ''}"))

    def pause_writing(self) -> None:  # nothing is written to the backend during a stream
        pass

    def resume_writing(self) -> None:
        pass

    # -- the relay task's side ---------------------------------------------------------------

    async def next(self) -> bytes | None:
        """What the relay task must send through the server next, in order: b"" (drain the
        client; reading resumes at the next call), the [DONE] chunk; None once the backend's
        body has ended; raises the error that ended it otherwise."""
        if self.paused and not self.ended:  # the client took the last b"": drained
            self.paused = False
            self.watch.start()
            self.upstream.resume_reading()
        while not self.events:
            self.waiter = asyncio.get_running_loop().create_future()
            try:
                await self.waiter
            finally:
                self.waiter = None
        ev = self.events.popleft()
        if isinstance(ev, BaseException):
            raise ev
        return ev

    def close(self) -> None:
        """The relay is over (whatever happened): a connection whose body did not come to its
        end is closed, so the backend stops generating."""
        self.watch.cancel()
        if not self.ended:
            self.ended = True
            self.resp.close(reuse=False)

    # -- internals ---------------------------------------------------------------------------

    def _emit(self, ev: Any) -> None:
        self.events.append(ev)
        w = self.waiter
        if w is not None and not w.done():
            w.set_result(None)

    def _pause(self) -> None:
        if not self.paused:
            self.paused = True
            self.watch.stop()  # not reading: the backend is not late
            self.upstream.pause_reading()

    def _body_end(self, rest: bytes) -> None:
        """The body is in: the connection goes back to its stream reader and its pool."""
        self.ended = True
        self.watch.cancel()
        if self.paused:
            self.upstream.resume_reading()
        self.upstream.set_protocol(self.original)
        if rest:  # nothing may follow a response on a connection this client does not pipeline
            self.reader.feed_data(rest)
        self.resp.close(reuse=self.resp.headers.get("connection", "").lower() != "close")
        self._emit(None)

    def _fail(self, exc: BaseException) -> None:
        self.ended = True
        self.watch.cancel()
        self.resp.close(reuse=False)
        self._emit(exc)

    def _expire(self) -> None:
        if not self.ended:
            self._fail(TimeoutError(f"no data from the server for {self.watch.limit_s:g} s"))
