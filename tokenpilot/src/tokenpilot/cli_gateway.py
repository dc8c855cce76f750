"""``tokenpilot serve``, ``tokenpilot sim-backend`` and ``tokenpilot bench``."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path

import typer

from tokenpilot.output import FORMAT_OPTION, Format, emit, fail, log, progress_bar

LOOPBACK = "127.0.0.1"


def _serve(asgi, host: str, port: int, banner: str) -> None:
    """Bind ``host:port``, then say ``banner`` with the address really bound (``--port 0``
    picks a free port), then serve until Ctrl-C."""
    import uvicorn

    from tokenpilot.gateway.runner import Server, bind

    try:
        sock = bind(host, port)
    except (OSError, OverflowError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        raise fail(f"cannot listen on {host}:{port}: {why}") from None
    log(f"{banner} on http://{host}:{sock.getsockname()[1]}")
    # No X-Forwarded-* rewriting (as in gateway.runner): nothing reads the client's address,
    # and the middleware is one more layer on every request's way to the app.
    config = uvicorn.Config(asgi, log_level="warning", access_log=False, lifespan="on",
                            backlog=2048, timeout_graceful_shutdown=5, proxy_headers=False)
    Server(config).run(sockets=[sock])  # uvicorn's, waking once a second when idle


def serve(
    config: Path = typer.Option(None, "--config", "-c", help="Gateway YAML (see "
                                "examples/gateway.yaml)."),
    backend: list[str] = typer.Option(None, "--backend", "-b", help="Backend URL (repeatable); "
                                      "added to the config's backends, kind vllm."),
    router: str = typer.Option(None, "--router", "-r", help="Router: NAME, NAME:k=v,... or a "
                               "composition file; overrides the config."),
    host: str = typer.Option(None, "--host", help="Address to bind (default 127.0.0.1)."),
    port: int = typer.Option(None, "--port", "-p", min=0, max=65535,
                             help="Port (default 8080; 0: any free port)."),
) -> None:
    """Run the gateway: an OpenAI-compatible front that routes with tokenpilot's policies."""
    from tokenpilot.config_section import from_mapping
    from tokenpilot.gateway.app import create_app
    from tokenpilot.gateway.config import BackendConfig, ConfigError, GatewayConfig
    from tokenpilot.policy import RouterError

    try:
        cfg = GatewayConfig.load(config) if config else GatewayConfig()
        cfg.backends.extend(from_mapping(BackendConfig, u, f"--backend {u}", ConfigError)
                            for u in backend or [])
        if router:
            cfg.router = router
        if not cfg.backends:
            raise ConfigError("no backends: pass --backend URL or list them in --config")
        if cfg.state.store == "redis":
            from tokenpilot.gateway.state import probe

            probe(cfg.state)  # StateError: Redis unreachable, said in one line
        asgi = create_app(cfg)
        admin = asgi.gateway.admin
        if admin is not None:
            admin.bind()  # OSError: the address, said in one line, before serving
    except (ConfigError, RouterError, OSError, RuntimeError) as exc:
        raise fail(str(exc)) from None
    host = host or cfg.listen.host
    port = port if port is not None else cfg.listen.port
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    logging.getLogger("httpx").setLevel(logging.WARNING)  # a line per proxied request is noise
    router_name = cfg.router if isinstance(cfg.router, str) else "composed"
    _serve(asgi, host, port, f"tokenpilot gateway ({len(cfg.backends)} backend(s), router "
           f"{router_name})")


