"""The gateway's slot queue on its own (no HTTP), and the gateway's use of it: a freed slot is
promised to the request woken for it, a woken request that leaves passes it on, and a request
that gives up waiting leaves the queue discipline uncharged."""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import replace

import pytest

from tokenpilot.config_section import from_mapping
from tokenpilot.gateway.app import Gateway
from tokenpilot.gateway.config import ConfigError, GatewayConfig
from tokenpilot.gateway.slots import SlotQueue
from tokenpilot.policy.disciplines import FCFS, VTC, StrictPriority
from tokenpilot.workload.request import Request


async def settle() -> None:
    """Let every task that can run, run."""
    for _ in range(5):
        await asyncio.sleep(0)


def later(s: float = 5.0) -> float:
    return time.monotonic() + s


def test_a_freed_slot_wakes_the_first_in_discipline_order_and_is_promised_until_it_resumes(
) -> None:
    async def scenario() -> None:
        q = SlotQueue(StrictPriority(), max_queue=10)
        low, high = Request(0, 0.0, 10, 10, priority=0), Request(1, 1.0, 10, 10, priority=5)
        waits = {r.id: asyncio.ensure_future(q.wait(r, later())) for r in (low, high)}
        await settle()
        assert len(q) == 2 and q.total == 2 and q.promised == 0
        q.free()
        assert q.promised == 1  # until the woken request runs, newcomers must queue
        await settle()
        assert waits[high.id].result() is True and not waits[low.id].done()
        assert q.promised == 0 and len(q) == 1
        q.free()
        await settle()
        assert waits[low.id].result() is True and q.promised == 0 and len(q) == 0
        q.free()  # nobody waits: nothing promised
        assert q.promised == 0

    asyncio.run(scenario())


def test_a_woken_request_cancelled_before_it_picks_passes_its_slot_on() -> None:
    async def scenario() -> None:
        q = SlotQueue(FCFS(), max_queue=10)
        first, second = Request(0, 0.0, 10, 10), Request(1, 1.0, 10, 10)
        a = asyncio.ensure_future(q.wait(first, later()))
        b = asyncio.ensure_future(q.wait(second, later()))
        await settle()
        q.free()  # promised to ``first``...
        a.cancel()  # ...whose client leaves before it resumes
        await settle()
        assert a.cancelled()
        assert b.result() is True, "the slot promised to the cancelled request was lost"
        assert q.promised == 0 and len(q) == 0

    asyncio.run(scenario())


def test_a_woken_request_keeps_its_slot_even_past_its_deadline() -> None:
    """Woken, the request has the slot: a deadline passing before it resumes does not lose it."""

    async def scenario() -> None:
        q = SlotQueue(FCFS(), max_queue=10)
        a = asyncio.ensure_future(q.wait(Request(0, 0.0, 10, 10), later(0.02)))
        b = asyncio.ensure_future(q.wait(Request(1, 1.0, 10, 10), later()))
        await settle()
        q.free()
        time.sleep(0.05)  # the loop is held: the deadline passes before ``a`` resumes
        await settle()
        assert a.result() is True and not b.done() and q.promised == 0

    asyncio.run(scenario())


@pytest.mark.parametrize("leave", ["timeout", "cancel"])
def test_a_request_that_gives_up_waiting_leaves_the_discipline_uncharged(leave: str) -> None:
    """Out of the fair queue, its tenant is not charged for it, and the next freed slot goes
    to a request still waiting."""

    async def scenario() -> None:
        vtc = VTC()
        q = SlotQueue(vtc, max_queue=10)
        quitter = Request(1, 0.0, 5000, 10, tenant="b")
        if leave == "timeout":
            assert await q.wait(quitter, later(0.03)) is False
        else:
            w = asyncio.ensure_future(q.wait(quitter, later()))
            await settle()
            w.cancel()
            await settle()
            assert w.cancelled()
        assert len(vtc) == 0 and vtc.counters.get("b", 0.0) == 0.0 and len(q) == 0
        stayer = asyncio.ensure_future(q.wait(Request(2, 0.0, 10, 10, tenant="c"), later()))
        await settle()
        q.free()
        await settle()
        assert stayer.result() is True and q.promised == 0

    asyncio.run(scenario())


def test_a_full_queue_or_a_passed_deadline_refuses_at_once() -> None:
    async def scenario() -> None:
        q = SlotQueue(FCFS(), max_queue=1)
        assert await q.wait(Request(0, 0.0, 10, 10), time.monotonic() - 1) is False
        held = asyncio.ensure_future(q.wait(Request(1, 0.0, 10, 10), later()))
        await settle()
        assert await q.wait(Request(2, 0.0, 10, 10), later()) is False
        assert len(q) == 1 and q.total == 1
        held.cancel()
        await settle()

    asyncio.run(scenario())


def test_release_charges_fair_queues_for_the_output_served() -> None:
    vtc = VTC()
    q = SlotQueue(vtc, max_queue=10)
    q.release(Request(0, 0.0, 10, 10, tenant="a"), 40)
    assert vtc.counters.get("a", 0.0) > 0.0


# ---- the gateway's side: a newcomer queues behind a promised slot -------------------------------
async def _json_backend(seen: list[int]) -> tuple[asyncio.Server, int]:
    """A backend answering every POST at once with a whole-body completion; ``seen`` gets each
    request's ``n`` in the order they came."""

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = int(head.lower().split(b"content-length: ")[1].split(b"\r\n")[0])
                seen.append(json.loads(await reader.readexactly(length))["n"])
                body = b'{"choices":[],"usage":{"prompt_tokens":10,"completion_tokens":1}}'
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                             b"Content-Length: %d\r\n\r\n%b" % (len(body), body))
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    return server, server.sockets[0].getsockname()[1]


@pytest.mark.e2e
def test_a_request_arriving_while_a_slot_is_promised_queues_behind_the_woken_one() -> None:
    async def scenario() -> list[int]:
        seen: list[int] = []
        server, port = await _json_backend(seen)
        doc = {"backends": [f"http://127.0.0.1:{port}"]}
        cfg = from_mapping(GatewayConfig, doc, "gateway config", ConfigError)
        cfg.backends[0] = replace(cfg.backends[0], max_concurrency=1)
        gw = Gateway(cfg)

        def send(n: int) -> asyncio.Future:
            req = Request(n, 0.0, 10, 1)
            body = {"n": n, "prompt": "hi", "max_tokens": 1}
            return asyncio.ensure_future(gw._dispatch(req, body, json.dumps(body).encode(),
                                                      False, False, False, frozenset()))

        holder = Request(99, 0.0, 10, 1)
        gw.backends[0].begin(holder)  # the only slot is taken
        queued = send(1)
        await settle()
        assert gw.queued == 1
        gw.backends[0].end(holder, True, 1)
        # The newcomer's first step is scheduled before the queued request's wake-up.
        newcomer = send(2)
        gw.slots.free()
        responses = await asyncio.gather(queued, newcomer)
        assert [r.status_code for r in responses] == [200, 200]
        assert gw.queued == 0 and gw.slots.promised == 0 and gw.queued_total == 2
        await gw.upstream.aclose()
        server.close()
        return seen

    assert asyncio.run(scenario()) == [1, 2], "the newcomer took the slot promised to the queue"
