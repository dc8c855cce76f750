"""``tokenpilot epp``: the gateway's policies as a Kubernetes endpoint picker (``epp``)."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import typer

from tokenpilot.output import fail, log


def epp(
    endpoints: Path = typer.Option(..., "--endpoints", "-e", help="The pool: a YAML file of "
                                   "endpoints (ip:port, or mappings of the gateway's backend "
                                   "keys with 'address'); re-read when it changes."),
    config: Path = typer.Option(None, "--config", "-c", help="Gateway YAML for admission, "
                                "router, tenants, tokenizer, limits and health (no backends: "
                                "the pool is --endpoints)."),
    router: str = typer.Option(None, "--router", "-r", help="Router: NAME, NAME:k=v,... or a "
                               "composition file; overrides the config."),
    host: str = typer.Option(None, "--host", help="Address to bind (default: the config's "
                             "listen.host, 127.0.0.1)."),
    port: int = typer.Option(9002, "--port", "-p", min=0, max=65535, help="gRPC port for "
                             "ext_proc and health (GIE's 9002; 0: any free port)."),
    metrics_port: int = typer.Option(None, "--metrics-port", min=0, max=65535,
                                     help="Serve Prometheus /metrics over HTTP on this port "
                                     "(GIE's 9090); off unless given."),
    reload_ms: int = typer.Option(1000, "--reload-ms", min=50, max=600000,
                                  help="How often to look for a change of --endpoints."),
) -> None:
    """Serve Envoy's ext_proc API as the Gateway API Inference Extension's endpoint picker:
    admission and routing by tokenpilot's policies, the pool read from a file."""
    from tokenpilot.epp.endpoints import EndpointsError, Watcher
    from tokenpilot.gateway.config import ConfigError, GatewayConfig
    from tokenpilot.policy import RouterError

    try:
        cfg = GatewayConfig.load(config) if config else GatewayConfig()
        if cfg.backends:
            raise ConfigError(f"{config}: the picker's pool comes from --endpoints; move the "
                              "config's backends there (as address: ip:port)")
        if cfg.state.store != "memory":
            # Not wired yet: the picker admits against its own process's buckets, so a shared
            # store would be ignored without a word. Say so rather than pretend to share.
            raise ConfigError(f"{config}: state.store {cfg.state.store!r}: the endpoint picker "
                              "keeps its budgets and load in memory (run one picker replica, "
                              "or put the budgets on the gateway replicas); remove state: or "
                              "set store: memory")
        if router:
            cfg.router = router
        watcher = Watcher(endpoints)
        pool = watcher.load()
        from tokenpilot.epp.picker import Picker

        picker = Picker(cfg, pool)
    except (EndpointsError, ConfigError, RouterError, OSError) as exc:
        raise fail(str(exc)) from None
    host = host or cfg.listen.host
    _can_listen(host, port)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    logging.getLogger("httpx").setLevel(logging.WARNING)
    metrics = ""
    if metrics_port is not None:
        from prometheus_client import start_http_server

        try:
            server, _ = start_http_server(metrics_port, host, picker.metrics.registry)
        except OSError as exc:
            raise fail(f"cannot serve metrics on {host}:{metrics_port}: {exc.strerror}") from None
        metrics = f", metrics on http://{host}:{server.server_port}/metrics"

    def bound(real: int) -> None:
        log(f"tokenpilot endpoint picker ({len(pool)} endpoint(s), router {picker.policy}) "
            f"on grpc://{host}:{real}{metrics}")

    from tokenpilot.epp.server import serve

    try:
        asyncio.run(serve(picker, watcher, host, port, reload_ms / 1000, bound))
    except OSError as exc:
        raise fail(str(exc)) from None


def _can_listen(host: str, port: int) -> None:
    """Fail with one line when ``host:port`` cannot be bound (grpcio would log a C-core error
    line first and then only say that no port was added)."""
    import socket

    try:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        with socket.socket(family, socket.SOCK_STREAM) as s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # past TIME_WAIT, as grpc
            s.bind((host, port))
    except (OSError, OverflowError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        raise fail(f"cannot listen on {host}:{port}: {why}") from None
