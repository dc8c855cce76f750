"""One record per request the gateway answers, and the JSON access log written from it.

``GatewayApp`` opens an ``Exchange`` when a request arrives; the gateway and the relay fill it
in as the request goes (tenant, backend, tokens, time to first token); when the response's last
byte is out it is counted in ``tokenpilot_responses`` and, with ``access_log.enabled``, written
as one JSON line. Its fields include those of a per-request measurement log
(``tokenpilot.calibrate.logs``: ``arrival_s``, ``prompt_tokens``, ``output_tokens``, ``ttft_s``,
``tpot_s``; ``ttft_s`` from the request's arrival at the gateway), so the answered lines of a
gateway's access log are a measurement log of what its clients saw.
"""

from __future__ import annotations

import json
import sys
import time
from typing import IO, Any

from tokenpilot.gateway.config import ACCESS_LOG_FIELDS, AccessLogConfig


class Exchange:
    """What the access log says about one request; ``None``: not known (never reached there)."""

    __slots__ = (*ACCESS_LOG_FIELDS, "t0")

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
        self.ttft_s: float | None = None
        self.tpot_s: float | None = None
        self.latency_s = 0.0

    def since_arrival(self, t: float) -> float:
        """Seconds from the request's arrival to ``t`` (a ``perf_counter`` reading)."""
        return t - self.t0

    def record(self, fields: tuple[str, ...]) -> dict[str, Any]:
        return {f: getattr(self, f) for f in fields}


class AccessLog:
    """JSON lines to a file (appended) or to standard error (``path: "-"``)."""

    def __init__(self, cfg: AccessLogConfig) -> None:
        self.fields = cfg.fields
        self._own = cfg.path != "-"
        self.out: IO[str] = (open(cfg.path, "a", encoding="utf-8", buffering=1)  # noqa: SIM115
                             if self._own else sys.stderr)

    def write(self, ex: Exchange) -> None:
        self.out.write(json.dumps(ex.record(self.fields), separators=(",", ":")) + "\n")

    def close(self) -> None:
        if self._own:
            self.out.close()
