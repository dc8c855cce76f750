"""Shared state for several gateway replicas: one Redis holds what must not be counted twice.

With ``state: {store: redis}`` every replica pointed at the same Redis (and ``key_prefix``)
shares:

- **tenant buckets**: ``take`` and ``settle`` (``tokenpilot.policy.buckets``) each run as one Lua
  script on the Redis server, so the check and the charge are one atomic step across replicas
  and a tenant's budget is spent once, whatever replica its requests reach. Time is the Redis
  server's (``TIME``): the replicas' own clocks need not agree.
- **reservations**: the tokens a tenant has in flight are the sum, over the live replicas, of
  each replica's own reservations (hash ``r:<replica>``). A replica is live while its entry in
  the sorted set ``replicas`` (score: its expiry) is in the future; every take and every
  heartbeat pushes it ``ttl_s`` further. A replica that dies stops counting within ``ttl_s``:
  its reservations stop holding the tenant's in-flight limit, and its charges stay charged
  (once: the bucket was debited at admission and nothing settles them again).
- **backend load**: each heartbeat writes this replica's requests in flight, prompt tokens not
  yet answered and output tokens still to come per backend (``load:<replica>``, expiring after
  ``ttl_s``) and reads the other live replicas' back; routers see the sum (``Backend.remote_*``).
- **VTC service counters**: each heartbeat adds this replica's weighted service since the last
  one to the hash ``vtc`` and reads the fleet's totals; what the other replicas served is
  added to the local counters, so the fair queue orders tenants by the service they got from
  the whole fleet.
- **the tenants' figures** the dashboard and ``/metrics`` show: each bucket's budget, level,
  tokens in flight and tokens served by all replicas (``Gateway.budgets`` follows them).

On the request path there are two Redis round trips, ``take`` at admission and ``settle`` when
the response ended (sent off the response's path: the client does not wait for it); a tenant
with no limits costs none. The heartbeat (one more script every ``heartbeat_ms``) is off the
path. ``calls`` counts each kind (``tokenpilot_state_calls_total``).

Failure: Redis unreachable at start is an error (``StateError``); lost while serving (any call
fails or passes ``timeout_s``), the replica either fails open, admitting against a local bucket
of its share of each limit (the limit divided by the live replicas it last saw), or fails
closed (``state_unavailable``: 503 with Retry-After). Each transition is logged once and
exported (``tokenpilot_state_up``, ``tokenpilot_state_transitions_total``). The heartbeat keeps
trying; once Redis answers, shared accounting resumes, and the settles that failed meanwhile
are sent. Requests admitted on the local share settle there.

One Redis server (or a primary), not Redis Cluster: the scripts name keys they compute.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import secrets
import socket
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import hiredis
import redis.asyncio as aioredis
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from redis.asyncio.connection import parse_url
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError, ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

from tokenpilot.gateway.config import StateConfig
from tokenpilot.policy.admission import Admission, Decision
from tokenpilot.policy.buckets import BucketLimits, MemoryBucketStore, Take
from tokenpilot.policy.disciplines import VTC
from tokenpilot.policy.view import InstanceView
from tokenpilot.workload.request import Request

if TYPE_CHECKING:
    from tokenpilot.gateway.backends import Backend

log = logging.getLogger("tokenpilot.gateway")
STATE_UNAVAILABLE = "state_unavailable"
# What says Redis is gone (a refused or dropped connection, a call past timeout_s), as
# opposed to a bug in a script (a ResponseError, which is raised).
LOST = (RedisConnectionError, RedisTimeoutError, OSError, asyncio.TimeoutError)

# Shared by the scripts: the server's clock in ms, this replica kept live, the dead ones out,
# and the tokens ``tenant`` has in flight over the live replicas.
_PROLOGUE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local function num(x) return string.format('%.17g', x) end
local function live(zset, replica, ttl)
  redis.call('ZADD', zset, now + ttl, replica)
  redis.call('ZREMRANGEBYSCORE', zset, '-inf', now)
  return redis.call('ZRANGE', zset, 0, -1)
end
local function inflight(reps, rprefix, tenant)
  local n = 0
  for _, r in ipairs(reps) do
    n = n + (tonumber(redis.call('HGET', rprefix .. r, tenant)) or 0)
  end
  return n
end
local function refilled(key, tpm)
  local st = redis.call('HMGET', key, 'level', 'stamp')
  local level, stamp = tonumber(st[1]), tonumber(st[2])
  if level == nil then return tpm end
  if stamp and now > stamp then level = math.min(tpm, level + (now - stamp) * tpm / 60000) end
  return level
end
"""

