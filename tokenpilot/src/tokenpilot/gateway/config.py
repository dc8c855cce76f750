"""The gateway's configuration: one YAML file in the vocabulary the simulator uses.

::

    listen: {host: 127.0.0.1, port: 8080}
    backends:
      - url: http://127.0.0.1:8001
        name: h100-0                 # default: host:port
        kind: vllm                   # openai | vllm | sglang | llamacpp (whose /metrics to read)
        gpu: h100-sxm                # optional: cost-model speeds for the router's views
        model: llama-3.1-8b          # the model it serves (default: read from /v1/models)
        engine: vllm-v1              # optional: its engine profile (data/engines.yaml)
        calibration: PROFILE.yaml    # optional: a fitted profile (tokenpilot calibrate --fit),
                                     #   relative to this file; the views' speeds and
                                     #   admission's TTFT predictions use it
        max_concurrency: 256         # requests in flight to it at most
        labels: [long-context]
        api_key: sk-...              # sent as 'Authorization: Bearer ...' (vLLM --api-key)
        api_key_env: VLLM_API_KEY    # or: read the key from this environment variable
        headers: {X-Org: team-a}     # more headers sent with every request to it
    router: earliest-completion      # NAME, NAME:k=v,..., a composition file, or a mapping
    admission: {max_context: 32768, default_tenant: {tokens_per_minute: 600000}}
    tenants: {sk-acme-1: acme, sk-beta-1: beta}    # API key -> tenant; none: open gateway
    timeouts: {connect_s: 2, first_byte_s: 60, total_s: 600}
    health: {interval_ms: 500, failures_to_eject: 3, timeout_s: 2}
    limits: {max_body_bytes: 4194304, max_tokens: 32768, default_max_tokens: 256, retries: 2}
    tokenizer: path/to/tokenizer.json  # else prompt tokens are estimated (~4 chars/token)
    queue_discipline: vtc            # fcfs | priority | vtc: order of requests waiting for a slot
    access_log: {enabled: true, path: access.jsonl, fields: [ts, path, status, reason, tenant]}
    log: {requests: requests.jsonl, bodies: hashed}  # per completion request, for `tokenpilot
                                     #   audit`; bodies: false | hashed | full
    dashboard: {admin_keys: [sk-ops-1], history_s: 300, sample_ms: 1000,
                listen: 127.0.0.1:9090}  # listen: also served off the data path (optional)
    state: {store: redis, url: redis://10.0.0.5:6379/0, key_prefix: "tokenpilot:",
            on_failure: open}        # several replicas share buckets and load (gateway.state)
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, ClassVar, Literal
from urllib.parse import urlsplit

import yaml

from tokenpilot.config_section import (
    Bounds,
    NonNegativeFloat,
    NonNegativeInt,
    PositiveFloat,
    PositiveInt,
    from_mapping,
    read_text,
)
from tokenpilot.policy.admission import AdmissionConfig
from tokenpilot.policy.compose import Composition
from tokenpilot.policy.disciplines import DisciplineName

Kind = Literal["openai", "vllm", "sglang", "llamacpp"]  # whose /metrics to read
Port = Annotated[int, Bounds(ge=0, le=65535)]
# What an access-log line may hold (``gateway.accesslog``), in this order by default.
ACCESS_LOG_FIELDS = ("ts", "arrival_s", "method", "path", "status", "reason", "tenant", "model",
                     "backend", "stream", "prompt_tokens", "output_tokens", "cached_tokens",
                     "ttft_s", "tpot_s", "latency_s")
_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")  # an HTTP header name (RFC 9110 token)


class ConfigError(ValueError):
    """The gateway configuration is malformed; the message names the key and the fix."""


@dataclass(frozen=True)
class BackendConfig:
    shorthand: ClassVar[str] = "url"  # a bare URL is a backend of the defaults

    url: str
    name: str = ""  # default: host:port
    kind: Kind = "vllm"
    gpu: str = ""
    model: str = ""
    tp: PositiveInt = 1
    engine: str = ""  # an engine profile (tokenpilot.engines); "": the default (vllm-v1)
    calibration: str = ""  # a profile file (tokenpilot.calibrate.profile); "": the family's
    max_concurrency: PositiveInt = 256
    labels: tuple[str, ...] = ()
    # Sent upstream with every request (proxied and health checks): a key for a vLLM started
    # with --api-key or a hosted endpoint, given inline or by the variable that holds it.
    api_key: str = field(default="", repr=False)
    api_key_env: str = ""
    headers: dict[str, str] = field(default_factory=dict, hash=False)

    def __post_init__(self) -> None:
        url = self.url.rstrip("/")
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError(f"{url!r} is not an http(s) URL like http://127.0.0.1:8001")
        object.__setattr__(self, "url", url)
        if not self.name:
            object.__setattr__(self, "name", parts.netloc)
        if self.api_key and self.api_key_env:
            raise ValueError("give api_key or api_key_env, not both")
        if self.engine:
            from tokenpilot.engines import get_engine

            get_engine(self.engine)  # UnknownEngineError (a ValueError) names the known ones
        if self.calibration:
            from tokenpilot.calibrate.profile import load_profile

            load_profile(self.calibration)  # ProfileError (a ValueError) names file and key
        if self.api_key_env:
            key = os.environ.get(self.api_key_env, "")
            if not key:
                raise ValueError(f"api_key_env: the environment variable {self.api_key_env} "
                                 "is not set")
            object.__setattr__(self, "api_key", key)
        for k, v in self.upstream_headers.items():
            if not _TOKEN.fullmatch(k):
                raise ValueError(f"headers: {k!r} is not a valid header name")
            if any(c in v for c in "\r\n\0"):
                raise ValueError(f"headers: the value of {k!r} holds a line break")

    @property
    def upstream_headers(self) -> dict[str, str]:
        """The headers sent with each request to this backend, besides Host and the body's."""
        auth = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        return {**auth, **self.headers}


