"""Three ``tokenpilot serve`` processes sharing one real ``redis-server`` (``gateway.state``).

One fleet for the module: Redis on a Unix socket in a temporary folder, three simulated
backends (in this process, on loopback), three gateway replicas (their own processes) with
short heartbeats and TTLs. Replica 0 fails open, replica 1 fails closed, replica 2 open. Each
test uses a tenant of its own; the test that SIGKILLs a replica runs last.
"""

from __future__ import annotations

import asyncio
import re
import signal
import time

import httpx
import pytest
from builders import MODEL, wait_until

from tokenpilot.gateway.fleet import backend_entries, start_gateway, start_sims
from tokenpilot.gateway.replicas import RedisServer, start_replicas
from tokenpilot.gateway.runner import ServerPool
from tokenpilot.gateway.text import TokenCounter, prompt_text

pytestmark = pytest.mark.e2e  # every test here serves on 127.0.0.1

KEYS = {"sk-free": "free", "sk-shared": "shared", "sk-capped": "capped", "sk-share": "share"}
HEARTBEAT_MS, TTL_S = 100, 1.0
PREFIX = "tp-test:"


def body(max_tokens: int, content: str = "hello there " * 4) -> dict:
    return {"model": MODEL, "messages": [{"role": "user", "content": content}],
            "max_tokens": max_tokens, "stream": True}


def cost(b: dict) -> int:
    """What admission charges for ``b``: the gateway's own prompt count plus max_tokens."""
    return TokenCounter(None).count_body(b, True, prompt_text(b, True)) + b["max_tokens"]


LONG, SHORT = body(300), body(10)  # a stream of seconds, and one of a few ms
USAGE = {**LONG, "stream_options": {"include_usage": True}}  # the true count, to the client
KILLED = body(1500)  # streams that outlive the replica killed under them
C_KILLED = cost(KILLED)
C_LONG, C_SHORT = cost(LONG), cost(SHORT)
SHARED_TPM = 50 * C_LONG  # 50 long streams a minute, fleet-wide
CAPPED_INFLIGHT = 4 * C_KILLED  # 4 such streams in flight at once, fleet-wide
CAPPED_TPM = 12000
SHARE_TPM = 3 * 5 * C_SHORT  # 5 short requests a minute per replica when Redis is gone


def auth(tenant: str) -> dict:
    key = next(k for k, t in KEYS.items() if t == tenant)
    return {"authorization": f"Bearer {key}"}


@pytest.fixture(scope="module")
def fleet(tmp_path_factory):
    folder = tmp_path_factory.mktemp("replicas")
    with ServerPool() as pool, RedisServer(folder) as rds:
        sims = start_sims(pool, speedup=2)  # a long stream lasts a second or more
        common = {
            "backends": backend_entries(sims), "router": "least-requests",
            "tenants": KEYS,
            "admission": {"tenants": {
                "shared": {"tokens_per_minute": SHARED_TPM},
                "capped": {"tokens_per_minute": CAPPED_TPM, "max_inflight_tokens": CAPPED_INFLIGHT},
                "share": {"tokens_per_minute": SHARE_TPM}}},
            # No scrape after the first: what a replica knows of the others' load comes from
            # the shared state alone.
            "health": {"interval_ms": 60000},
            "dashboard": {"admin_keys": ["sk-ops"], "sample_ms": 100},
        }
        configs = [{**common, "state": {
            "store": "redis", "url": rds.url, "key_prefix": PREFIX, "on_failure": mode,
            "heartbeat_ms": HEARTBEAT_MS, "ttl_s": TTL_S, "replica": f"gw{k}"}}
            for k, mode in enumerate(("open", "closed", "open"))]
        replicas = start_replicas(folder, configs)
        try:
            yield pool, sims, rds, replicas
        finally:
            for r in replicas:
                r.kill(signal.SIGTERM)


def metric(url: str, name: str) -> float:
    text = httpx.get(url + "/metrics", timeout=5).text
    m = re.search(rf"^{re.escape(name)}(?:{{[^}}]*}})? (\S+)$", text, re.M)
    return float(m.group(1)) if m else float("nan")


def dashboard_tenant(url: str, tenant: str) -> dict:
    rows = httpx.get(url + "/dashboard/data", headers={"authorization": "Bearer sk-ops"},
                     timeout=5).json()["tenants"]
    return next((r for r in rows if r["tenant"] == tenant), {})


async def open_stream(client: httpx.AsyncClient, url: str, b: dict, tenant: str
                      ) -> httpx.Response:
    req = client.build_request("POST", url + "/v1/chat/completions", json=b, headers=auth(tenant))
    return await client.send(req, stream=True)


