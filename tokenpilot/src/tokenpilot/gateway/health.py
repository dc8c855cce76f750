"""Active health checks: poll every backend's ``/health`` and ``/metrics`` every interval.

A backend that fails its check is taken out of routing at once; one that passes is put back,
which also re-admits a backend ejected passively (too many consecutive request failures). The
first successful check also asks ``/v1/models`` which model it serves and, for the simulated
backend, reads its GPU and KV size from ``tokenpilot:sim_info``. The requests go through the
gateway's ``Upstream`` (its keep-alive pools, with each backend's own headers).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging

from tokenpilot.gateway.adapters import parse_llamacpp_slots, parse_metrics
from tokenpilot.gateway.backends import Backend
from tokenpilot.gateway.config import HealthConfig
from tokenpilot.gateway.transport import Upstream

log = logging.getLogger("tokenpilot.gateway")


async def check(up: Upstream, b: Backend, timeout_s: float) -> bool:
    """One check of ``b``: True if healthy. Updates its state and its metrics snapshot."""
    try:
        status, _ = await up.get(b.url, "/health", timeout_s)
        ok = status == 200
        if ok and b.cfg.kind != "openai":
            status, text = await up.get(b.url, "/metrics", timeout_s)
            if status == 200:
                b.observe(parse_metrics(text.decode("utf-8", "replace"), b.cfg.kind))
                info = b.metrics.info
                if info:
                    b.learn(info.get("gpu", ""), info.get("model", ""),
                            kv_blocks=int(info.get("kv_blocks", 0) or 0),
                            block_size=int(info.get("block_size", 0) or 0),
                            max_model_len=int(info.get("max_model_len", 0) or 0))
        if ok and b.cfg.kind == "llamacpp" and b.metrics is not None:
            status, text = await up.get(b.url, "/slots", timeout_s)
            if status == 200:  # 501 when the server runs without --slots
                slots = parse_llamacpp_slots(json.loads(text))
                b.metrics.kv_usage = slots.kv_usage
                b.learn("", "", kv_blocks=slots.total_ctx // b.block_size,
                        max_model_len=slots.slot_ctx)
        if ok and not b.model:
            status, text = await up.get(b.url, "/v1/models", timeout_s)
            data = json.loads(text).get("data") or [] if status == 200 else []
            if data:
                b.learn("", str(data[0].get("id", "")),
                        max_model_len=int(data[0].get("max_model_len", 0) or 0))
    except (OSError, TimeoutError, ValueError, AttributeError) as exc:
        log.debug("health check of %s failed: %s", b.name, exc)
        ok = False
    if ok and (b.ejected or not b.healthy):
        log.info("backend %s is healthy again", b.name)
    elif not ok and b.healthy:
        log.warning("backend %s failed its health check", b.name)
    b.healthy = ok
    b.checked = True
    if ok:
        b.ejected = False
        b.failures = 0
    return ok


async def check_all(up: Upstream, backends: list[Backend], cfg: HealthConfig) -> None:
    await asyncio.gather(*(check(up, b, cfg.timeout_s) for b in backends))


async def health_loop(up: Upstream, backends: list[Backend], cfg: HealthConfig
                      ) -> None:
    """Check every backend every ``interval_ms`` until cancelled, each on its own clock: a
    backend slow to answer its check (up to ``timeout_s``) delays no other's, so a dead one is
    seen within its interval whatever the rest of the fleet is doing.

    The clocks tick together, though: each check starts at the next multiple of the interval
    on the loop's clock, so all the backends whose checks are quick are checked in the same
    turn of the loop, and their answers are mostly read in one wake-up: one timer firing per
    interval for the fleet rather than one per backend (an idle gateway's CPU is mostly these
    checks). A check that takes longer than an interval starts its next at the next tick."""
    interval = cfg.interval_ms / 1000
    loop = asyncio.get_running_loop()

    async def every(b: Backend) -> None:
        while True:
            with contextlib.suppress(Exception):  # a bug in one check must not stop them
                await check(up, b, cfg.timeout_s)
            await asyncio.sleep(interval - loop.time() % interval)

    await asyncio.gather(*(every(b) for b in backends))