@dataclass(frozen=True)
class Listen:
    host: str = "127.0.0.1"
    port: Port = 8080


@dataclass(frozen=True)
class Timeouts:
    connect_s: PositiveFloat = 2.0
    first_byte_s: PositiveFloat = 60.0
    total_s: PositiveFloat = 600.0


@dataclass(frozen=True)
class HealthConfig:
    interval_ms: PositiveInt = 500
    failures_to_eject: PositiveInt = 3
    timeout_s: PositiveFloat = 2.0


@dataclass(frozen=True)
class Limits:
    max_body_bytes: PositiveInt = 4 << 20
    max_tokens: PositiveInt = 32768
    default_max_tokens: PositiveInt = 256
    retries: NonNegativeInt = 2  # further backends tried when one fails before the first byte
    # When every healthy backend is at its concurrency cap, wait (FCFS) this long for a slot.
    queue_timeout_s: NonNegativeFloat = 10.0
    max_queue: NonNegativeInt = 4096


@dataclass(frozen=True)
class AccessLogConfig:
    """One JSON line per request answered (``gateway.accesslog``)."""

    enabled: bool = False
    path: str = "-"  # a file, appended to; "-": standard error
    fields: tuple[str, ...] = ACCESS_LOG_FIELDS

    def __post_init__(self) -> None:
        unknown = [f for f in self.fields if f not in ACCESS_LOG_FIELDS]
        if unknown:
            raise ValueError(f"fields: {', '.join(map(repr, unknown))} not known; choose from "
                             f"{', '.join(ACCESS_LOG_FIELDS)}")
        if not self.fields:
            raise ValueError("fields: name at least one field")


@dataclass(frozen=True)
class RequestLogConfig:
    """The request log for ``tokenpilot audit`` (``gateway.accesslog.RequestLog``): one JSON line
    per completion request with every access-log field; ``bodies``: none of the body (false),
    per message its role, part, tokens and hash and a hash per 512-token block (hashed), or the
    body itself (full)."""

    requests: str = ""  # the file (appended to); "": no request log; "-": standard error
    bodies: Literal[False, "hashed", "full"] = False
    max_bytes: NonNegativeInt = 256 << 20  # rotate past this size (0: never)
    backups: NonNegativeInt = 5  # rotated files kept: PATH.1 (newest) ... PATH.<backups>
    queue_size: PositiveInt = 65536  # records waiting for the writer; more are dropped, counted


@dataclass(frozen=True)
class DashboardConfig:
    """``/dashboard``: the operator's live view (``gateway.dashboard``)."""

    # With tenants configured, the page and its data need one of these keys (as a Bearer key,
    # or once as ``/dashboard?key=...``, which sets a cookie); tenants' keys do not open it.
    admin_keys: tuple[str, ...] = field(default=(), repr=False)
    history_s: Annotated[int, Bounds(ge=10, le=3600)] = 300  # how far back the charts go
    sample_ms: Annotated[int, Bounds(ge=100, le=60000)] = 1000  # one point per this
    # The admin listener: also serve /dashboard and /dashboard/data here, from a thread of
    # their own, off the data plane's event loop (the same admin keys). "PORT" or ":PORT"
    # (127.0.0.1), "HOST:PORT", "[V6]:PORT", or a Unix socket's path ("/..." or
    # "unix:PATH"); "": none (the gateway's own port serves the dashboard either way).
    listen: str = ""
    # With ``listen`` set: the interpreter's GIL switch interval while it serves (Python's is
    # 5 ms), the longest the admin thread waits for the GIL while the serving thread runs
    # Python; it costs nothing while no other thread waits for the GIL. 0: left as it is.
    gil_switch_ms: Annotated[float, Bounds(ge=0, le=100)] = 0.2

    def __post_init__(self) -> None:
        if any(not k or any(c.isspace() for c in k) for k in self.admin_keys):
            raise ValueError("admin_keys: a key must be non-empty, without spaces")
        if self.listen:
            admin_address(self.listen)  # ValueError: says what is wrong with it