# KEYS: bucket, own reservations, replicas. ARGV: tenant, cost, tokens_per_minute ("" none),
# max_inflight_tokens ("" none), ttl ms, reservation key prefix, replica.
TAKE = _PROLOGUE + """
local tenant, cost = ARGV[1], tonumber(ARGV[2])
local tpm, cap, ttl = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local reps = live(KEYS[3], ARGV[7], ttl)
local held = inflight(reps, ARGV[6], tenant)
local level = 0
if tpm then
  level = refilled(KEYS[1], tpm)
  local need = math.min(cost, tpm)
  if level < need then
    redis.call('HSET', KEYS[1], 'level', num(level), 'stamp', num(now), 'tpm', ARGV[3])
    return {0, 'rate_limited', num(need - level), num(level), held}
  end
end
if cap and held > 0 and held + cost > cap then
  return {0, 'inflight_limit', num(held + cost - cap), num(level), held}
end
if tpm then
  level = level - cost
  redis.call('HSET', KEYS[1], 'level', num(level), 'stamp', num(now), 'tpm', ARGV[3])
end
redis.call('HINCRBY', KEYS[2], tenant, cost)
redis.call('PEXPIRE', KEYS[2], 2 * ttl)
return {1, '', '0', num(level), held + cost}
"""

# KEYS: bucket, own reservations. ARGV: tenant, charged, actual, tokens_per_minute ("" none).
SETTLE = _PROLOGUE + """
local tenant, charged, actual = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local tpm = tonumber(ARGV[4])
if tpm then
  local level = math.min(tpm, refilled(KEYS[1], tpm) + charged - actual)
  redis.call('HSET', KEYS[1], 'level', num(level), 'stamp', num(now), 'tpm', ARGV[4])
end
redis.call('HINCRBY', KEYS[1], 'used', actual)
if redis.call('HINCRBY', KEYS[2], tenant, -charged) <= 0 then
  redis.call('HDEL', KEYS[2], tenant)
end
return 1
"""

# KEYS: replicas. ARGV: replica, ttl ms, this replica's load (JSON), key prefix, the number
# of VTC deltas, then (tenant, delta) pairs, then the tenants whose figures to return.
# Returns: live replicas, the other live replicas' loads, the VTC totals (flat), and per
# tenant [name, level, tokens_per_minute, used, in flight] ("" where the store has none).
HEARTBEAT = _PROLOGUE + """
local me, ttl, prefix = ARGV[1], tonumber(ARGV[2]), ARGV[4]
local reps = live(KEYS[1], me, ttl)
redis.call('SET', prefix .. 'load:' .. me, ARGV[3], 'PX', ttl)
redis.call('PEXPIRE', prefix .. 'r:' .. me, 2 * ttl)
local n = tonumber(ARGV[5])
for i = 0, n - 1 do
  redis.call('HINCRBYFLOAT', prefix .. 'vtc', ARGV[6 + 2 * i], ARGV[7 + 2 * i])
end
local loads = {}
for _, r in ipairs(reps) do
  if r ~= me then
    local l = redis.call('GET', prefix .. 'load:' .. r)
    if l then table.insert(loads, l) end
  end
end
local figs = {}
for i = 6 + 2 * n, #ARGV do
  local tenant = ARGV[i]
  local key = prefix .. 'b:' .. tenant
  local st = redis.call('HMGET', key, 'tpm', 'used')
  local tpm = tonumber(st[1])
  local level = ''
  if tpm then level = num(refilled(key, tpm)) end
  table.insert(figs, {tenant, level, st[1] or '', st[2] or '',
                      num(inflight(reps, prefix .. 'r:', tenant))})
end
return {#reps, loads, redis.call('HGETALL', prefix .. 'vtc'), figs}
"""


