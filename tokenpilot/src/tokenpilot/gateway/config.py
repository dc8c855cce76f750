"""The gateway's configuration: one YAML file in the vocabulary the simulator uses.

::

    listen: {host: 127.0.0.1, port: 8080}
    backends:
      - url: http://127.0.0.1:8001
        name: h100-0                 # default: host:port
        kind: vllm                   # openai | vllm | sglang | llamacpp (whose /metrics to read)
        gpu: h100-sxm                # optional: cost-model speeds for the router's views
        model: llama-3.1-8b          # the model it serves (default: read from /v1/models)
        max_concurrency: 256         # requests in flight to it at most
        labels: [long-context]
    router: earliest-completion      # NAME, NAME:k=v,..., a composition file, or a mapping
    admission: {max_context: 32768, default_tenant: {tokens_per_minute: 600000}}
    tenants: {sk-acme-1: acme, sk-beta-1: beta}    # API key -> tenant; none: open gateway
    timeouts: {connect_s: 2, first_byte_s: 60, total_s: 600}
    health: {interval_ms: 500, failures_to_eject: 3, timeout_s: 2}
    limits: {max_body_bytes: 4194304, max_tokens: 32768, default_max_tokens: 256, retries: 2}
    tokenizer: path/to/tokenizer.json  # else prompt tokens are estimated (~4 chars/token)
    queue_discipline: vtc            # fcfs | priority | vtc: order of requests waiting for a slot
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import yaml

KINDS = ("openai", "vllm", "sglang", "llamacpp")


class ConfigError(ValueError):
    """The gateway configuration is malformed; the message names the key and the fix."""


@dataclass(frozen=True)
class BackendConfig:
    url: str
    name: str = ""
    kind: str = "vllm"
    gpu: str = ""
    model: str = ""
    tp: int = 1
    max_concurrency: int = 256
    labels: tuple[str, ...] = ()


@dataclass(frozen=True)
class Timeouts:
    connect_s: float = 2.0
    first_byte_s: float = 60.0
    total_s: float = 600.0


@dataclass(frozen=True)
class HealthConfig:
    interval_ms: int = 500
    failures_to_eject: int = 3
    timeout_s: float = 2.0


@dataclass(frozen=True)
class Limits:
    max_body_bytes: int = 4 << 20
    max_tokens: int = 32768
    default_max_tokens: int = 256
    retries: int = 2  # further backends tried when one fails before the first byte
    # When every healthy backend is at its concurrency cap, wait (FCFS) this long for a slot.
    queue_timeout_s: float = 10.0
    max_queue: int = 4096


@dataclass
class GatewayConfig:
    backends: list[BackendConfig] = field(default_factory=list)
    router: Any = "earliest-completion"  # a spec string or a composition mapping
    admission: dict[str, Any] | None = None
    tenants: dict[str, str] = field(default_factory=dict)  # API key -> tenant
    timeouts: Timeouts = field(default_factory=Timeouts)
    health: HealthConfig = field(default_factory=HealthConfig)
    limits: Limits = field(default_factory=Limits)
    tokenizer: str | None = None
    queue_discipline: str = "fcfs"  # fcfs | priority | vtc: who gets the next free slot
    host: str = "127.0.0.1"
    port: int = 8080

    @classmethod
    def from_dict(cls, d: Mapping[str, Any] | None) -> GatewayConfig:
        d = d or {}
        if not isinstance(d, Mapping):
            raise ConfigError("the gateway config must be a mapping (see examples/gateway.yaml)")
        known = {"listen", "backends", "router", "admission", "tenants", "timeouts", "health",
                 "limits", "tokenizer", "queue_discipline"}
        unknown = set(d) - known
        if unknown:
            raise ConfigError(f"unknown key(s) {', '.join(sorted(unknown))}; valid keys: "
                              f"{', '.join(sorted(known))}")
        listen = _mapping(d.get("listen"), "listen")
        raw_backends = d.get("backends") or []
        if not isinstance(raw_backends, list):
            raise ConfigError("'backends' must be a list of {url: ..., kind: ...} entries")
        tenants = _mapping(d.get("tenants"), "tenants")
        admission = d.get("admission")
        if admission is not None and not isinstance(admission, Mapping):
            raise ConfigError("'admission' must be a mapping (see tokenpilot.policy.admission)")
        router = d.get("router", "earliest-completion")
        if not isinstance(router, str | Mapping):
            raise ConfigError("'router' must be a router name/spec or a composition mapping")
        return cls(
            backends=[backend(b, f"backends[{i}]") for i, b in enumerate(raw_backends)],
            router=router,
            admission=dict(admission) if admission is not None else None,
            tenants={str(k): str(v) for k, v in tenants.items()},
            timeouts=_section(Timeouts, d.get("timeouts"), "timeouts"),
            health=_section(HealthConfig, d.get("health"), "health"),
            limits=_section(Limits, d.get("limits"), "limits"),
            tokenizer=str(d["tokenizer"]) if d.get("tokenizer") else None,
            queue_discipline=_discipline(d.get("queue_discipline", "fcfs")),
            host=str(listen.get("host", "127.0.0.1")),
            port=int(listen.get("port", 8080)),
        )

    @classmethod
    def load(cls, path: str | Path) -> GatewayConfig:
        path = Path(path)
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise ConfigError(f"{path}: cannot read ({exc.strerror})") from None
        except yaml.YAMLError as exc:
            raise ConfigError(f"{path}: not valid YAML ({exc})") from None
        try:
            return cls.from_dict(data)
        except ConfigError as exc:
            raise ConfigError(f"{path}: {exc}") from None


def backend(item: Any, where: str = "backend") -> BackendConfig:
    """A ``BackendConfig`` from a URL string or a mapping."""
    if isinstance(item, str):
        item = {"url": item}
    if not isinstance(item, Mapping) or "url" not in item:
        raise ConfigError(f"{where}: expected a URL or a mapping with 'url', got {item!r}")
    known = {f.name for f in fields(BackendConfig)}
    unknown = set(item) - known
    if unknown:
        raise ConfigError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}; valid keys: "
                          f"{', '.join(sorted(known))}")
    url = str(item["url"]).rstrip("/")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ConfigError(f"{where}: {url!r} is not an http(s) URL like http://127.0.0.1:8001")
    kind = str(item.get("kind", "vllm"))
    if kind not in KINDS:
        raise ConfigError(f"{where}: unknown kind {kind!r}; valid kinds: {', '.join(KINDS)}")
    cap = item.get("max_concurrency", 256)
    if isinstance(cap, bool) or not isinstance(cap, int) or cap <= 0:
        raise ConfigError(f"{where}.max_concurrency: expected a positive integer, got {cap!r}")
    labels = item.get("labels") or ()
    if isinstance(labels, str):
        labels = (labels,)
    return BackendConfig(url=url, name=str(item.get("name") or parts.netloc), kind=kind,
                         gpu=str(item.get("gpu", "")), model=str(item.get("model", "")),
                         tp=int(item.get("tp", 1)), max_concurrency=cap,
                         labels=tuple(str(x) for x in labels))


def _mapping(v: Any, where: str) -> Mapping[str, Any]:
    if v is None:
        return {}
    if not isinstance(v, Mapping):
        raise ConfigError(f"'{where}' must be a mapping, got {v!r}")
    return v


def _section(cls: type, v: Any, where: str) -> Any:
    m = _mapping(v, where)
    kinds = {f.name: f.type for f in fields(cls)}
    unknown = set(m) - set(kinds)
    if unknown:
        raise ConfigError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}; valid keys: "
                          f"{', '.join(sorted(kinds))}")
    out = {}
    for k, x in m.items():
        want = int if kinds[k] == "int" else float
        # Zero retries or no queue are valid choices; zero timeouts are not.
        floor_ok = k in ("retries", "queue_timeout_s", "max_queue")
        if isinstance(x, bool) or not isinstance(x, int | float) or x < 0 or (
                x == 0 and not floor_ok) or (want is int and x != int(x)):
            raise ConfigError(f"{where}.{k}: expected a positive number, got {x!r}")
        out[k] = want(x)
    return cls(**out)


def _discipline(v: Any) -> str:
    if v not in ("fcfs", "priority", "vtc"):
        raise ConfigError(f"queue_discipline: unknown {v!r}; valid: fcfs, priority, vtc")
    return str(v)