def test_routers_on_different_replicas_see_each_others_load(fleet) -> None:
    pool, sims, _, replicas = fleet

    async def one_each(urls: list[str]) -> list[str]:
        """A long stream to each gateway in turn, a few heartbeats apart: the backend each
        picked (all streams still running)."""
        async with httpx.AsyncClient(timeout=30) as client:
            open_, picked = [], []
            for url in urls:
                r = await open_stream(client, url, LONG, "free")
                assert r.status_code == 200
                open_.append(r)
                picked.append(r.headers["x-tokenpilot-backend"])
                await asyncio.sleep(3 * HEARTBEAT_MS / 1000)
            for r in open_:
                await r.aclose()
            return picked

    shared = asyncio.run(one_each([r.url for r in replicas]))
    assert len(set(shared)) == 3, f"replicas sharing load picked {shared}"
    # The same three steps over gateways that keep their load to themselves: each sees an idle
    # fleet and takes the first backend, so the test above can fail.
    alone = [start_gateway(pool, sims, "least-requests", {"health": {"interval_ms": 60000}})
             for _ in range(3)]
    time.sleep(1.0)  # the streams cut above leave the sims
    picked = asyncio.run(one_each([g.url for g in alone]))
    for g in alone:
        pool.stop(g)
    assert len(set(picked)) == 1, f"gateways without shared state picked {picked}"


def test_one_budget_across_replicas_under_500_concurrent_streams(fleet) -> None:
    _, _, rds, replicas = fleet
    n = 500

    async def run() -> tuple[list[tuple[int, int, float, float, int]], float]:
        limits = httpx.Limits(max_connections=n + 10, max_keepalive_connections=n + 10)
        async with httpx.AsyncClient(timeout=60, limits=limits) as client:
            t0 = time.monotonic()

            async def one(i: int) -> tuple[int, int, float, float, int]:
                r = await open_stream(client, replicas[i % 3].url, USAGE, "shared")
                decided = time.monotonic()
                text = (await r.aread()).decode()
                await r.aclose()
                usage = re.search(r'"prompt_tokens":\s*(\d+),\s*"completion_tokens":\s*(\d+)',
                                  text)
                used = int(usage.group(1)) + int(usage.group(2)) if usage else 0
                return i % 3, r.status_code, decided, time.monotonic(), used

            return await asyncio.gather(*(one(i) for i in range(n))), t0

    results, t0 = asyncio.run(run())
    codes = {code for _, code, *_ in results}
    assert codes <= {200, 429}, codes
    ok = [(rep, ended, usage) for rep, code, _, ended, usage in results if code == 200]
    last_decision = max(decided for _, _, decided, _, _ in results)
    # What the budget allowed: a minute's worth, what refilled while the requests were being
    # decided, and what the streams that ended meanwhile gave back (their true count settled
    # against the estimate charged).
    refill = SHARED_TPM / 60 * (last_decision - t0)
    given_back = sum(C_LONG - used for _, ended, used in ok if ended < last_decision)
    allowed = (SHARED_TPM + refill + given_back) / C_LONG
    assert len(ok) <= allowed + 3, (len(ok), allowed)  # one request over per replica at most
    assert len(ok) >= SHARED_TPM / C_LONG - 3, len(ok)
    # Which replica spends the budget is first come, first served: the one whose event loop
    # reaches its share of the burst first takes most of it (45/5/0 and 31/19/0 were seen), so
    # no split is asserted; the bound above is what shows one budget (three replicas each
    # granting the whole of it would admit three times as many).
    assert all(used for _, _, used in ok)  # every admitted stream reported its usage
    # Every replica's settles reached the shared bucket, each once: it counts what was served.
    c = rds.client()
    try:
        served = sum(used for _, _, used in ok)
        wait_until(lambda: int(c.hget(PREFIX + "b:shared", "used") or 0) == served,
                   f"the shared bucket counts the {served} tokens served")
    finally:
        c.close()
    # The dashboard of any replica shows the fleet's figures (the store's budget and level).
    row = wait_until(lambda: (r := dashboard_tenant(replicas[2].url, "shared")).get(
        "tokens_per_minute") and r, "replica 2's dashboard shows the fleet's use")
    assert row["scope"] == "fleet" and row["budget"] == SHARED_TPM
    assert row["level"] is not None and row["level"] < SHARED_TPM