def admin_address(spec: str) -> tuple[str, int] | str:
    """``dashboard.listen`` as (host, port), or a Unix socket's path; ValueError if neither."""
    if spec.startswith("unix:") or spec.startswith("/"):
        path = spec[5:] if spec.startswith("unix:") else spec
        if not path or "\0" in path:
            raise ValueError(f"listen: {spec!r} names no Unix socket path")
        return path
    host, sep, port = spec.rpartition(":")
    if not sep:
        host, port = "", spec
    host = host.strip("[]") if host.startswith("[") and host.endswith("]") else host
    if not port.isdigit() or int(port) > 65535 or (":" in host and not sep):
        raise ValueError(f"listen: {spec!r} is not PORT, HOST:PORT or a Unix socket path "
                         "(port 0-65535)")
    return host or "127.0.0.1", int(port)


@dataclass(frozen=True)
class StateConfig:
    """Where tenant buckets, fair-queue counters and backend load live (``gateway.state``):
    ``memory`` (this process alone) or ``redis``, shared by every replica pointed at it."""

    store: Literal["memory", "redis"] = "memory"
    url: str = "redis://127.0.0.1:6379/0"  # redis://, rediss:// or unix:///path/redis.sock
    key_prefix: str = "tokenpilot:"  # replicas sharing budgets use the same prefix
    # Redis lost while serving: ``open`` admits against this replica's share of each budget
    # (the budget / the live replicas it last saw); ``closed`` answers 503 with Retry-After.
    on_failure: Literal["open", "closed"] = "open"
    heartbeat_ms: Annotated[int, Bounds(ge=10, le=60000)] = 500  # load and counters shared
    # A replica silent this long is dead: its load and its reservations stop counting.
    ttl_s: PositiveFloat = 5.0
    # One Redis call slower than this means Redis is lost (a loaded replica's event loop can
    # stall for a good part of a second: not a reason to drop shared accounting).
    timeout_s: PositiveFloat = 2.0
    replica: str = ""  # this replica's name in Redis; default host:pid:random

    def __post_init__(self) -> None:
        if urlsplit(self.url).scheme not in ("redis", "rediss", "unix"):
            raise ValueError(f"url: {self.url!r} is not a redis://, rediss:// or unix:// URL")
        if self.ttl_s * 1000 < 2 * self.heartbeat_ms:
            raise ValueError(f"ttl_s: {self.ttl_s:g} s must span at least two heartbeats "
                             f"({2 * self.heartbeat_ms} ms), or live replicas expire")


@dataclass
class GatewayConfig:
    listen: Listen = field(default_factory=Listen)
    backends: list[BackendConfig] = field(default_factory=list)
    # A router name or spec (NAME:k=v, a composition file), or a composition written inline.
    router: str | Composition = "earliest-completion"
    admission: AdmissionConfig = field(default_factory=AdmissionConfig)
    tenants: dict[str, str] = field(default_factory=dict)  # API key -> tenant
    timeouts: Timeouts = field(default_factory=Timeouts)
    health: HealthConfig = field(default_factory=HealthConfig)
    limits: Limits = field(default_factory=Limits)
    tokenizer: str | None = None
    queue_discipline: DisciplineName = "fcfs"  # who gets a free slot
    access_log: AccessLogConfig = field(default_factory=AccessLogConfig)
    log: RequestLogConfig = field(default_factory=RequestLogConfig)
    dashboard: DashboardConfig = field(default_factory=DashboardConfig)
    state: StateConfig = field(default_factory=StateConfig)

    @classmethod
    def load(cls, path: str | Path) -> GatewayConfig:
        path = Path(path)
        text = read_text(path, ConfigError)
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            raise ConfigError(f"{path}: not valid YAML ({exc})") from None
        from tokenpilot.calibrate.profile import resolve_profile_paths

        return from_mapping(cls, resolve_profile_paths(data, path.parent, "backends"),
                            str(path), ConfigError)