def sim_backend(
    gpu: str = typer.Option("h100-sxm", "--gpu", help="GPU from the hardware catalog."),
    model: str = typer.Option("llama-3.1-8b", "--model", help="Model from the model catalog."),
    host: str = typer.Option(LOOPBACK, "--host", help="Address to bind."),
    port: int = typer.Option(8001, "--port", "-p", min=0, max=65535,
                             help="Port (0: any free port)."),
    speedup: float = typer.Option(1.0, "--speedup", help="Run the simulated clock K times "
                                  "faster than the wall clock."),
    tp: int = typer.Option(1, "--tp", help="Tensor-parallel degree."),
    engine: str = typer.Option("vllm-v1", "--engine", help="Engine profile: vllm-v1, vllm-v0, "
                               "sglang or llama.cpp (how it schedules, its defaults)."),
) -> None:
    """One simulated inference instance behind the OpenAI API, with vLLM-named metrics."""
    from tokenpilot.costmodel import DoesNotFitError
    from tokenpilot.gateway.simbackend import SimConfig, create_sim_app
    from tokenpilot.hardware import UnknownGPUError
    from tokenpilot.models import UnknownModelError

    try:
        asgi = create_sim_app(SimConfig(gpu=gpu, model=model, speedup=speedup, tp=tp,
                                        engine=engine))
    except (UnknownGPUError, UnknownModelError, DoesNotFitError, ValueError) as exc:
        raise fail(str(exc).strip("'\"")) from None
    _serve(asgi, host, port, f"simulated {model} on {tp} x {gpu} at {speedup:g}x")


def bench(
    target: str = typer.Option(..., "--target", "-t", help="Base URL of an OpenAI-compatible "
                               "endpoint, e.g. http://127.0.0.1:8080."),
    workload: str = typer.Option(..., "--workload", "-w", help="Workload spec, e.g. "
                                 "'poisson:rps=5,n=200,prompt=500,output=100'."),
    rate_scale: float = typer.Option(1.0, "--rate-scale", help="Multiply the arrival rate."),
    duration: float = typer.Option(60.0, "--duration", help="Stop launching after S seconds."),
    max_requests: int = typer.Option(1000, "--max-requests", help="Send at most N requests."),
    model: str = typer.Option(None, "--model", help="Model name (default: the target's first)."),
    api_key: str = typer.Option(None, "--api-key", envvar="TOKENPILOT_API_KEY",
                                help="Bearer key for gateways with tenants."),
    timeout: float = typer.Option(60.0, "--timeout", help="Seconds to wait for stragglers."),
    max_error_rate: float = typer.Option(0.1, "--max-error-rate", min=0.0, max=1.0,
                                         help="Exit 1 when a larger share of requests fails "
                                         "(and whenever none succeeds)."),
    output: Path = typer.Option(None, "--output", "-o", help="Write per-request JSON here."),
    progress: bool = typer.Option(False, "--progress", help="Show a progress bar even off a "
                                  "terminal."),
    fmt: Format = FORMAT_OPTION,
) -> None:
    """Replay a workload open-loop against an endpoint; report TTFT, TPOT, goodput.

    Exits 1 when no request succeeds or more than --max-error-rate of them fail; 130 on
    Ctrl-C, after printing what was measured so far."""
    from tokenpilot.loadgen import render, replay, verdict
    from tokenpilot.workload import WorkloadError, load_workload

    if rate_scale <= 0 or duration <= 0 or max_requests <= 0 or timeout <= 0:
        raise fail("--rate-scale, --duration, --max-requests and --timeout must be positive")
    if not target.startswith(("http://", "https://")):
        raise fail(f"--target {target!r}: give an http(s):// base URL like "
                   "http://127.0.0.1:8080")
    try:
        reqs = load_workload(workload)
    except WorkloadError as exc:
        raise fail(str(exc)) from None
    log(f"replaying up to {min(max_requests, len(reqs))} requests against {target}")
    try:
        with progress_bar(f"bench {target}", progress) as cb:
            result = asyncio.run(replay(target.rstrip("/"), reqs, model=model,
                                        rate_scale=rate_scale, duration_s=duration,
                                        max_requests=max_requests, api_key=api_key,
                                        timeout_s=timeout, progress=cb))
    except OSError as exc:
        raise fail(f"cannot bench {target}: {exc}", 1) from None
    except KeyboardInterrupt:  # Ctrl-C before the first request went out
        raise fail("interrupted before any request was sent", 130) from None
    if result.interrupted:
        log(f"interrupted: what was measured in the first {result.wall_s:.1f} s")
    if output:
        output.write_text(json.dumps(result.to_dict(), indent=1, default=str) + "\n")
        log(f"wrote {len(result.records)} records to {output}")
    summary = result.summary()
    emit(summary, fmt, lambda s: render(s, f"bench {target} ({workload})"))
    if result.interrupted:
        raise typer.Exit(130)
    why = verdict(summary, max_error_rate)
    if why:
        raise fail(why, 1)