class StateError(RuntimeError):
    """The shared store cannot be used (unreachable at start); the message says what to do."""


def _unreachable(cfg: StateConfig, exc: BaseException) -> StateError:
    return StateError(f"state.store is redis, but {cfg.url} does not answer ({_why(exc)}); "
                      "start Redis there, fix state.url, or set state.store: memory")


def probe(cfg: StateConfig) -> None:
    """Ping the configured Redis once, before serving; ``StateError`` when it does not answer."""
    import redis

    client = redis.Redis.from_url(cfg.url, socket_timeout=cfg.timeout_s,
                                  socket_connect_timeout=cfg.timeout_s)
    try:
        client.ping()
    except (*LOST, RedisError) as exc:
        raise _unreachable(cfg, exc) from None
    finally:
        client.close()


@dataclass
class TenantFigures:
    """What the shared store holds of one tenant, as of the last heartbeat."""

    budget: float | None  # tokens_per_minute the bucket runs with
    level: float | None  # tokens it may still start now
    inflight: int  # tokens in flight over every live replica
    used: float  # tokens served by every replica since the store began
    tokens_per_minute: float | None = None  # ``used``'s rate over the last minute


class _Free:
    """The store of requests no limit applies to: nothing to take, nothing to settle."""

    def take(self, key: str, cost: int, limits: BucketLimits, now: float) -> Take:
        return Take(True)

    def settle(self, key: str, charged: int, actual: int, limits: BucketLimits,
               now: float) -> None:
        pass


