"""The live gateway: an OpenAI-compatible HTTP front that asks ``tokenpilot.policy`` where each
request runs, proxies and streams it, and exports Prometheus metrics.

Also the simulated backend (``simbackend``): the engine simulator behind the same HTTP API, so
the demo and the tests need no GPU.
"""

from tokenpilot.gateway.app import create_app
from tokenpilot.gateway.config import BackendConfig, ConfigError, GatewayConfig
from tokenpilot.gateway.runner import ServerHandle, ServerPool
from tokenpilot.gateway.simbackend import SimConfig, create_sim_app

__all__ = [
    "BackendConfig",
    "ConfigError",
    "GatewayConfig",
    "ServerHandle",
    "ServerPool",
    "SimConfig",
    "create_app",
    "create_sim_app",
]