def test_redis_killed_and_restarted_mid_run(fleet) -> None:
    _, _, rds, replicas = fleet
    fail_open, fail_closed = replicas[0], replicas[1]

    async def burst(url: str, k: int) -> list[httpx.Response]:
        async with httpx.AsyncClient(timeout=30) as client:
            async def one() -> httpx.Response:
                r = await open_stream(client, url, SHORT, "share")
                await r.aread()
                await r.aclose()
                return r
            return list(await asyncio.gather(*(one() for _ in range(k))))

    assert [r.status_code for r in asyncio.run(burst(fail_open.url, 2))] == [200, 200]
    rds.kill()
    # Fails closed: 503 with Retry-After for a limited tenant, for as long as Redis is gone.
    closed = asyncio.run(burst(fail_closed.url, 6))
    assert {r.status_code for r in closed} == {503}
    assert all(float(r.headers["retry-after"]) > 0 for r in closed)
    assert "state_unavailable" in closed[0].text
    # Fails open: this replica's share of the budget (1/3 of it: three replicas were live).
    opened = asyncio.run(burst(fail_open.url, 10))
    admitted = sum(r.status_code == 200 for r in opened)
    assert {r.status_code for r in opened} <= {200, 429}
    assert 5 <= admitted <= 6, admitted  # a burst of 5, plus what refills in a second
    for r in (fail_open, fail_closed):
        wait_until(lambda r=r: metric(r.url, "tokenpilot_state_up") == 0, "state_up 0")
    rds.start()
    for r in (fail_open, fail_closed):
        wait_until(lambda r=r: metric(r.url, "tokenpilot_state_up") == 1,
                   "state_up 1 once Redis is back", timeout=10)
    assert [r.status_code for r in asyncio.run(burst(fail_closed.url, 2))] == [200, 200]
    assert [r.status_code for r in asyncio.run(burst(fail_open.url, 2))] == [200, 200]
    c = rds.client()
    try:  # accounted in the new Redis again: the shared bucket exists there
        assert c.hget(PREFIX + "b:share", "tpm") is not None
    finally:
        c.close()
    for r in (fail_open, fail_closed):  # one line per transition, however many requests
        log = r.log_text()
        assert log.count("state: Redis at") == 1, log
        assert log.count("state: shared accounting on") == 2, log  # at start, and back
        assert metric(r.url, 'tokenpilot_state_transitions_total{to="down"}') == 1


def test_replica_sigkilled_mid_stream(fleet) -> None:
    _, _, rds, replicas = fleet
    victim, other = replicas[2], replicas[0]
    c = rds.client()
    bucket = PREFIX + "b:capped"

    def level_now() -> tuple[float, float]:
        level, stamp = c.hmget(bucket, "level", "stamp")
        sec, usec = c.time()
        return float(level), float(stamp), sec * 1000 + usec / 1000

    async def run() -> tuple[float, float, float, float, int, float]:
        async with httpx.AsyncClient(timeout=30) as client:
            streams = [await open_stream(client, victim.url, KILLED, "capped") for _ in range(4)]
            assert [s.status_code for s in streams] == [200] * 4
            level0, stamp0, _ = level_now()
            # The other replicas see the victim's reservations: the tenant is at its limit.
            wait_until(lambda: dashboard_tenant(other.url, "capped").get("inflight_tokens")
                       == CAPPED_INFLIGHT, "replica 0 sees the victim's tokens in flight")
            victim.kill()  # SIGKILL, mid-stream
            killed = time.monotonic()
            first = await open_stream(client, other.url, KILLED, "capped")
            await first.aclose()
            while True:  # bounded: the test fails past 3 TTLs
                r = await open_stream(client, other.url, KILLED, "capped")
                if r.status_code == 200:
                    break
                await r.aclose()
                assert time.monotonic() - killed < 3 * TTL_S, "reservations never expired"
                await asyncio.sleep(0.05)
            freed = time.monotonic() - killed
            level1, stamp1, _ = level_now()
            await r.aclose()
            return level0, stamp0, level1, stamp1, first.status_code, freed

    try:
        level0, stamp0, level1, stamp1, first, freed = asyncio.run(run())
    finally:
        c.close()
    assert first == 429  # right after the kill, its reservations still hold
    assert freed <= TTL_S + 0.5, freed  # and they expire within the TTL (plus a heartbeat)
    # Nothing charged twice, nothing refunded: between the two readings the bucket only
    # refilled, then paid for the one new stream. The victim's four stay charged once.
    rate = CAPPED_TPM / 60000  # tokens per ms
    assert level1 == pytest.approx(min(CAPPED_TPM, level0 + (stamp1 - stamp0) * rate) - C_KILLED,
                                   abs=0.01)
    wait_until(lambda: dashboard_tenant(other.url, "capped").get("inflight_tokens") == 0,
               "the other replica's figures drop the victim's tokens", timeout=5)