class LocalShare:
    """Fail-open buckets: this replica's share of each tenant's limits, ``1 / replicas``."""

    def __init__(self) -> None:
        self.store = MemoryBucketStore()
        self.replicas = 1

    def _share(self, limits: BucketLimits) -> BucketLimits:
        n = max(1, self.replicas)
        tpm, cap = limits.tokens_per_minute, limits.max_inflight_tokens
        return BucketLimits(None if tpm is None else tpm / n,
                            None if cap is None else max(1, cap // n))

    def take(self, key: str, cost: int, limits: BucketLimits, now: float) -> Take:
        return self.store.take(key, cost, self._share(limits), now)

    def settle(self, key: str, charged: int, actual: int, limits: BucketLimits,
               now: float) -> None:
        self.store.settle(key, charged, actual, self._share(limits), now)


def _arg(x: float | None) -> str:
    return "" if x is None else repr(x)


class RedisState:
    """One replica's link to the shared store; see the module docstring."""

    def __init__(self, cfg: StateConfig, admission: Admission, backends: Sequence[Backend],
                 discipline: object, tenants: Sequence[str],
                 budgets: dict[str, float] | None = None) -> None:
        self.cfg = cfg
        self.budgets = {} if budgets is None else budgets  # kept to the store's, in place
        self.admission = admission
        self.backends = backends
        self.vtc = discipline if isinstance(discipline, VTC) else None
        self.tenant_names = sorted(set(tenants) | set(admission.config.tenants))
        # A restarted container keeps its host name and often its pid (1): the suffix makes
        # each process a replica of its own.
        self.replica = cfg.replica or (f"{socket.gethostname()}:{os.getpid()}:"
                                       f"{secrets.token_hex(3)}")
        p = cfg.key_prefix
        self._replicas_key = p + "replicas"
        self._own = p + "r:" + self.replica
        self._ttl_ms = str(int(cfg.ttl_s * 1000))
        self.redis = aioredis.Redis.from_url(cfg.url, socket_timeout=cfg.timeout_s,
                                             socket_connect_timeout=cfg.timeout_s)
        self.link = Link(cfg.url, cfg.timeout_s)
        self._take = self.redis.register_script(TAKE)
        self._settle = self.redis.register_script(SETTLE)
        self._beat = self.redis.register_script(HEARTBEAT)
        self.up = False
        self.replicas = 1  # live replicas, as last seen
        self.transitions = {"up": 0, "down": 0}
        self.calls = {"take": 0, "settle": 0, "heartbeat": 0}
        self.speculated = 0  # takes sent beside their upstream request (``speculate``)
        self.waited = 0  # ... whose answer came after the backend's first byte
        self.local = LocalShare()
        self.free = _Free()
        self.shared = _SharedBuckets(self)
        self.figures: dict[str, TenantFigures] = {}
        self._used: dict[str, deque[tuple[float, float]]] = {}
        self._unsettled: list[tuple[str, int, int, BucketLimits]] = []
        self._pending: set[asyncio.Future] = set()
        # Per tenant: (level, tokens in flight) as the last take here left them, and the
        # tokens of speculated requests whose take is still on its way (``speculate``).
        self._room: dict[str, tuple[float, int]] = {}
        self._speculated: dict[str, int] = {}
        self._vtc_pushed: dict[str, float] = {}  # this replica's service sent, per tenant
        self._vtc_others: dict[str, float] = {}  # the others' service already counted
        self._task: asyncio.Task | None = None

    # ---- lifecycle ----------------------------------------------------------------------
    async def start(self) -> None:
        """Connect and run the first heartbeat; ``StateError`` when Redis does not answer."""
        try:
            # A process starts with no reservations: whatever an earlier process of this name
            # (restarted under a configured ``replica``) held is dropped, not inherited.
            await self.redis.delete(self._own)
            await self.beat()
        except LOST as exc:
            await self.redis.aclose()
            raise _unreachable(self.cfg, exc) from None
        self._set_up(True, "")
        self._task = asyncio.create_task(self._beat_loop())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
        if self._pending:
            await asyncio.wait(self._pending, timeout=2 * self.cfg.timeout_s)
        self.link.close()
        with contextlib.suppress(Exception):
            await self.redis.aclose()

    def _set_up(self, up: bool, why: str) -> None:
        if up == self.up:
            return
        self.up = up
        self.transitions["up" if up else "down"] += 1
        if up:
            log.warning("state: shared accounting on %s (replica %s, %d live)", self.cfg.url,
                        self.replica, self.replicas)
        else:
            mode = (f"failing open: each tenant gets 1/{self.replicas} of its limits here"
                    if self.cfg.on_failure == "open" else
                    "failing closed: limited tenants get 503 until it returns")
            log.warning("state: Redis at %s lost (%s); %s", self.cfg.url, why, mode)
            for b in self.backends:  # the others' load is unknown now
                b.remote_inflight = b.remote_prefill = b.remote_decode = 0

    def lost(self, exc: BaseException) -> None:
        self._room.clear()  # nothing is known of the buckets any more
        self._set_up(False, _why(exc))

    # ---- the request path ---------------------------------------------------------------
    def speculate(self, req: Request, views: Sequence[InstanceView]) -> asyncio.Future | None:
        """Send ``req``'s take now and let the request go to its backend meanwhile: the take's
        answer to come (``admit_speculated`` decides once it is in, before the first byte goes
        to the client), or None: admit it the usual way (``admit``).

        Only where the take cannot be a formality's refusal: Redis is up, the tenant has limits
        (else there is no take), passes the checks before the bucket, and the last answer this
        replica had for it left room for this request and the speculated ones still on their
        way, with a margin of one such request per live replica (what the others may have
        taken since). A tenant near its limit waits for its take first, so refused requests do
        not reach the backends."""
        if not self.up:
            return None
        adm = self.admission
        t = req.tenant
        room = self._room.get(t)
        if room is None or adm.precheck(req, views) is not None:
            return None
        limits = adm.config.limits_for(t).bucket_limits()
        tpm, cap = limits.tokens_per_minute, limits.max_inflight_tokens
        cost = adm.estimate(req)
        level, held = room
        ahead = self._speculated.get(t, 0) + cost * (1 + self.replicas)
        if (tpm is None and cap is None) or (tpm is not None and level < ahead) or (
                cap is not None and held + ahead > cap):
            return None
        fut = self.link.fire(self._take, *self._take_call(t, cost, limits))
        if fut is not None:
            self.calls["take"] += 1
            self.speculated += 1
            self._speculated[t] = self._speculated.get(t, 0) + cost
        return fut

    async def admit_speculated(self, req: Request, views: Sequence[InstanceView], now: float,
                               fut: asyncio.Future) -> Decision:
        """The decision for ``req`` once its speculated take (``speculate``) answered."""
        adm = self.admission
        t = req.tenant
        limits = adm.config.limits_for(t).bucket_limits()
        cost = adm.estimate(req)
        self._speculated[t] -= cost
        try:
            reply = await fut
            if isinstance(reply, hiredis.ReplyError):  # a Redis new to the script
                reply = await self.link.call(self._take, *self._take_call(t, cost, limits))
        except LOST as exc:
            self.lost(exc)
            return self._without_redis(req, views, now, cost, limits)
        return adm.conclude(req, views, self._took(t, reply), cost, now, self.shared)

    async def admit(self, req: Request, views: Sequence[InstanceView], now: float) -> Decision:
        """``Admission.admit`` against the shared buckets (or the failure mode's stand-in)."""
        adm = self.admission
        early = adm.precheck(req, views)
        if early is not None:
            return early
        limits = adm.config.limits_for(req.tenant).bucket_limits()
        cost = adm.estimate(req)
        if limits.tokens_per_minute is None and limits.max_inflight_tokens is None:
            return adm.conclude(req, views, Take(True), cost, now, self.free)
        if self.up:
            try:
                take = await self.take(req.tenant, cost, limits)
            except LOST as exc:
                self.lost(exc)
            else:
                return adm.conclude(req, views, take, cost, now, self.shared)
        return self._without_redis(req, views, now, cost, limits)

    def _without_redis(self, req: Request, views: Sequence[InstanceView], now: float,
                       cost: int, limits: BucketLimits) -> Decision:
        """The failure mode's decision: 503 (closed), or the local share's take (open)."""
        if self.cfg.on_failure == "closed":
            retry = self.cfg.heartbeat_ms / 1000
            return Decision(False, STATE_UNAVAILABLE, "the gateway's shared state (Redis) is "
                            f"unreachable and this gateway fails closed; retry in {retry:g} s",
                            retry)
        return self.admission.conclude(req, views, self.local.take(req.tenant, cost, limits, now),
                                       cost, now, self.local)

    def _take_call(self, tenant: str, cost: int, limits: BucketLimits) -> tuple[list, list]:
        p = self.cfg.key_prefix
        return ([p + "b:" + tenant, self._own, self._replicas_key],
                [tenant, cost, _arg(limits.tokens_per_minute), _arg(limits.max_inflight_tokens),
                 self._ttl_ms, p + "r:", self.replica])

    async def take(self, tenant: str, cost: int, limits: BucketLimits) -> Take:
        self.calls["take"] += 1
        return self._took(tenant, await self.link.call(self._take,
                                                       *self._take_call(tenant, cost, limits)))

    def _took(self, tenant: str, reply: list) -> Take:
        ok, reason, missing, level, held = reply
        take = Take(bool(ok), reason.decode() if isinstance(reason, bytes) else reason,
                    float(missing), float(level), int(held))
        if take.ok:
            self._room[tenant] = (take.level, take.inflight)
        else:
            self._room.pop(tenant, None)
        return take

    def settle_later(self, tenant: str, charged: int, actual: int, limits: BucketLimits) -> None:
        """Send the settle; nobody waits for it (the response is out). One that fails is kept
        and sent again once Redis is back."""
        item = (tenant, charged, actual, limits)
        if not self.up:
            self._unsettled.append(item)
            return
        self.calls["settle"] += 1
        keys = [self.cfg.key_prefix + "b:" + tenant, self._own]
        args = [tenant, charged, actual, _arg(limits.tokens_per_minute)]
        fut = self.link.fire(self._settle, keys, args)
        if fut is None:  # not connected now: connect, then send
            fut = asyncio.ensure_future(self.link.call(self._settle, keys, args))
        self._pending.add(fut)
        fut.add_done_callback(lambda f: self._settled(f, item, keys, args))

    def _settled(self, fut: asyncio.Future, item: tuple[str, int, int, BucketLimits],
                 keys: list, args: list) -> None:
        self._pending.discard(fut)
        exc = None if fut.cancelled() else fut.exception()
        if fut.cancelled() or isinstance(exc, LOST):
            self._unsettled.append(item)
            if exc is not None:
                self.lost(exc)
        elif exc is not None:
            log.error("state: settle failed: %s", exc)
        elif isinstance(fut.result(), hiredis.ReplyError):  # a Redis new to the script
            again = asyncio.ensure_future(self.link.call(self._settle, keys, args))
            self._pending.add(again)
            again.add_done_callback(lambda f: self._settled(f, item, keys, args))

    # ---- off the path: the heartbeat ----------------------------------------------------
    async def _beat_loop(self) -> None:
        every = self.cfg.heartbeat_ms / 1000
        while True:
            await asyncio.sleep(every)
            self.link.check()
            try:
                await asyncio.wait_for(self.beat(), self.cfg.timeout_s * 4)
            except LOST as exc:
                self.lost(exc)
            except RedisError as exc:  # a script error: say it, keep beating
                log.error("state: heartbeat failed: %s", exc)
            else:
                if not self.up:
                    await self._flush_unsettled()
                    self._set_up(True, "")

    async def _flush_unsettled(self) -> None:
        todo, self._unsettled = self._unsettled, []
        p = self.cfg.key_prefix
        for n, (tenant, charged, actual, limits) in enumerate(todo):
            try:
                await self._settle(keys=[p + "b:" + tenant, self._own],
                                   args=[tenant, charged, actual,
                                         _arg(limits.tokens_per_minute)])
            except LOST:
                self._unsettled = todo[n:] + self._unsettled
                raise

    async def beat(self) -> None:
        """One heartbeat: send this replica's load and service, read the fleet's."""
        self.calls["heartbeat"] += 1
        load = {b.url: [b.inflight, max(b.prefill_pending, 0), max(b.decode_pending, 0)]
                for b in self.backends}
        deltas: list[Any] = []
        vtc = self.vtc
        if vtc is not None:
            for t, v in vtc.served.items():
                d = v - self._vtc_pushed.get(t, 0.0)
                if d > 0:
                    deltas += [t, repr(d)]
        n = len(deltas) // 2
        tenants = sorted({*self.tenant_names, *self.figures})
        reps, loads, totals, figs = await self._beat(
            keys=[self._replicas_key],
            args=[self.replica, self._ttl_ms, json.dumps(load, separators=(",", ":")),
                  self.cfg.key_prefix, n, *deltas, *tenants])
        self.replicas = self.local.replicas = int(reps)
        for i in range(n):
            t = deltas[2 * i]
            self._vtc_pushed[t] = self._vtc_pushed.get(t, 0.0) + float(deltas[2 * i + 1])
        self._apply_loads(loads)
        if vtc is not None:
            self._apply_vtc(vtc, totals)
        self._apply_figures(figs)

    def _apply_loads(self, loads: list[bytes]) -> None:
        sums: dict[str, list[int]] = {}
        for raw in loads:
            for url, vals in json.loads(raw).items():
                acc = sums.setdefault(url, [0, 0, 0])
                for k in range(3):
                    acc[k] += int(vals[k])
        for b in self.backends:
            b.remote_inflight, b.remote_prefill, b.remote_decode = sums.get(b.url, (0, 0, 0))

    def _apply_vtc(self, vtc: VTC, flat: list[bytes]) -> None:
        for k in range(0, len(flat), 2):
            t = flat[k].decode()
            others = float(flat[k + 1]) - self._vtc_pushed.get(t, 0.0)
            seen = self._vtc_others.get(t, 0.0)
            if others > seen:  # below: the store lost its history (a restart); count anew
                w = vtc.weights.get(t, 1.0)
                vtc.counters[t] = vtc.counters.get(t, 0.0) + (others - seen) / w
            self._vtc_others[t] = max(others, 0.0)

    def _apply_figures(self, figs: list[list[bytes]]) -> None:
        now = time.monotonic()
        for name, level, tpm, used, held in figs:
            t = name.decode()
            u = float(used) if used else 0.0
            hist = self._used.setdefault(t, deque())
            hist.append((now, u))
            while len(hist) > 2 and hist[1][0] <= now - 60:
                hist.popleft()
            t0, u0 = hist[0]
            rate = (u - u0) / (now - t0) * 60 if now > t0 and u >= u0 else None
            budget = float(tpm) if tpm else None
            self.figures[t] = TenantFigures(budget, float(level) if level else None, int(held),
                                            u, rate)
            if budget is not None:
                self.budgets[t] = budget

    def collect(self):  # noqa: ANN201 - the prometheus_client collector protocol
        up = GaugeMetricFamily("tokenpilot_state_up", "1 while the shared state (Redis) "
                               "answers; 0 while this replica fails open or closed without it",
                               labels=["on_failure"])
        up.add_metric([self.cfg.on_failure], 1.0 if self.up else 0.0)
        yield up
        tr = CounterMetricFamily("tokenpilot_state_transitions", "Times the shared state "
                                 "came back (up) or was lost (down)", labels=["to"])
        for k, v in self.transitions.items():
            tr.add_metric([k], v)
        yield tr
        calls = CounterMetricFamily("tokenpilot_state_calls", "Redis round trips by kind: "
                                    "take and settle on the request path, heartbeat off it",
                                    labels=["op"])
        for k, v in self.calls.items():
            calls.add_metric([k], v)
        yield calls
        spec = CounterMetricFamily("tokenpilot_state_speculated_takes", "Takes sent beside "
                                   "their upstream request (the tenant had room), and those "
                                   "whose answer came after the backend's first byte: Redis's "
                                   "latency then shows in the TTFT", labels=["answer"])
        spec.add_metric(["before_first_byte"], self.speculated - self.waited)
        spec.add_metric(["after_first_byte"], self.waited)
        yield spec
        reps = GaugeMetricFamily("tokenpilot_state_live_replicas",
                                 "Gateway replicas live in the shared state, as last seen")
        reps.add_metric([], self.replicas)
        yield reps


def pack(*parts: object) -> bytes:
    """One Redis command in RESP (an array of bulk strings)."""
    out = [b"*%d\r\n" % len(parts)]
    for x in parts:
        data = x if isinstance(x, bytes) else str(x).encode()
        out.append(b"$%d\r\n%s\r\n" % (len(data), data))
    return b"".join(out)


class _Wire(asyncio.Protocol):
    def __init__(self, lost: asyncio.Future) -> None:
        self.reader = hiredis.Reader()
        self.waiting: deque[tuple[asyncio.Future, float]] = deque()
        self.out: list[bytes] = []  # commands queued, not yet written (``Link._send``)
        self.transport: asyncio.Transport | None = None
        self.lost = lost

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def flush(self) -> None:
        out, self.out = self.out, []
        if self.transport is not None:  # else connection_lost failed their futures
            self.transport.write(b"".join(out))

    def data_received(self, data: bytes) -> None:
        self.reader.feed(data)
        waiting = self.waiting
        while (reply := self.reader.gets()) is not False:
            fut = waiting.popleft()[0]
            if not fut.done():
                fut.set_result(reply)

    def connection_lost(self, exc: Exception | None) -> None:
        self.transport = None
        err = RedisConnectionError(f"connection to Redis lost ({exc or 'closed'})")
        while self.waiting:
            fut = self.waiting.popleft()[0]
            if not fut.done():
                fut.set_exception(err)
        if not self.lost.done():
            self.lost.set_result(None)


class Link:
    """The request path's connection to Redis: one socket, the calls queued in one pass of the
    event loop written together (pipelined: a burst of takes shares round trips instead of
    opening a connection each), answers matched in order and parsed by hiredis (redis-py's own
    C parser).

    redis-py's asyncio client costs some 160 us of CPU per call on the reference machine, more
    than the gateway's whole budget for the shared state; this costs a few. Everything off the
    request path (the heartbeat, loading scripts, probing) goes through redis-py. A call with
    no answer after ``timeout_s`` closes the socket (``check``, from the heartbeat): every
    call waiting on it fails, and the next one connects anew.
    """

    def __init__(self, url: str, timeout_s: float) -> None:
        self.opts = parse_url(url)
        self.timeout_s = timeout_s
        self.wire: _Wire | None = None
        self._connecting: asyncio.Future | None = None

    async def _connect(self) -> _Wire:
        loop = asyncio.get_running_loop()
        o = self.opts
        wire = _Wire(loop.create_future())
        if "path" in o:
            conn = loop.create_unix_connection(lambda: wire, o["path"])
        else:
            conn = loop.create_connection(lambda: wire, o.get("host", "127.0.0.1"),
                                          o.get("port", 6379))
        await asyncio.wait_for(conn, self.timeout_s)
        hello = []
        if o.get("password"):
            hello.append(("AUTH", *([o["username"]] if o.get("username") else []),
                          o["password"]))
        if o.get("db"):
            hello.append(("SELECT", o["db"]))
        for cmd in hello:
            reply = await asyncio.wait_for(self._send(wire, pack(*cmd)), self.timeout_s)
            if isinstance(reply, hiredis.ReplyError):
                wire.transport.close()  # type: ignore[union-attr]
                raise RedisConnectionError(f"Redis refused {cmd[0]}: {reply}")
        return wire

    def _send(self, wire: _Wire, data: bytes) -> asyncio.Future:
        """Queue ``data``; it is written when the running task next yields, with every other
        command queued by then, in one write (their answers come back in that order). A take
        sent as its request goes upstream is so written after the upstream request."""
        loop = asyncio.get_running_loop()
        fut = loop.create_future()
        wire.waiting.append((fut, time.monotonic()))
        if not wire.out:
            loop.call_soon(wire.flush)
        wire.out.append(data)
        return fut

    def fire(self, script: Any, keys: list, args: list) -> asyncio.Future | None:
        """EVALSHA ``script`` without waiting: the future of its raw reply (a ReplyError is
        returned, not raised), or None when not connected."""
        wire = self.wire
        if wire is None or wire.transport is None:
            return None
        return self._send(wire, pack("EVALSHA", script.sha, len(keys), *keys, *args))

    async def call(self, script: Any, keys: list, args: list) -> Any:
        """EVALSHA ``script`` (a redis-py ``Script``); a Redis that does not know it yet (it
        restarted) gets it by EVAL, once."""
        wire = self.wire
        if wire is None or wire.transport is None:
            wire = await self._wire()
        reply = await self._send(wire, pack("EVALSHA", script.sha, len(keys), *keys, *args))
        if isinstance(reply, hiredis.ReplyError):
            if not str(reply).startswith("NOSCRIPT"):
                raise ResponseError(str(reply))
            reply = await self._send(wire, pack("EVAL", script.script, len(keys), *keys, *args))
            if isinstance(reply, hiredis.ReplyError):
                raise ResponseError(str(reply))
        return reply

    async def _wire(self) -> _Wire:
        if self._connecting is None:  # one connect at a time; the others wait on it
            self._connecting = asyncio.ensure_future(self._connect())
        try:
            self.wire = await asyncio.shield(self._connecting)
        finally:
            if self._connecting is not None and self._connecting.done():
                self._connecting = None
        return self.wire

    def check(self) -> None:
        """Close the socket when its oldest call has waited past ``timeout_s``."""
        wire = self.wire
        if wire is not None and wire.waiting and wire.transport is not None and (
                time.monotonic() - wire.waiting[0][1] > self.timeout_s):
            wire.transport.abort()

    def close(self) -> None:
        if self.wire is not None and self.wire.transport is not None:
            self.wire.transport.close()
        self.wire = None


class _SharedBuckets:
    """The ``BucketStore`` face of the shared buckets for ``Admission``: its takes are awaited
    by ``RedisState.admit``; ``settle`` is sent off the response's path."""

    def __init__(self, state: RedisState) -> None:
        self.state = state

    def take(self, key: str, cost: int, limits: BucketLimits, now: float) -> Take:
        raise TypeError("the shared buckets' take is awaited: RedisState.admit")

    def settle(self, key: str, charged: int, actual: int, limits: BucketLimits,
               now: float) -> None:
        self.state.settle_later(key, charged, actual, limits)


def _why(exc: BaseException) -> str:
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
