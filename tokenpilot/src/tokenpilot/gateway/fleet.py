"""A loopback fleet in one process: simulated backends plus a gateway in front of them.

What the demo, the benchmark and the tests start: each piece is the real ASGI app on a real
port of 127.0.0.1, so every request crosses real HTTP.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tokenpilot.config_section import from_mapping
from tokenpilot.gateway.app import create_app
from tokenpilot.gateway.config import ConfigError, GatewayConfig
from tokenpilot.gateway.runner import ServerHandle, ServerPool
from tokenpilot.gateway.simbackend import SimConfig, create_sim_app

MIXED_FLEET = ("h100-sxm", "a100-80gb", "l40s")


def start_sims(pool: ServerPool, gpus: Sequence[str] = MIXED_FLEET,
               model: str = "llama-3.1-8b", speedup: float = 1.0,
               **sim: Any) -> list[ServerHandle]:
    """One simulated backend per GPU name (repeat a name for several of a kind)."""
    return [pool.start(create_sim_app(SimConfig(gpu=g, model=model, speedup=speedup,
                                                name=f"{g}-{i}", **sim)))
            for i, g in enumerate(gpus)]


def backend_entries(sims: Sequence[ServerHandle]) -> list[dict[str, Any]]:
    """The ``backends:`` list of a gateway config over ``sims`` (named after their GPUs)."""
    backends = []
    for h in sims:
        sim = h.app.state.sim
        backends.append({"url": h.url, "name": sim.engine.name, "kind": "vllm",
                         "gpu": sim.cfg.gpu, "model": sim.model_name, "tp": sim.cfg.tp,
                         "engine": sim.cfg.engine})
    return backends


def gateway_config(sims: Sequence[ServerHandle], router: Any = "earliest-completion",
                   **extra: Any) -> GatewayConfig:
    """A gateway config over ``sims``; ``extra`` adds YAML keys."""
    return from_mapping(GatewayConfig, {"backends": backend_entries(sims), "router": router,
                                        **extra}, "gateway config", ConfigError)


def start_gateway(pool: ServerPool, sims: Sequence[ServerHandle],
                  router: Any = "earliest-completion",
                  extra: Mapping[str, Any] | None = None) -> ServerHandle:
    return pool.start(create_app(gateway_config(sims, router, **dict(extra or {}))))
