"""Queue disciplines: the order in which waiting requests are offered to a scheduler.

One place for all of them: the protocol an engine's scheduler and the gateway's slot queue both
drive, FCFS, strict priority, VTC (virtual token counter) fairness, and ``make_discipline``,
the one factory by name. Neither caller knows which discipline it runs. A request preempted
by recompute comes back through ``push`` and goes to the head of its class (the queue, its
priority level, or its tenant) by its original arrival, as vLLM does.

``policy`` sits below the engine: nothing here imports ``engine``, ``cluster`` or ``gateway``
(``tests/test_layering.py``).
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping
from typing import Literal, Protocol, runtime_checkable

from tokenpilot.workload.request import Request


@runtime_checkable
class QueueDiscipline(Protocol):
    """Orders waiting requests. ``on_service`` tells it how many tokens a request was served.

    The engine reports prefill tokens as they are scheduled. Decode tokens are reported only to
    disciplines that set ``wants_decode_service`` (it costs a call per running request per
    event-skip), in one call per request per skipped span, to ``on_decode(req, tokens)`` if
    the discipline has one, else to ``on_service``.
    """

    wants_decode_service: bool

    def push(self, req: Request) -> None: ...

    def pop(self) -> Request: ...

    def peek(self) -> Request: ...

    def __len__(self) -> int: ...

    def on_service(self, req: Request, tokens: int) -> None: ...

    def remove(self, req: Request) -> bool:
        """Take ``req`` out unserved (it gave up waiting, or its client went away), charging
        no one for it; False if it is not queued."""
        ...


class HeapQueue:
    """A discipline that is a heap of tuples ending in the request: subclasses push with their
    own sort key in front; served tokens change nothing.

    ``heap`` is public: the engine's scheduler pushes to and pops FCFS's heap with ``heapq``
    itself, sparing three Python calls per request (see ``Scheduler.__init__``). Whoever does
    keeps it a heap of the class's own entries.
    """

    wants_decode_service = False

    def __init__(self) -> None:
        self.heap: list[tuple] = []

    def pop(self) -> Request:
        return heapq.heappop(self.heap)[-1]

    def peek(self) -> Request:
        return self.heap[0][-1]

    def remove(self, req: Request) -> bool:
        """Take ``req`` out unserved (it gave up waiting); False if it is not queued."""
        return heap_remove(self.heap, req)

    def __len__(self) -> int:
        return len(self.heap)

    def on_service(self, req: Request, tokens: int) -> None:
        pass


class FCFS(HeapQueue):
    """First come, first served by arrival time.

    A request preempted by recompute goes back in with its original arrival, hence to the head
    of the queue, as vLLM does.
    """

    def push(self, req: Request) -> None:
        heapq.heappush(self.heap, (req.arrival, req.id, req))


def heap_remove(heap: list, req: Request) -> bool:
    """Remove the entry whose last item is ``req`` from a heap of tuples: O(n), for queues that
    lose a waiter now and then (the gateway's, when a request times out)."""
    for k, entry in enumerate(heap):
        if entry[-1] is req:
            heap[k] = heap[-1]
            heap.pop()
            heapq.heapify(heap)
            return True
    return False


class StrictPriority(HeapQueue):
    """Higher ``Request.priority`` first; first come, first served within a priority."""

    def push(self, req: Request) -> None:
        heapq.heappush(self.heap, (-req.priority, req.arrival, req.id, req))


class VTC:
    """Virtual Token Counter: serve the backlogged tenant that has received the least service.

    Follows Sheng et al., "Fairness in Serving Large Language Models" (OSDI 2024), Algorithm 2,
    and its artifact (github.com/Ying1123/VTC-artifact, ``slora/server/router/vtc_req_queue.py``):

    - Each tenant ``u`` has a counter ``c_u`` of weighted service, ``(w_in * input tokens +
      w_out * output tokens) / weight_u`` (defaults ``w_in=1``, ``w_out=2``, weight 1).
    - ``pop`` takes the earliest request of the backlogged tenant with the least counter and
      charges its whole input at that moment (the paper charges the prompt on dispatch).
    - Output tokens are charged as they are generated (``on_decode``; the engine reports them
      because ``wants_decode_service`` is set).
    - Counter lift on arrival: when a tenant with no queued request gets one, its counter rises
      to ``max(c_u, min c_v over backlogged v)``, or, when no tenant is backlogged, to
      ``max(c_u, c_l)`` with ``l`` the tenant that last left the queue. Without the lift a tenant
      idle for a while would come back with a low counter and monopolise the server.

    The paper's Theorem (service bound): for two tenants backlogged over an interval, the
    difference in weighted service they receive is at most ``2 * U`` with
    ``U = max(w_in * L_input, w_out * M)``, ``L_input`` the longest prompt and ``M`` the most
    tokens the running batch holds (``tests/test_fairness.py`` checks it at every decision).

    Service reports: the engine reports prefill tokens through ``on_service`` and, when the
    discipline has ``on_decode``, decode tokens there; prefill reports use up the input already
    charged at ``pop`` (including a recompute after preemption, which the tenant is not charged
    for twice). A caller with no ``on_decode`` (it sends every token through ``on_service``) is
    still served correctly: tokens beyond the request's prefill are counted as output.
    """

    wants_decode_service = True

    def __init__(self, weights: Mapping[str, float] | None = None, w_in: float = 1.0,
                 w_out: float = 2.0) -> None:
        if w_in < 0 or w_out < 0:
            raise ValueError("VTC token weights must not be negative")
        for t, w in (weights or {}).items():
            if not w > 0:
                raise ValueError(f"VTC weight of tenant {t!r} must be positive, got {w!r}")
        self.weights = dict(weights or {})
        self.w_in = w_in
        self.w_out = w_out
        self.counters: dict[str, float] = {}
        self.served: dict[str, float] = {}  # weighted tokens served, before dividing by weight
        self._queues: dict[str, list[tuple[float, int, Request]]] = {}
        self._backlogged: set[str] = set()
        self._n = 0
        self._last_left: str | None = None
        # Per request in service: [prefill tokens still covered by the pop-time charge,
        #                          output tokens charged so far]
        self._active: dict[int, list[int]] = {}

    # ---- the queue ------------------------------------------------------------------------
    def push(self, req: Request) -> None:
        t = req.tenant
        q = self._queues.get(t)
        if q is None:
            q = self._queues[t] = []
            self.counters.setdefault(t, 0.0)
            self.served.setdefault(t, 0.0)
        if not q:
            self._lift(t)
            self._backlogged.add(t)
        heapq.heappush(q, (req.arrival, req.id, req))
        self._n += 1

    def _lift(self, t: str) -> None:
        c = self.counters
        if self._backlogged:
            c[t] = max(c[t], min(c[v] for v in self._backlogged))
        elif self._last_left is not None and self._last_left != t:
            c[t] = max(c[t], c[self._last_left])

    def _next_tenant(self) -> str:
        if not self._backlogged:
            raise IndexError("pop from an empty VTC queue")
        c, qs = self.counters, self._queues
        # Ties go to the tenant whose head request came first, then by name: deterministic.
        return min(self._backlogged, key=lambda v: (c[v], qs[v][0][0], qs[v][0][1], v))

    def peek(self) -> Request:
        return self._queues[self._next_tenant()][0][2]

    def pop(self) -> Request:
        t = self._next_tenant()
        q = self._queues[t]
        req = heapq.heappop(q)[2]
        self._n -= 1
        if not q:
            self._backlogged.discard(t)
            self._last_left = t
        state = self._active.get(req.id)
        if state is None:
            self._charge(t, self.w_in * req.prompt_tokens)
            self._active[req.id] = [req.prompt_tokens, 0]
        else:
            # Back after a preemption by recompute: it prefills its prompt and its output so
            # far again, at no new charge to the tenant.
            state[0] = req.prompt_tokens + state[1]
        return req

    def __len__(self) -> int:
        return self._n

    def remove(self, req: Request) -> bool:
        """Take ``req`` out unserved (it gave up waiting): its tenant is not charged for it."""
        t = req.tenant
        q = self._queues.get(t)
        if not q or not heap_remove(q, req):
            return False
        self._n -= 1
        if not q:
            self._backlogged.discard(t)
            self._last_left = t
        return True

    # ---- service reports ------------------------------------------------------------------
    def _charge(self, t: str, cost: float) -> None:
        self.served[t] = self.served.get(t, 0.0) + cost
        self.counters[t] = self.counters.get(t, 0.0) + cost / self.weights.get(t, 1.0)

    def on_service(self, req: Request, tokens: int) -> None:
        """Prefill tokens scheduled for ``req`` (or, from a caller without ``on_decode``, any)."""
        state = self._active.get(req.id)
        if state is None:  # served without passing through this queue: charge it as input
            self._charge(req.tenant, self.w_in * tokens)
            return
        covered = min(tokens, state[0])
        state[0] -= covered
        if tokens > covered:
            self.on_decode(req, tokens - covered)

    def on_decode(self, req: Request, tokens: int) -> None:
        """``tokens`` output tokens generated for ``req``."""
        self._charge(req.tenant, self.w_out * tokens)
        state = self._active.get(req.id)
        if state is not None:
            state[1] += tokens
            state[0] = 0  # decoding means its prefill is done, whatever prefix cache covered
            if state[1] >= req.output_tokens:
                del self._active[req.id]

    def on_finished(self, req: Request) -> None:
        """Optional: forget ``req`` (it ended before producing all of ``output_tokens``)."""
        self._active.pop(req.id, None)


# Every discipline by name; only VTC weighs tenants. ``DisciplineName`` is the type of a config
# field naming one (the config reader checks the value against it and lists the choices).
DisciplineName = Literal["fcfs", "priority", "vtc"]
DISCIPLINES: dict[str, type] = {"fcfs": FCFS, "priority": StrictPriority, "vtc": VTC}


def discipline_names() -> tuple[str, ...]:
    """Every name ``make_discipline`` accepts."""
    return tuple(DISCIPLINES)


def make_discipline(name: str = "fcfs",
                    weights: Mapping[str, float] | None = None) -> QueueDiscipline:
    """A fresh discipline by name: ``fcfs``, ``priority`` or ``vtc``.

    ``weights`` (tenant -> weight, default equal) is VTC's; the other disciplines do not weigh
    tenants and ignore it, so a caller configured with weights may run any discipline.
    """
    if name == "vtc":
        return VTC(weights=weights)
    cls = DISCIPLINES.get(name)
    if cls is None:
        raise ValueError(f"unknown queue discipline {name!r}; known: {', '.join(DISCIPLINES)}")
    return cls()
